package pgxscru128_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/fastid/scru128"
	"github.com/fastid/scru128/pgxscru128"
	"github.com/jackc/pgx/v5/pgtype"
)

// TestMap checks the encoding and scanning on a registered pgtype.Map,
// without a server: every form of every format encodes as pgx encodes
// the equivalent native value (pgtype.UUID, int64), in both formats (an
// int8 in the text format padded with zeros), and scans back; where the
// type is unknown (OID 0) an ID takes its PostgreSQL type's text form, and
// a text parameter takes the same.
func TestMap(t *testing.T) {
	forEachFormat(t, func(t *testing.T, f testedFormat) { f.testMap(t) })
}

func (f *format[T, N]) testMap(t *testing.T) {
	m := pgtype.NewMap()
	pgxscru128.Register(m)
	pgType, _ := m.TypeForName(f.pgType)
	arrayType, _ := m.TypeForName("_" + f.pgType)
	encode := func(oid uint32, format int16, value any) string {
		t.Helper()
		b, err := m.Encode(oid, format, value, nil)
		if err != nil {
			t.Fatalf("encoding %T %v: %v", value, value, err)
		}
		if b == nil {
			return "NULL"
		}
		return string(b)
	}
	var zero T
	for _, format := range []int16{pgtype.TextFormatCode, pgtype.BinaryFormatCode} {
		for _, value := range []any{[]T(nil), []N(nil), []*T(nil)} {
			if got := encode(arrayType.OID, format, value); got != "NULL" {
				t.Errorf("a nil %T in format %d: %q, want NULL", value, format, got)
			}
		}
		slice, nullSlice := []T{zero}, []N{f.null(zero, true)}
		if err := m.Scan(arrayType.OID, format, nil, &slice); err != nil || slice != nil {
			t.Errorf("NULL into a slice in format %d: %v, %v; want nil", format, slice, err)
		}
		if err := m.Scan(arrayType.OID, format, nil, &nullSlice); err != nil || nullSlice != nil {
			t.Errorf("NULL into a slice of Null values in format %d: %v, %v; want nil", format, nullSlice, err)
		}
	}
	untouched := f.extremes[1]
	binaryLength := map[string]int{"uuid": 16, "int8": 8}[f.pgType]
	for _, length := range []int{0, 1, binaryLength - 1, binaryLength + 1, 2 * binaryLength} {
		got, gotNull := untouched, f.null(untouched, true)
		src := make([]byte, length)
		err := m.Scan(pgType.OID, pgtype.BinaryFormatCode, src, &got)
		errNull := m.Scan(pgType.OID, pgtype.BinaryFormatCode, src, &gotNull)
		if !errors.Is(err, f.errLength) || !errors.Is(errNull, f.errLength) || got != untouched || gotNull != f.null(untouched, true) {
			t.Errorf("%d bytes in the binary format: %v, %v, %v, %v; want %v, unchanged", length, got, gotNull, err, errNull, f.errLength)
		}
	}
	for _, id := range f.sample(t) {
		ptr := &id
		for _, format := range []int16{pgtype.TextFormatCode, pgtype.BinaryFormatCode} {
			want := encode(pgType.OID, format, f.native(id))
			if format == pgtype.TextFormatCode {
				want = f.stored(id) // for int8, padded: pgx writes no zeros
			}
			for _, value := range []any{id, ptr, f.null(id, true), &[]N{f.null(id, true)}[0]} {
				if got := encode(pgType.OID, format, value); got != want {
					t.Errorf("%T %v in format %d: %q, want %q", value, id, format, got, want)
				}
			}
			for _, value := range []any{(*T)(nil), f.null(id, false), (*N)(nil)} {
				if got := encode(pgType.OID, format, value); got != "NULL" {
					t.Errorf("%T %v in format %d: %q, want NULL", value, value, format, got)
				}
			}
			wantArray := encode(arrayType.OID, format, []any{f.native(id), nil, f.native(zero)})
			if format == pgtype.TextFormatCode {
				wantArray = "{" + f.stored(id) + ",NULL," + f.stored(zero) + "}"
			}
			for _, value := range []any{
				[]N{f.null(id, true), f.null(id, false), f.null(zero, true)},
				[]*T{ptr, nil, &zero},
			} {
				if got := encode(arrayType.OID, format, value); got != wantArray {
					t.Errorf("%T in format %d: %q, want %q", value, format, got, wantArray)
				}
			}
			wantIDs := encode(arrayType.OID, format, []any{f.native(id), f.native(zero)})
			if format == pgtype.TextFormatCode {
				wantIDs = "{" + f.stored(id) + "," + f.stored(zero) + "}"
			}
			if got, want := encode(arrayType.OID, format, []T{id, zero}), wantIDs; got != want {
				t.Errorf("[]T in format %d: %q, want %q", format, got, want)
			}

			var got T
			var gotNull N
			var gotSlice []T
			if err := m.Scan(pgType.OID, format, []byte(want), &got); err != nil || got != id {
				t.Errorf("scanning %q in format %d: %v, %v", want, format, got, err)
			}
			if err := m.Scan(pgType.OID, format, []byte(want), &gotNull); err != nil || gotNull != f.null(id, true) {
				t.Errorf("scanning %q in format %d into the Null type: %v, %v", want, format, gotNull, err)
			}
			if err := m.Scan(pgType.OID, format, nil, &gotNull); err != nil || gotNull != f.null(zero, false) {
				t.Errorf("scanning NULL into the Null type: %v, %v", gotNull, err)
			}
			if err := m.Scan(pgType.OID, format, nil, &got); !errors.Is(err, f.errScanNull) {
				t.Errorf("scanning NULL: %v, want %v", err, f.errScanNull)
			}
			if err := m.Scan(arrayType.OID, format, []byte(encode(arrayType.OID, format, []T{id, zero})), &gotSlice); err != nil ||
				!slices.Equal(gotSlice, []T{id, zero}) {
				t.Errorf("scanning an array in format %d: %v, %v", format, gotSlice, err)
			}
		}
		if got := encode(0, pgtype.TextFormatCode, id); got != f.stored(id) {
			t.Errorf("%v with no type: %q, want %q", id, got, f.stored(id))
		}
		for _, oid := range []uint32{pgtype.TextOID, pgtype.VarcharOID, pgtype.BPCharOID} {
			for _, format := range []int16{pgtype.TextFormatCode, pgtype.BinaryFormatCode} {
				if got := encode(oid, format, id); got != f.stored(id) {
					t.Errorf("%v as text (OID %d, format %d): %q, want %q", id, oid, format, got, f.stored(id))
				}
				// Scanned back, with the ID's own text and the form
				// PostgreSQL writes for its type.
				for _, text := range []string{f.stored(id), f.text(id), f.pgText(id)} {
					var got T
					if err := m.Scan(oid, format, []byte(text), &got); err != nil || got != id {
						t.Errorf("%q from text (OID %d, format %d): %v, %v", text, oid, format, got, err)
					}
				}
			}
		}
	}
}

// TestHyphenatedForms checks that a uuid's text is read in either case and
// in the other forms the types' Scan methods accept, and that a bad
// hyphenated form fails with the format's error and the offset of the
// offending byte.
func TestHyphenatedForms(t *testing.T) {
	m := pgtype.NewMap()
	pgxscru128.Register(m)
	want := scru128Format.extremes[1]
	want[0] = 0x01
	for _, text := range []string{
		"01ffffff-ffff-ffff-ffff-ffffffffffff",
		"01FFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF",
		"01ffffffffffffffffffffffffffffff",
		want.String(),
	} {
		got := scru128Format.extremes[0]
		if err := m.Scan(pgtype.UUIDOID, pgtype.TextFormatCode, []byte(text), &got); err != nil || got != want {
			t.Errorf("%q: %v, %v", text, got, err)
		}
	}
	for text, offset := range map[string]int{
		"01ffffff-ffff-ffff-ffff-fffffffffffg": 35,
		"01ffffff_ffff-ffff-ffff-ffffffffffff": 8,
		"0x1fffff-ffff-ffff-ffff-ffffffffffff": 1,
	} {
		got := want
		err := m.Scan(pgtype.UUIDOID, pgtype.TextFormatCode, []byte(text), &got)
		var charErr *scru128.InvalidCharacterError
		if !errors.Is(err, scru128.ErrInvalidCharacter) || !errors.As(err, &charErr) || charErr.Offset != offset || got != want {
			t.Errorf("%q: %v, %v; want the byte at %d", text, got, err, offset)
		}
	}
}
