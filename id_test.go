package scru128

import (
	"database/sql"
	"database/sql/driver"
	"encoding/json"
	"errors"
	"testing"
	"time"
)

var (
	_ sql.Scanner    = (*ID)(nil)
	_ driver.Valuer  = ID{}
	_ sql.Scanner    = (*NullID)(nil)
	_ driver.Valuer  = NullID{}
	_ json.Marshaler = NullID{}
)

func TestFromFieldsRange(t *testing.T) {
	for _, tc := range []struct {
		ts     uint64
		hi, lo uint32
	}{
		{MaxTimestamp + 1, 0, 0}, {0, MaxCounter + 1, 0}, {0, 0, MaxCounter + 1},
	} {
		if _, err := FromFields(tc.ts, tc.hi, tc.lo, 0); !errors.Is(err, ErrOutOfRange) {
			t.Errorf("FromFields(%d, %d, %d) error = %v", tc.ts, tc.hi, tc.lo, err)
		}
	}
	id, err := FromFields(MaxTimestamp, MaxCounter, MaxCounter, 1<<32-1)
	if err != nil || id != Max {
		t.Fatalf("all-max fields = %x, %v", id, err)
	}
}

func TestAccessorsAndTime(t *testing.T) {
	id := MustParse("0372hg16csmsm50l8dikcvukc") // 017fee7fef41 7e2b34 32ac2e c553687c
	if id.Timestamp() != 0x017fee7fef41 || id.CounterHi() != 0x7e2b34 ||
		id.CounterLo() != 0x32ac2e || id.Entropy() != 0xc553687c {
		t.Fatalf("fields %x %x %x %x", id.Timestamp(), id.CounterHi(), id.CounterLo(), id.Entropy())
	}
	want := time.UnixMilli(0x017fee7fef41).UTC()
	if got := id.Time(); !got.Equal(want) || got.Location() != time.UTC {
		t.Fatalf("Time = %v, want %v", got, want)
	}
}

func TestCompareAndIsZero(t *testing.T) {
	a := MustParse("0372hg16csmsm50l8dikcvukc")
	b := MustParse("0372hg16cy3nowracls909wcd")
	if a.Compare(b) != -1 || b.Compare(a) != 1 || a.Compare(a) != 0 {
		t.Fatal("Compare wrong")
	}
	lowDiffers := FromUint64s(5, 1)
	if lowDiffers.Compare(FromUint64s(5, 2)) != -1 || FromUint64s(5, 2).Compare(lowDiffers) != 1 {
		t.Fatal("Compare ignores the low half")
	}
	if !(ID{}).IsZero() || a.IsZero() {
		t.Fatal("IsZero wrong")
	}
}

func TestRangeHelpers(t *testing.T) {
	const ts = 1_700_000_000_123
	lo, err := MinAt(ts)
	if err != nil {
		t.Fatal(err)
	}
	hi, _ := MaxAt(ts)
	if lo.Timestamp() != ts || hi.Timestamp() != ts || lo.CounterHi() != 0 || hi.Entropy() != 1<<32-1 {
		t.Fatalf("MinAt/MaxAt fields wrong: %x %x", lo, hi)
	}
	prevMax, _ := MaxAt(ts - 1)
	nextMin, _ := MinAt(ts + 1)
	if prevMax.Compare(lo) >= 0 || hi.Compare(nextMin) >= 0 {
		t.Fatal("ranges of adjacent timestamps overlap")
	}
	g := NewGeneratorWithRng(&counterReader{})
	id, _ := g.GenerateOrAbortCore(ts, 0)
	if id.Compare(lo) < 0 || id.Compare(hi) > 0 {
		t.Fatal("a generated ID falls outside its timestamp's range")
	}
	tlo, _ := MinAtTime(time.UnixMilli(ts).Add(999 * time.Microsecond))
	thi, _ := MaxAtTime(time.UnixMilli(ts))
	if tlo != lo || thi != hi {
		t.Fatal("MinAtTime/MaxAtTime differ from MinAt/MaxAt")
	}
	if _, err := MinAt(MaxTimestamp + 1); !errors.Is(err, ErrOutOfRange) {
		t.Fatal("MinAt accepted a timestamp above the maximum")
	}
	if _, err := MaxAtTime(time.Unix(-1, 0)); !errors.Is(err, ErrOutOfRange) {
		t.Fatal("MaxAtTime accepted a time before 1970")
	}
}

func TestBinaryRoundTrip(t *testing.T) {
	id := MustParse("0372ijojuxuhjsfkeryi2mrtm")
	b, _ := id.MarshalBinary()
	if len(b) != 16 || ID(b) != id {
		t.Fatalf("MarshalBinary = %x", b)
	}
	out, _ := id.AppendBinary([]byte{1})
	if len(out) != 17 || ID(out[1:]) != id {
		t.Fatalf("AppendBinary = %x", out)
	}
	var back ID
	if err := back.UnmarshalBinary(b); err != nil || back != id {
		t.Fatalf("UnmarshalBinary(16) = %x, %v", back, err)
	}
	back = ID{}
	if err := back.UnmarshalBinary([]byte(id.String())); err != nil || back != id {
		t.Fatalf("UnmarshalBinary(25) = %x, %v", back, err)
	}
	for _, n := range []int{0, 15, 17, 24, 26} {
		if err := back.UnmarshalBinary(make([]byte, n)); !errors.Is(err, ErrInvalidLength) {
			t.Errorf("UnmarshalBinary(%d bytes) error = %v", n, err)
		}
	}
	if err := back.UnmarshalBinary([]byte("0372ijojuxuhjsfkeryi2mrt!")); !errors.Is(err, ErrInvalidCharacter) || back != id {
		t.Fatalf("UnmarshalBinary(bad text) = %v and changed id", err)
	}
}

func TestJSON(t *testing.T) {
	type row struct {
		ID   ID     `json:"id"`
		Null NullID `json:"null"`
		Set  NullID `json:"set"`
	}
	id := MustParse("0372hg16csmsm50l8dikcvukc")
	in := row{ID: id, Set: NullID{ID: id, Valid: true}}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"id":"0372hg16csmsm50l8dikcvukc","null":null,"set":"0372hg16csmsm50l8dikcvukc"}`
	if string(b) != want {
		t.Fatalf("json = %s", b)
	}
	var out row
	if err := json.Unmarshal([]byte(`{"id":"0372HG16CSMSM50L8DIKCVUKC","null":null,"set":"0372hg16csmsm50l8dikcvukc"}`), &out); err != nil {
		t.Fatal(err)
	}
	if out != in {
		t.Fatalf("round trip = %+v", out)
	}
	for _, bad := range []string{`{"id":"short"}`, `{"id":7}`, `{"set":7}`, `{"set":"0372hg16csmsm50l8dikcvuk_"}`} {
		if err := json.Unmarshal([]byte(bad), &out); err == nil {
			t.Errorf("json %s accepted", bad)
		}
	}
}

func TestSQL(t *testing.T) {
	id := MustParse("0372hg16csmsm50l8dikcvukc")
	v, err := id.Value()
	if err != nil || v != "0372hg16csmsm50l8dikcvukc" {
		t.Fatalf("Value = %v, %v", v, err)
	}
	for _, src := range []any{"0372hg16csmsm50l8dikcvukc", []byte("0372HG16CSMSM50L8DIKCVUKC"), id[:]} {
		var got ID
		if err := got.Scan(src); err != nil || got != id {
			t.Errorf("Scan(%T %v) = %s, %v", src, src, got, err)
		}
	}
	for _, src := range []any{nil, 42, "short", []byte{1, 2, 3}, "0372hg16csmsm50l8dikcvuk-"} {
		var got ID
		if err := got.Scan(src); err == nil {
			t.Errorf("Scan(%T %v) accepted", src, src)
		}
	}
	raw := append([]byte(nil), id[:]...)
	var got ID
	got.Scan(raw)
	raw[0] = 0xee
	if got != id {
		t.Fatal("Scan retained its source")
	}

	var n NullID
	if err := n.Scan(nil); err != nil || n.Valid {
		t.Fatalf("NullID.Scan(nil) = %+v, %v", n, err)
	}
	if v, _ := n.Value(); v != nil {
		t.Fatalf("invalid NullID Value = %v", v)
	}
	if err := n.Scan(id.String()); err != nil || !n.Valid || n.ID != id {
		t.Fatalf("NullID.Scan(text) = %+v, %v", n, err)
	}
	if v, _ := n.Value(); v != id.String() {
		t.Fatalf("valid NullID Value = %v", v)
	}
	if err := n.Scan(12); err == nil {
		t.Fatal("NullID.Scan(int) accepted")
	}
}
