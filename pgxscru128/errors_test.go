package pgxscru128_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/fastid/scru128"
	"github.com/fastid/scru128/pgxscru128"
	"github.com/fastid/scru128/scru64"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
)

// TestBadData feeds every format what a column can hold but no ID is, in
// every query mode: NULL, garbage in a text column, int8 values out of a
// 64-bit format's range, 64-bit IDs out of range, and nil pointers as scan
// targets. Each must fail with the format package's own error (or
// ErrNilTarget), found by errors.Is through pgx's wrapping, and leave the
// destination as it was; nothing may panic. Any uuid, on the other hand,
// is a 128-bit ID.
func TestBadData(t *testing.T) {
	forEachMode(t, func(t *testing.T, f testedFormat, conn *pgx.Conn, mode pgx.QueryExecMode) {
		f.testBadData(t, conn, mode)
	})
}

func (f *format[T, N]) testBadData(t *testing.T, conn *pgx.Conn, mode pgx.QueryExecMode) {
	ctx := context.Background()
	untouched := f.extremes[1]
	var id T
	var n N

	err := conn.QueryRow(ctx, `SELECT NULL::`+f.pgType, mode).Scan(&id)
	if !errors.Is(err, f.errScanNull) {
		t.Errorf("NULL into the ID type: %v, want %v", err, f.errScanNull)
	}

	badTexts := map[string]error{
		"":                                f.errLength,
		strings.Repeat("_", f.textLength): f.errChar,
	}
	if f.pgType == "uuid" {
		badTexts[strings.Repeat("0", f.textLength+1)] = f.errLength
		// 16 bytes, the binary form's length, are no text form.
		badTexts["0123456789abcdef"] = f.errLength
		badTexts["017fee7f-ef41-7e2b-3432-ac2ec553687g"] = f.errChar
	} else {
		badTexts["-1"] = f.errChar
		badTexts["99999999999999999999"] = f.errRange
	}
	table := createTable(t, conn, f.name, `txt text`)
	for text, want := range badTexts {
		exec(t, conn, `DELETE FROM `+table)
		exec(t, conn, `INSERT INTO `+table+` VALUES ($1)`, mode, text)
		id, n = untouched, f.null(untouched, true)
		err := conn.QueryRow(ctx, `SELECT txt FROM `+table, mode).Scan(&id)
		errNull := conn.QueryRow(ctx, `SELECT txt FROM `+table, mode).Scan(&n)
		if !errors.Is(err, want) || !errors.Is(errNull, want) || id != untouched || n != f.null(untouched, true) {
			t.Errorf("text %q: %v, %v, %v, %v; want %v, unchanged", text, err, errNull, id, n, want)
		}
	}

	for _, v := range f.badInt8 {
		id = untouched
		err := conn.QueryRow(ctx, `SELECT $1::int8`, mode, v).Scan(&id)
		if !errors.Is(err, f.errRange) || id != untouched {
			t.Errorf("int8 %d: %v, %v; want %v, unchanged", v, id, err, f.errRange)
		}
	}
	for _, v := range f.outOfRange {
		array := f.pgType + "[]"
		for _, bound := range []struct {
			cast string
			arg  any
		}{
			{f.pgType, v}, {f.pgType, &v}, {f.pgType, f.null(v, true)},
			{array, []T{v}}, {array, []N{f.null(v, true)}}, {array, []*T{&v}},
		} {
			var s string
			err := conn.QueryRow(ctx, `SELECT $1::`+bound.cast+`::text`, mode, bound.arg).Scan(&s)
			if !errors.Is(err, f.errRange) {
				t.Errorf("%T %v bound: %q, %v; want %v", bound.arg, v, s, err, f.errRange)
			}
		}
		if knowsTypes(mode) {
			var s string
			err := conn.QueryRow(ctx, `SELECT $1::text`, mode, v).Scan(&s)
			if !errors.Is(err, f.errRange) {
				t.Errorf("%v bound as text: %q, %v; want %v", v, s, err, f.errRange)
			}
		}
	}

	value, array := `SELECT $1::`+f.pgType, `SELECT ARRAY[$1::`+f.pgType+`]`
	for target, query := range map[any]string{(*T)(nil): value, (*N)(nil): value, (*[]T)(nil): array, (*[]N)(nil): array} {
		err := conn.QueryRow(ctx, query, mode, untouched).Scan(target)
		if !errors.Is(err, pgxscru128.ErrNilTarget) || !strings.Contains(err.Error(), fmt.Sprintf("%T", target)) {
			t.Errorf("scan into a nil %T: %v, want %v naming the type", target, err, pgxscru128.ErrNilTarget)
		}
	}

	if f.pgType == "uuid" {
		var s string
		for range 20 {
			if err := conn.QueryRow(ctx, `SELECT u, u::text FROM gen_random_uuid() u`, mode).Scan(&id, &s); err != nil || f.pgText(id) != s {
				t.Errorf("a random uuid %s: %v, %v", s, id, err)
			}
		}
	}
}

// TestWithoutRegister pins what a user sees without Register, as the
// package documentation tells it: plain 128-bit IDs and slices of them
// fail for uuid, and Binary fails for uuid where pgx does not know the
// parameter's type; scanning works through the types' Scan methods.
func TestWithoutRegister(t *testing.T) {
	ctx := context.Background()
	conn := connect(t, false)
	id := scru128.MustParse("0372hg16csmsm50l8dikcvukc")
	const want = "017fee7f-ef41-7e2b-3432-ac2ec553687c"
	isInvalidUUID := func(err error) bool {
		var pgErr *pgconn.PgError
		return errors.As(err, &pgErr) && pgErr.Code == "22P02" && strings.Contains(pgErr.Message, "invalid input syntax for type uuid")
	}
	for _, mode := range modes {
		var s string
		err := conn.QueryRow(ctx, `SELECT $1::uuid::text`, mode, id).Scan(&s)
		if !isInvalidUUID(err) || !strings.Contains(err.Error(), `"0372hg16csmsm50l8dikcvukc"`) {
			t.Errorf("%v, plain ID: %q, %v", mode, s, err)
		}

		err = conn.QueryRow(ctx, `SELECT $1::uuid[]::text`, mode, []scru128.ID{id}).Scan(&s)
		if knowsTypes(mode) && !isInvalidUUID(err) || !knowsTypes(mode) && (err == nil || !strings.Contains(err.Error(), "cannot find encode plan")) {
			t.Errorf("%v, []scru128.ID: %q, %v", mode, s, err)
		}

		err = conn.QueryRow(ctx, `SELECT $1::uuid::text`, mode, scru128.Binary(id)).Scan(&s)
		if knowsTypes(mode) && (err != nil || s != want) ||
			!knowsTypes(mode) && (!isInvalidUUID(err) || !strings.Contains(err.Error(), `"\x017fee7fef417e2b3432ac2ec553687c"`)) {
			t.Errorf("%v, Binary: %q, %v", mode, s, err)
		}

		var got scru128.ID
		if err := conn.QueryRow(ctx, `SELECT $1::uuid`, mode, want).Scan(&got); err != nil || got != id {
			t.Errorf("%v, scanning uuid: %v, %v", mode, got, err)
		}

		if knowsTypes(mode) {
			err = conn.QueryRow(ctx, `SELECT $1::text`, mode, scru64.MustParse("0u375nxqh5cq")).Scan(&s)
			if err == nil {
				t.Errorf("%v, scru64.ID bound as text: %q, want an error", mode, s)
			}
		}
	}
}

// TestRegisterLeavesOtherTypes checks that Register changes nothing for
// the Go types it does not handle, the Binary types among them.
func TestRegisterLeavesOtherTypes(t *testing.T) {
	ctx := context.Background()
	conn := connect(t, true)
	id := scru128.MustParse("0372hg16csmsm50l8dikcvukc")
	const want = "017fee7f-ef41-7e2b-3432-ac2ec553687c"
	for _, mode := range modes {
		args := []any{want, pgtype.UUID{Bytes: id, Valid: true}}
		if knowsTypes(mode) {
			// Where the type is unknown, pgx cannot encode a [16]byte,
			// with or without Register.
			args = append(args, [16]byte(id))
		}
		for _, arg := range args {
			var s string
			if err := conn.QueryRow(ctx, `SELECT $1::uuid::text`, mode, arg).Scan(&s); err != nil || s != want {
				t.Errorf("%v, %T bound to uuid: %q, %v", mode, arg, s, err)
			}
		}
		if knowsTypes(mode) {
			var s string
			if err := conn.QueryRow(ctx, `SELECT $1::uuid::text`, mode, scru128.Binary(id)).Scan(&s); err != nil || s != want {
				t.Errorf("%v, Binary bound to uuid: %q, %v", mode, s, err)
			}
		}
		var length int
		if err := conn.QueryRow(ctx, `SELECT octet_length($1::bytea)`, mode, scru128.Binary(id)).Scan(&length); err != nil || length != 16 {
			t.Errorf("%v, Binary bound to bytea: %d bytes, %v", mode, length, err)
		}
		var n int64
		if err := conn.QueryRow(ctx, `SELECT $1::int8 + 1`, mode, int64(41)).Scan(&n); err != nil || n != 42 {
			t.Errorf("%v, int64: %d, %v", mode, n, err)
		}
		for _, cast := range []string{"text", "varchar", "char(5)"} {
			args := []any{"hello", pgtype.Text{String: "hello", Valid: true}}
			if knowsTypes(mode) {
				// Where the type is unknown, pgx sends a []byte as
				// bytea, with or without Register.
				args = append(args, []byte("hello"))
			}
			for _, arg := range args {
				var s string
				var bs []byte
				var pt pgtype.Text
				var a any
				err := conn.QueryRow(ctx, `SELECT $1::`+cast+`, $1::`+cast+`, $1::`+cast+`, $1::`+cast, mode, arg).Scan(&s, &bs, &pt, &a)
				if err != nil || s != "hello" || string(bs) != "hello" || pt.String != "hello" || a != "hello" {
					t.Errorf("%v, %T as %s: %q, %q, %v, %v, %v", mode, arg, cast, s, bs, pt, a, err)
				}
			}
		}
		var u pgtype.UUID
		var a any
		var b scru128.Binary
		if err := conn.QueryRow(ctx, `SELECT $1::uuid, $1::uuid, $1::uuid`, mode, want).Scan(&u, &a, &b); err != nil ||
			u.Bytes != id || a != [16]byte(id) || b != scru128.Binary(id) {
			t.Errorf("%v, scanning uuid into pgtype.UUID, any and Binary: %v, %v, %v, %v", mode, u, a, b, err)
		}
	}
}

// TestRegisterMisuse checks that Register leaves alone what it cannot
// use, and that a second call changes nothing.
func TestRegisterMisuse(t *testing.T) {
	pgxscru128.Register(nil)

	var zero pgtype.Map
	pgxscru128.Register(&zero)
	if !reflect.DeepEqual(&zero, &pgtype.Map{}) {
		t.Error("Register changed a zero Map")
	}

	m := pgtype.NewMap()
	pgxscru128.Register(m)
	encoders, scanners := len(m.TryWrapEncodePlanFuncs), len(m.TryWrapScanPlanFuncs)
	uuidType, _ := m.TypeForOID(pgtype.UUIDOID)
	pgxscru128.Register(m)
	if again, _ := m.TypeForOID(pgtype.UUIDOID); again != uuidType ||
		len(m.TryWrapEncodePlanFuncs) != encoders || len(m.TryWrapScanPlanFuncs) != scanners {
		t.Error("a second Register changed the map")
	}
	if got, err := m.Encode(pgtype.UUIDOID, pgtype.BinaryFormatCode, scru128.Max, nil); err != nil || string(got) != string(scru128.Max[:]) {
		t.Errorf("after two Registers: %x, %v", got, err)
	}
}

// TestRegisterKeepsOtherColumns binds IDs to parameters of types other
// than uuid, int8 and text, where pgx knows the type: Register must
// change nothing there, so each binding succeeds or fails as it does
// without Register, with the same result.
func TestRegisterKeepsOtherColumns(t *testing.T) {
	ctx := context.Background()
	plain, registered := connect(t, false), connect(t, true)
	args := []any{scru64.ID(5), scru64.MustParse("0u375nxqh5cq"), scru64.NullID{ID: 5, Valid: true}, scru128.MustParse("0372hg16csmsm50l8dikcvukc")}
	for _, mode := range modes[:3] {
		for _, cast := range []string{"numeric", "int4", "float8", "bytea", "json", "jsonb", "macaddr8"} {
			for _, arg := range args {
				var want, got string
				errWant := plain.QueryRow(ctx, `SELECT $1::`+cast+`::text`, mode, arg).Scan(&want)
				errGot := registered.QueryRow(ctx, `SELECT $1::`+cast+`::text`, mode, arg).Scan(&got)
				if got != want || (errGot == nil) != (errWant == nil) {
					t.Errorf("%v, %T %v as %s: %q, %v; without Register %q, %v", mode, arg, arg, cast, got, errGot, want, errWant)
				}
			}
		}
	}
}
