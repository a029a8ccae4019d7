package idtest

import (
	"bytes"
	"database/sql/driver"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// Interop describes one format's ID type T and its Null type N for
// [CheckInterop]: which Scan sources must give Sample, which must fail and
// how, and how to build and read an N.
type Interop[T comparable, N comparable] struct {
	Sample T      // an ID
	Text   string // Sample's text form, as MarshalText writes it
	// Accept lists Scan sources that must give Sample, besides Text as a
	// string and as []byte, which are always tried.
	Accept []any
	// Reject lists Scan sources that must fail, leaving the ID unchanged.
	Reject []Reject
	// ScanNull and ScanType are the format's sentinels.
	ScanNull, ScanType error
	// Length is the format's ErrInvalidLength, which "" into T must give.
	Length error
	// NewNull builds an N; NullFields reads one.
	NewNull    func(id T, valid bool) N
	NullFields func(n N) (T, bool)
}

// Reject is a Scan source and the sentinel its error must match; Offset is
// the offset the error text must name (for a bad byte), or -1.
type Reject struct {
	Src    any
	Err    error
	Offset int
}

// nullType is what [CheckInterop] needs of a format's Null type.
type nullType interface {
	comparable
	driver.Valuer
	json.Marshaler
}

// scanner is a pointer to an ID or Null type, which reads itself from SQL
// and JSON.
type scanner[T any] interface {
	*T
	Scan(src any) error
	UnmarshalJSON(data []byte) error
}

// CheckInterop checks the database/sql and JSON behaviour every format
// shares: what Scan accepts and rejects (and that it leaves the ID alone on
// error and keeps no reference to a []byte), NULL into T and N, the Null
// type's Value, JSON of both types (escapes decoded as encoding/json
// does, null and "" into N, "" into T) and omitzero.
func CheckInterop[T comparable, N nullType, PT scanner[T], PN scanner[N]](t *testing.T, c Interop[T, N]) {
	t.Helper()
	var zero T
	sources := append([]any{c.Text, []byte(c.Text), strings.ToLower(c.Text), []byte(strings.ToUpper(c.Text))}, c.Accept...)
	for _, src := range sources {
		var id T
		if err := PT(&id).Scan(src); err != nil || id != c.Sample {
			t.Errorf("Scan(%T %q) = %v, %v; want %v", src, src, id, err, c.Sample)
		}
		var n N
		if err := PN(&n).Scan(src); err != nil {
			t.Errorf("Null Scan(%T %q): %v", src, src, err)
		} else if got, valid := c.NullFields(n); got != c.Sample || !valid {
			t.Errorf("Null Scan(%T %q) = %v, %v", src, src, got, valid)
		}
		if b, ok := src.([]byte); ok && len(b) > 0 {
			b = bytes.Clone(b)
			id = zero
			_ = PT(&id).Scan(b)
			b[0] ^= 0xff
			if id != c.Sample {
				t.Errorf("Scan kept a reference to its []byte source %q", b)
			}
		}
	}
	for _, r := range c.Reject {
		id := c.Sample
		err := PT(&id).Scan(r.Src)
		if !errors.Is(err, r.Err) || id != c.Sample {
			t.Errorf("Scan(%T %q) = %v (ID now %v), want %v and no change", r.Src, r.Src, err, id, r.Err)
			continue
		}
		if r.Offset >= 0 && !strings.HasSuffix(err.Error(), fmt.Sprintf("at offset %d", r.Offset)) {
			t.Errorf("Scan(%q): %q, want offset %d", r.Src, err, r.Offset)
		}
		n := c.NewNull(c.Sample, true)
		if err := PN(&n).Scan(r.Src); !errors.Is(err, r.Err) || n != c.NewNull(c.Sample, true) {
			t.Errorf("Null Scan(%T %q) = %v, want %v and no change", r.Src, r.Src, err, r.Err)
		}
	}

	// NULL.
	id := c.Sample
	if err := PT(&id).Scan(nil); !errors.Is(err, c.ScanNull) || id != c.Sample {
		t.Errorf("Scan(nil) = %v, want the ScanNull sentinel", err)
	}
	n := c.NewNull(c.Sample, true)
	if err := PN(&n).Scan(nil); err != nil || n != c.NewNull(zero, false) {
		t.Errorf("Null Scan(nil) = %v, %v", n, err)
	}
	if err := PT(&id).Scan(struct{}{}); !errors.Is(err, c.ScanType) || !strings.HasSuffix(err.Error(), " struct {}") {
		t.Errorf("Scan(struct{}{}) = %v, want the ScanType sentinel naming the type", err)
	}
	if v, err := c.NewNull(c.Sample, false).Value(); v != nil || err != nil {
		t.Errorf("invalid Null Value = %v, %v", v, err)
	}
	wantValue, _ := any(c.Sample).(driver.Valuer).Value()
	if v, err := c.NewNull(c.Sample, true).Value(); v != wantValue || err != nil {
		t.Errorf("valid Null Value = %v, %v; want %v", v, err, wantValue)
	}

	checkJSON[T, N, PT, PN](t, c)
}

func checkJSON[T comparable, N nullType, PT scanner[T], PN scanner[N]](t *testing.T, c Interop[T, N]) {
	t.Helper()
	var zero T
	quoted := `"` + c.Text + `"`
	if b, err := json.Marshal(c.Sample); err != nil || string(b) != quoted {
		t.Errorf("json.Marshal(ID) = %s, %v; want %s", b, err, quoted)
	}
	if b, err := json.Marshal(c.NewNull(c.Sample, true)); err != nil || string(b) != quoted {
		t.Errorf("json.Marshal(valid Null) = %s, %v", b, err)
	}
	if b, err := json.Marshal(c.NewNull(c.Sample, false)); err != nil || string(b) != "null" {
		t.Errorf("json.Marshal(invalid Null) = %s, %v", b, err)
	}
	// The same text with escapes: the first character as \u00XX, a
	// middle one as \u00XX too.
	escaped := fmt.Sprintf(`"\u%04x%s\u%04x%s"`, c.Text[0], c.Text[1:5], c.Text[5], c.Text[6:])
	for _, in := range []string{quoted, escaped, strings.ToLower(quoted)} {
		var id T
		if err := json.Unmarshal([]byte(in), &id); err != nil || id != c.Sample {
			t.Errorf("json.Unmarshal(%s) into ID = %v, %v", in, id, err)
		}
		var n N
		if err := json.Unmarshal([]byte(in), &n); err != nil {
			t.Errorf("json.Unmarshal(%s) into Null: %v", in, err)
		} else if got, valid := c.NullFields(n); got != c.Sample || !valid {
			t.Errorf("json.Unmarshal(%s) into Null = %v, %v", in, got, valid)
		}
	}
	for _, in := range []string{`null`, `""`} {
		n := c.NewNull(c.Sample, true)
		if err := json.Unmarshal([]byte(in), &n); err != nil || n != c.NewNull(zero, false) {
			t.Errorf("json.Unmarshal(%s) into Null = %v, %v; want not valid", in, n, err)
		}
	}
	id := c.Sample
	if err := json.Unmarshal([]byte(`null`), &id); err != nil || id != c.Sample {
		t.Errorf("json.Unmarshal(null) into ID = %v, %v; want no change", id, err)
	}
	if err := json.Unmarshal([]byte(`""`), &id); !errors.Is(err, c.Length) || id != c.Sample {
		t.Errorf(`json.Unmarshal("") into ID = %v, %v; want the length error`, id, err)
	}
	for _, in := range []string{`true`, `{}`, `[]`, `"` + c.Text[1:] + `"`, `"` + c.Text + `x"`} {
		id := c.Sample
		if err := PT(&id).UnmarshalJSON([]byte(in)); err == nil || id != c.Sample {
			t.Errorf("UnmarshalJSON(%s) into ID = %v, %v; want an error and no change", in, id, err)
		}
		n := c.NewNull(c.Sample, true)
		if err := PN(&n).UnmarshalJSON([]byte(in)); err == nil || n != c.NewNull(c.Sample, true) {
			t.Errorf("UnmarshalJSON(%s) into Null = %v, %v; want an error and no change", in, n, err)
		}
	}

	// omitzero leaves out the zero ID and the zero Null value.
	type row struct {
		ID   T `json:"id,omitzero"`
		Null N `json:"null,omitzero"`
	}
	if b, err := json.Marshal(row{}); err != nil || string(b) != `{}` {
		t.Errorf("omitzero of zero values = %s, %v; want {}", b, err)
	}
	if b, err := json.Marshal(row{ID: c.Sample, Null: c.NewNull(c.Sample, true)}); err != nil ||
		string(b) != `{"id":`+quoted+`,"null":`+quoted+`}` {
		t.Errorf("omitzero of set values = %s, %v", b, err)
	}
	if reflect.TypeFor[T]().Kind() == reflect.Array {
		// omitempty never leaves out an array.
		type emptyRow struct {
			ID T `json:"id,omitempty"`
		}
		if b, _ := json.Marshal(emptyRow{}); string(b) == `{}` {
			t.Errorf("omitempty left out a zero array ID")
		}
	}
}

// UUIDRejects returns the Scan sources of a UUID form's length, or near
// it, that every 128-bit format must reject, with the errors it must give:
// the format's invalid length and invalid character sentinels.
func UUIDRejects(length, char error) []Reject {
	return []Reject{
		{"{1a20ae5-cd8b-ec48-3da7-86bbd79a5a5}", char, 0},
		{"01a20ae5-cd8b-ec48-3da7-86bbd79a5a5g", char, 35},
		{"01a20ae5cd8b-ec48-3da7-86bbd79a5a50-", char, 8},
		{"01a20ae5-cd8b-ec48-3da7-86bbd79a5a5\xff", char, 35},
		{" 1a20ae5-cd8b-ec48-3da7-86bbd79a5a50", char, 0},
		{[]byte("01a20ae5-cd8b-ec48-3da7_86bbd79a5a50"), char, 23},
		{"01a20ae5cd8bec483da786bbd79a5a5-", char, 31},
		{[]byte("0x1a20ae5cd8bec483da786bbd79a5a5"), char, 1},
		{"urn:uuid:01a20ae5-cd8b-ec48-3da7-86bbd79a5a50", length, -1},
		{"01a20ae5-cd8b-ec48-3da7-86bbd79a5a5", length, -1},
		{"01a20ae5cd8bec483da786bbd79a5a500", length, -1},
		{"0123456789abcdef", length, -1}, // 16 bytes as a string are not the binary form
		{"", length, -1},
		{[]byte{}, length, -1},
		{[]byte{1, 2, 3}, length, -1},
	}
}
