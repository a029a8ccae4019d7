package scru128

import (
	"bytes"
	"database/sql"
	"database/sql/driver"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/fastid/scru128/internal/idtest"
)

var (
	_ sql.Scanner   = (*Binary)(nil)
	_ driver.Valuer = Binary{}
	_ sql.Scanner   = (*NullBinary)(nil)
	_ driver.Valuer = NullBinary{}
)

// The ID of the report: what PostgreSQL returned for a uuid column.
const (
	uuidText = "01a20ae5-cd8b-ec48-3da7-86bbd79a5a50"
	uuidHex  = "01a20ae5cd8bec483da786bbd79a5a50"
)

var uuidID = ID{0x01, 0xa2, 0x0a, 0xe5, 0xcd, 0x8b, 0xec, 0x48, 0x3d, 0xa7, 0x86, 0xbb, 0xd7, 0x9a, 0x5a, 0x50}

// TestScanUUIDForms is the first symptom: a uuid column hands Scan
// the hyphenated form, which it rejected with "invalid length".
func TestScanUUIDForms(t *testing.T) {
	for _, s := range []string{uuidText, strings.ToUpper(uuidText), uuidHex, strings.ToUpper(uuidHex), uuidID.String()} {
		for _, src := range []any{s, []byte(s)} {
			var id ID
			if err := id.Scan(src); err != nil || id != uuidID {
				t.Errorf("Scan(%T %s) = %x, %v", src, s, id, err)
			}
			var n NullID
			if err := n.Scan(src); err != nil || !n.Valid || n.ID != uuidID {
				t.Errorf("NullID.Scan(%T %s) = %+v, %v", src, s, n, err)
			}
		}
	}
	if uuidID.UUID() != [16]byte(uuidID) || FromUUID(uuidID.UUID()) != uuidID {
		t.Fatal("UUID and FromUUID do not round-trip")
	}
}

// TestBinary is the second symptom: IDs and range bounds bound to
// a binary column must be their 16 bytes, which Binary gives.
func TestBinary(t *testing.T) {
	v, err := Binary(uuidID).Value()
	if b, ok := v.([]byte); err != nil || !ok || !bytes.Equal(b, uuidID[:]) {
		t.Fatalf("Binary.Value = %#v, %v", v, err)
	}
	var b Binary
	if err := b.Scan(uuidText); err != nil || ID(b) != uuidID {
		t.Fatalf("Binary.Scan = %x, %v", b, err)
	}
	if err := (*Binary)(&b).Scan(nil); !errors.Is(err, ErrScanNull) {
		t.Fatalf("Binary.Scan(nil) = %v", err)
	}
	lo, _ := MinAt(uuidID.Timestamp())
	hi, _ := MaxAt(uuidID.Timestamp())
	vlo, _ := Binary(lo).Value()
	vhi, _ := Binary(hi).Value()
	if bytes.Compare(vlo.([]byte), uuidID[:]) > 0 || bytes.Compare(uuidID[:], vhi.([]byte)) > 0 {
		t.Fatal("binary range bounds do not enclose an ID of their millisecond")
	}

	n := NullID{ID: uuidID, Valid: true}
	if v, err := NullBinary(n).Value(); err != nil || !bytes.Equal(v.([]byte), uuidID[:]) {
		t.Fatalf("NullBinary.Value = %#v, %v", v, err)
	}
	if v, err := (NullBinary{ID: uuidID}).Value(); err != nil || v != nil {
		t.Fatalf("invalid NullBinary.Value = %#v, %v", v, err)
	}
	var nb NullBinary
	if err := nb.Scan(uuidID[:]); err != nil || !nb.Valid || nb.ID != uuidID {
		t.Fatalf("NullBinary.Scan(bytes) = %+v, %v", nb, err)
	}
	if err := (*NullBinary)(&n).Scan(nil); err != nil || n.Valid || !n.ID.IsZero() {
		t.Fatalf("NullBinary.Scan(nil) = %+v, %v", n, err)
	}
}

// TestNullJSON covers the JSON symptoms for NullID: escapes, "",
// and null.
func TestNullJSON(t *testing.T) {
	const text = "0372hg16csmsm50l8dikcvukc"
	want := MustParse(text)
	escaped := `"\u0030372hg16csmsm50l8dikcvuk\u0063"`
	for _, in := range []string{`"` + text + `"`, escaped, `"0372HG16CSMSM50L8DIKCVUKC"`} {
		var n NullID
		if err := json.Unmarshal([]byte(in), &n); err != nil || !n.Valid || n.ID != want {
			t.Errorf("NullID from %s = %+v, %v", in, n, err)
		}
		var id ID
		if err := json.Unmarshal([]byte(in), &id); err != nil || id != want {
			t.Errorf("ID from %s = %s, %v", in, id, err)
		}
	}
	for _, in := range []string{`null`, `""`} {
		n := NullID{ID: want, Valid: true}
		if err := json.Unmarshal([]byte(in), &n); err != nil || n.Valid || !n.ID.IsZero() {
			t.Errorf("NullID from %s = %+v, %v", in, n, err)
		}
	}
	for _, in := range []string{`7`, `true`, `{}`, `"0372hg16csmsm50l8dikcvuk_"`, `"\u0030"`} {
		n := NullID{ID: want, Valid: true}
		if err := json.Unmarshal([]byte(in), &n); err == nil || !n.Valid || n.ID != want {
			t.Errorf("NullID from %s accepted or changed: %+v, %v", in, n, err)
		}
	}
	var id ID
	if err := json.Unmarshal([]byte(`""`), &id); !errors.Is(err, ErrInvalidLength) {
		t.Errorf(`ID from "": %v, want ErrInvalidLength`, err)
	}
	id = want
	if err := json.Unmarshal([]byte(`null`), &id); err != nil || id != want {
		t.Errorf("ID from null = %s, %v; want unchanged", id, err)
	}
	if err := id.UnmarshalJSON([]byte(`12`)); err == nil || !strings.Contains(err.Error(), "must be a string") {
		t.Errorf("ID from a number: %v", err)
	}
}

// TestInterop runs the checks every format shares.
func TestInterop(t *testing.T) {
	idtest.CheckInterop(t, idtest.Interop[ID, NullID]{
		Sample: uuidID,
		Text:   uuidID.String(),
		Accept: []any{uuidText, []byte(uuidText), strings.ToUpper(uuidText), uuidHex, []byte(strings.ToUpper(uuidHex)), uuidID[:]},
		Reject: append(idtest.UUIDRejects(ErrInvalidLength, ErrInvalidCharacter),
			idtest.Reject{Src: "0372hg16csmsm50l8dikcvuk-", Err: ErrInvalidCharacter, Offset: 24},
			idtest.Reject{Src: []byte("f5lxx1zz5pnorynqglhzmsp34"), Err: ErrOutOfRange, Offset: -1},
			idtest.Reject{Src: int64(1), Err: ErrScanType, Offset: -1}),
		ScanNull:   ErrScanNull,
		ScanType:   ErrScanType,
		Length:     ErrInvalidLength,
		NewNull:    func(id ID, valid bool) NullID { return NullID{id, valid} },
		NullFields: func(n NullID) (ID, bool) { return n.ID, n.Valid },
	})
}
