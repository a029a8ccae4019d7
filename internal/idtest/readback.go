package idtest

import (
	"bytes"
	"database/sql/driver"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"testing"
)

// Writable is what every format's ID type writes itself with.
type Writable interface {
	comparable
	String() string
	MarshalText() ([]byte, error)
	MarshalBinary() ([]byte, error)
	Value() (driver.Value, error)
}

// Readable is a pointer to a format's ID type, which reads itself back.
type Readable[T any] interface {
	*T
	Scan(src any) error
	UnmarshalText(b []byte) error
	UnmarshalJSON(b []byte) error
	UnmarshalBinary(b []byte) error
}

// ReadBack describes, for [CheckReadBack], what a format writes an ID as
// beyond its methods, and how its Null type reads.
type ReadBack[T any, N any] struct {
	// Forms are the format's other ways of writing id, by name, each of a
	// kind and as a reader is handed it: the Binary type's Value, the
	// UUID forms a uuid column returns, the Null type's JSON, ...
	Forms func(id T) map[string]Form
	// NullFields reads the Null type N.
	NullFields func(n N) (T, bool)
}

// Form is one way an ID is written: its kind, which says which readers
// take it, and the value a reader is handed.
type Form struct {
	Kind  FormKind
	Value any
}

// FormKind is the kind of a written form.
type FormKind int

const (
	// TextForm is the ID's text, which every reader takes: Scan sorts it
	// from the other forms, UnmarshalText and Parse read it alone, a JSON
	// string and UnmarshalBinary hold it too.
	TextForm FormKind = iota
	// JSONForm is a JSON document, for UnmarshalJSON (and Scan, which
	// must refuse it).
	JSONForm
	// BinaryForm is the bytes of MarshalBinary, for UnmarshalBinary and
	// Scan.
	BinaryForm
	// SQLForm is what a database hands back after Value or another
	// database form was stored, for Scan alone: decimal digits, a UUID's
	// text, an integer.
	SQLForm
)

// CheckReadBack writes each of ids in every form the format writes one
// and reads each form back with every reader that takes forms of its kind:
// Scan, into the ID and the Null type, reads every form (it tells them
// apart itself, so it must never take one for another); UnmarshalText
// reads text; UnmarshalJSON, of both types, reads JSON and the text as a
// JSON string; UnmarshalBinary reads the binary form and the text. The
// forms are the text in both cases, MarshalText, JSON of the ID,
// MarshalBinary, Value as a driver hands it back and as a text column
// holds it (a string and a []byte, as drivers hand text), and rb's. Each
// reading must give the ID it was written from or an error, never another
// ID; a form a method refuses to write (an error) is skipped. It returns
// how many readings gave the ID, which a caller can check is not zero.
//
// UnmarshalText, UnmarshalJSON and UnmarshalBinary are not given the
// database forms: the method itself says which form it reads, as an int64
// source does for Scan, so 13 digits are a Ulid-Flake text to
// UnmarshalText even where they are also another ID's decimal.
func CheckReadBack[T Writable, N any, PT Readable[T], PN interface {
	*N
	Scan(src any) error
	UnmarshalJSON(b []byte) error
}](t *testing.T, ids []T, rb ReadBack[T, N]) (read int) {
	t.Helper()
	type reader struct {
		kinds []FormKind
		read  func(src any) (T, error)
	}
	all := []FormKind{TextForm, JSONForm, BinaryForm, SQLForm}
	readers := map[string]reader{
		"Scan": {all, func(src any) (id T, err error) { err = PT(&id).Scan(src); return id, err }},
		// The Null type reads as the ID type does: a value it reads as
		// NULL is read as no ID, which the check counts as another.
		"NullType.Scan": {all, func(src any) (T, error) {
			var n N
			err := PN(&n).Scan(src)
			return nullID(rb.NullFields, n), err
		}},
		"UnmarshalText": {[]FormKind{TextForm}, func(src any) (id T, err error) {
			err = PT(&id).UnmarshalText(src.([]byte))
			return id, err
		}},
		"UnmarshalJSON": {[]FormKind{JSONForm}, func(src any) (id T, err error) {
			err = PT(&id).UnmarshalJSON(src.([]byte))
			return id, err
		}},
		"NullType.UnmarshalJSON": {[]FormKind{JSONForm}, func(src any) (T, error) {
			var n N
			err := PN(&n).UnmarshalJSON(src.([]byte))
			return nullID(rb.NullFields, n), err
		}},
		"UnmarshalBinary": {[]FormKind{TextForm, BinaryForm}, func(src any) (id T, err error) {
			err = PT(&id).UnmarshalBinary(src.([]byte))
			return id, err
		}},
	}
	for _, id := range ids {
		for name, form := range writtenForms[T, N](id, rb) {
			values := []any{form.Value}
			if s, ok := form.Value.(string); ok {
				// A driver hands text as a string or as a []byte.
				values = append(values, []byte(s))
			}
			for _, v := range values {
				for readerName, r := range readers {
					kinds := r.kinds
					if readerName == "UnmarshalJSON" || readerName == "NullType.UnmarshalJSON" {
						if form.Kind == TextForm {
							// The text as a JSON string.
							b, _ := asBytes(v)
							v, kinds = strconv.AppendQuote(nil, string(b)), []FormKind{TextForm}
						}
					}
					if !slices.Contains(kinds, form.Kind) {
						continue
					}
					if readerName != "Scan" && readerName != "NullType.Scan" {
						b, err := asBytes(v)
						if err != nil {
							continue
						}
						v = b
					}
					got, err := r.read(v)
					switch {
					case err == nil && got != id:
						t.Errorf("%v written as %s (%T %q) reads back through %s as %v", id, name, v, v, readerName, got)
					case err == nil:
						read++
					}
				}
			}
		}
	}
	return read
}

// nullID is the ID a Null value holds, or the zero ID for NULL.
func nullID[T any, N any](fields func(N) (T, bool), n N) T {
	id, valid := fields(n)
	if !valid {
		var zero T
		return zero
	}
	return id
}

// writtenForms returns the forms of id that CheckReadBack reads back.
func writtenForms[T Writable, N any](id T, rb ReadBack[T, N]) map[string]Form {
	forms := map[string]Form{
		"String":        {TextForm, id.String()},
		"String, upper": {TextForm, string(bytes.ToUpper([]byte(id.String())))},
		"String, lower": {TextForm, string(bytes.ToLower([]byte(id.String())))},
	}
	if b, err := id.MarshalText(); err == nil {
		forms["MarshalText"] = Form{TextForm, b}
	}
	if b, err := json.Marshal(id); err == nil {
		forms["json.Marshal"] = Form{JSONForm, b}
	}
	if b, err := id.MarshalBinary(); err == nil {
		forms["MarshalBinary"] = Form{BinaryForm, b}
	}
	if v, err := id.Value(); err == nil {
		forms["Value"] = Form{SQLForm, v}
		// What a text column holds after Value: the text, or an
		// integer's decimal digits (SQLite's TEXT affinity; PostgreSQL's
		// text where pgx sends an int64 untyped).
		switch v := v.(type) {
		case int64:
			forms["Value in a text column"] = Form{SQLForm, strconv.FormatInt(v, 10)}
		case string:
			forms["Value in a text column"] = Form{SQLForm, v}
		}
	}
	if rb.Forms != nil {
		for name, f := range rb.Forms(id) {
			forms[name] = f
		}
	}
	return forms
}

// asBytes returns a text or binary source as bytes, for the readers that
// take only bytes; any other source type is an error.
func asBytes(src any) ([]byte, error) {
	switch src := src.(type) {
	case string:
		return []byte(src), nil
	case []byte:
		return src, nil
	}
	return nil, fmt.Errorf("idtest: a %T is not bytes", src)
}

// EpochOffsets returns n random offsets from an epoch, in milliseconds,
// from 0 to max: half within the first 3 hours (where a 64-bit ID's
// integer is small enough for its decimal digits to be as many as its
// text's), the rest spread over every order of magnitude up to max, with
// 0, 1 and max among them.
func EpochOffsets(r interface {
	Uint64N(n uint64) uint64
	IntN(n int) int
}, n int, max uint64) []uint64 {
	offsets := []uint64{0, 1, max}
	for len(offsets) < n {
		var o uint64
		if r.IntN(2) == 0 {
			o = r.Uint64N(3 * 3600 * 1000)
		} else {
			o = r.Uint64N(1 << r.IntN(64))
		}
		offsets = append(offsets, o%(max+1))
	}
	return offsets
}

// UUIDForms returns the forms of a 128-bit ID's 16 bytes: the bytes (a
// Binary's Value, a bytea column; the binary form), the hyphenated form a
// uuid column returns and the 32 hexadecimal digits the CLI's -hex
// prints, each in both cases.
func UUIDForms(b [16]byte) map[string]Form {
	h := hex.EncodeToString(b[:])
	hyphenated := h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
	return map[string]Form{
		"16 bytes":      {BinaryForm, b[:]},
		"UUID":          {SQLForm, hyphenated},
		"UUID, upper":   {SQLForm, string(bytes.ToUpper([]byte(hyphenated)))},
		"32 hex digits": {SQLForm, h},
		"32 hex, upper": {SQLForm, string(bytes.ToUpper([]byte(h)))},
	}
}
