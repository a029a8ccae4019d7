package ulidflake

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"testing"
	"time"

	"github.com/fastid/scru128/internal/idtest"
	"github.com/fastid/scru128/internal/naive"
)

var (
	sinkID  ID
	sinkStr string
)

func TestSpecExample(t *testing.T) {
	// The specification's example, with its integer form.
	id := MustParse("00CMXB6TAK4SA")
	if id.Int64() != 14246757444195114 {
		t.Fatalf("Int64 = %d", id.Int64())
	}
	if id.String() != "00CMXB6TAK4SA" || MustParse("00cmxb6tak4sa") != id {
		t.Fatal("text round trip")
	}
	if id.Timestamp() != 14246757444195114>>20 || id.Randomness() != 14246757444195114&(1<<20-1) {
		t.Fatal("fields")
	}
	if want := DefaultEpoch().Add(time.Duration(id.Timestamp()) * time.Millisecond); !id.Time().Equal(want) {
		t.Fatalf("Time = %v", id.Time())
	}
}

func TestBounds(t *testing.T) {
	if MustParse("7ZZZZZZZZZZZZ") != Max || Max.String() != "7ZZZZZZZZZZZZ" {
		t.Fatal("7ZZZZZZZZZZZZ is not Max")
	}
	for _, tc := range []struct {
		in     string
		err    error
		offset int
	}{
		{"8000000000000", ErrOutOfRange, -1},
		{"G000000000000", ErrOutOfRange, -1},
		{"ZZZZZZZZZZZZZ", ErrOutOfRange, -1},
		{"zzzzzzzzzzzzz", ErrOutOfRange, -1},
		{"", ErrInvalidLength, -1},
		{"00CMXB6TAK4S", ErrInvalidLength, -1},
		{"00CMXB6TAK4SAA", ErrInvalidLength, -1},
		{"00CMXB6TAK4SI", ErrInvalidCharacter, 12},
		{"L0CMXB6TAK4SA", ErrInvalidCharacter, 0},
		{"00CMXB6oAK4SA", ErrInvalidCharacter, 7},
		{"00CMXB6TuK4SA", ErrInvalidCharacter, 8},
		{"-0CMXB6TAK4SA", ErrInvalidCharacter, 0},
		{"U000000000000", ErrInvalidCharacter, 0},
	} {
		for _, parse := range []func(string) (ID, error){Parse, func(s string) (ID, error) { return ParseBytes([]byte(s)) }} {
			_, err := parse(tc.in)
			if !errors.Is(err, tc.err) {
				t.Errorf("%q: error %v, want %v", tc.in, err, tc.err)
			}
			var ice *InvalidCharacterError
			if errors.As(err, &ice) && (ice.Offset != tc.offset || ice.Char != tc.in[tc.offset]) {
				t.Errorf("%q: %v, want offset %d", tc.in, err, tc.offset)
			}
		}
	}
	if _, err := FromInt64(-1); !errors.Is(err, ErrOutOfRange) {
		t.Fatal("FromInt64(-1) accepted")
	}
	if _, err := ID(-1).AppendText(nil); !errors.Is(err, ErrOutOfRange) {
		t.Fatal("negative ID encoded")
	}
	if s := ID(-1).String(); s != "!OUTOFRANGE(-1)" {
		t.Fatalf("String of negative = %s", s)
	}
}

func TestFields(t *testing.T) {
	id, err := FromFields(MaxTimestamp, MaxRandomness)
	if err != nil || id != Max {
		t.Fatalf("FromFields max = %d, %v", id, err)
	}
	sc, err := FromScalableFields(12345, 0x7abc, 17)
	if err != nil || sc.Timestamp() != 12345 || sc.ScalableRandomness() != 0x7abc || sc.ScalabilityID() != 17 {
		t.Fatalf("scalable fields %d %x %d, %v", sc.Timestamp(), sc.ScalableRandomness(), sc.ScalabilityID(), err)
	}
	for _, f := range []func() (ID, error){
		func() (ID, error) { return FromFields(MaxTimestamp+1, 0) },
		func() (ID, error) { return FromFields(0, MaxRandomness+1) },
		func() (ID, error) { return FromScalableFields(MaxTimestamp+1, 0, 0) },
		func() (ID, error) { return FromScalableFields(0, MaxScalableRandomness+1, 0) },
		func() (ID, error) { return FromScalableFields(0, 0, 32) },
	} {
		if _, err := f(); !errors.Is(err, ErrOutOfRange) {
			t.Fatalf("out-of-range field: %v", err)
		}
	}
	epoch := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	if got := sc.TimeWithEpoch(epoch); !got.Equal(epoch.Add(12345 * time.Millisecond)) {
		t.Fatalf("TimeWithEpoch = %v", got)
	}
	if sc.Compare(sc) != 0 || sc.Compare(Max) != -1 || Max.Compare(sc) != 1 {
		t.Fatal("Compare")
	}
}

func TestEncodeAgainstNaive(t *testing.T) {
	for _, v := range []int64{0, 1, 31, 32, 1 << 20, 1<<62 + 12345, 1<<63 - 1, 14246757444195114} {
		var b [8]byte
		for i := range b {
			b[i] = byte(uint64(v) >> (56 - 8*i))
		}
		want := naive.Base32Encode(b[:], 13, naive.CrockfordAlphabet)
		if got := ID(v).String(); got != want {
			t.Fatalf("%d: %s, naive %s", v, got, want)
		}
		if back, err := Parse(want); err != nil || back != ID(v) {
			t.Fatalf("%s: %d, %v", want, back, err)
		}
	}
}

func TestJSONAndSQL(t *testing.T) {
	id := MustParse("00CMXB6TAK4SA")
	js, err := json.Marshal(struct{ ID ID }{id})
	if err != nil || string(js) != `{"ID":"00CMXB6TAK4SA"}` {
		t.Fatalf("JSON = %s, %v", js, err)
	}
	var v struct{ ID ID }
	if err := json.Unmarshal(js, &v); err != nil || v.ID != id {
		t.Fatalf("JSON back = %d, %v", v.ID, err)
	}
	if err := json.Unmarshal([]byte(`{"ID":"8000000000000"}`), &v); !errors.Is(err, ErrOutOfRange) {
		t.Fatalf("JSON overflow: %v", err)
	}
	if val, err := id.Value(); err != nil || val != int64(14246757444195114) {
		t.Fatalf("Value = %v, %v", val, err)
	}
	if _, err := ID(-5).Value(); !errors.Is(err, ErrOutOfRange) {
		t.Fatal("negative Value")
	}
	for _, src := range []any{int64(14246757444195114), "00CMXB6TAK4SA", []byte("00cmxb6tak4sa")} {
		var got ID
		if err := got.Scan(src); err != nil || got != id {
			t.Fatalf("Scan(%v) = %d, %v", src, got, err)
		}
	}
	var got ID
	for _, src := range []any{nil, int64(-1), "G000000000000", 3.5, []byte("short")} {
		if err := got.Scan(src); err == nil {
			t.Fatalf("Scan(%v) accepted", src)
		}
	}
	if text, _ := id.MarshalText(); string(text) != "00CMXB6TAK4SA" {
		t.Fatal("MarshalText")
	}
	if err := got.UnmarshalText([]byte("ZZZZZZZZZZZZZ")); err == nil {
		t.Fatal("UnmarshalText accepted overflow")
	}
}

func TestMustParsePanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("no panic")
		}
	}()
	MustParse("8000000000000")
}

// TestInterop runs the checks every format shares, with the 64-bit forms:
// integers, decimal text and 8 raw bytes.
func TestInterop(t *testing.T) {
	id := MustParse("00CMXB6TAK4SA") // 14246757444195114
	idtest.CheckInterop(t, idtest.Interop[ID, NullID]{
		Sample: id,
		Text:   id.String(),
		Accept: []any{int64(id), uint64(id), "14246757444195114", []byte("14246757444195114"), "00014246757444195114",
			[]byte{0, 0x32, 0x9d, 0x59, 0xb4, 0xa9, 0x93, 0x2a}},
		Reject: []idtest.Reject{
			{Src: "", Err: ErrInvalidLength, Offset: -1},
			{Src: []byte{}, Err: ErrInvalidLength, Offset: -1},
			{Src: "-14246757444195114", Err: ErrInvalidCharacter, Offset: 0},
			{Src: " 14246757444195114", Err: ErrInvalidCharacter, Offset: 0},
			{Src: []byte("1424675744419511x"), Err: ErrInvalidCharacter, Offset: 16},
			{Src: "9223372036854775808", Err: ErrOutOfRange, Offset: -1}, // 2^63
			{Src: "00CMXB6TAK4SI", Err: ErrInvalidCharacter, Offset: 12}, // 13 bytes: the text form
			{Src: "8ZZZZZZZZZZZZ", Err: ErrOutOfRange, Offset: -1},
			{Src: "3774874268538", Err: ErrAmbiguous, Offset: -1},    // text, and decimal text
			{Src: []byte("12345678"), Err: ErrAmbiguous, Offset: -1}, // binary, and decimal text
			{Src: []byte{0x80, 0, 0, 0, 0, 0, 0, 0}, Err: ErrOutOfRange, Offset: -1},
			{Src: int64(-1), Err: ErrOutOfRange, Offset: -1},
			{Src: uint64(1) << 63, Err: ErrOutOfRange, Offset: -1},
			{Src: 3.5, Err: ErrScanType, Offset: -1},
		},
		ScanNull:   ErrScanNull,
		ScanType:   ErrScanType,
		Length:     ErrInvalidLength,
		NewNull:    func(id ID, valid bool) NullID { return NullID{id, valid} },
		NullFields: func(n NullID) (ID, bool) { return n.ID, n.Valid },
	})
}

// TestDecimalTextRoundTrip is the symptom of an ID that did not
// round-trip through a TEXT column, where SQLite stores Value's int64 as
// decimal text.
func TestDecimalTextRoundTrip(t *testing.T) {
	for _, id := range []ID{0, 7, MustParse("00CMXB6TAK4SA"), Max} {
		v, _ := id.Value()
		stored := strconv.FormatInt(v.(int64), 10)
		var back ID
		if err := back.Scan(stored); err != nil || back != id {
			t.Errorf("Scan(%s) = %d, %v", stored, back, err)
		}
	}
}

// TestJSONAndBinaryForms covers the report that ulidflake rejected
// the JSON numbers scru64 accepts and had no binary methods.
func TestJSONAndBinaryForms(t *testing.T) {
	want := MustParse("00CMXB6TAK4SA")
	for _, in := range []string{`"00CMXB6TAK4SA"`, `"\u0030\u0030cmxb6tak4sa"`, `14246757444195114`} {
		var id ID
		if err := json.Unmarshal([]byte(in), &id); err != nil || id != want {
			t.Errorf("json.Unmarshal(%s) = %d, %v", in, id, err)
		}
	}
	for _, in := range []string{`-1`, `1.5`, `9223372036854775808`, `01`} {
		id := want
		if err := id.UnmarshalJSON([]byte(in)); err == nil || id != want {
			t.Errorf("UnmarshalJSON(%s) = %d, %v", in, id, err)
		}
	}
	if err := new(ID).UnmarshalJSON([]byte(`9223372036854775808`)); !errors.Is(err, ErrOutOfRange) {
		t.Errorf("2^63 in JSON: %v", err)
	}
	b, err := want.MarshalBinary()
	if err != nil || !bytes.Equal(b, []byte{0, 0x32, 0x9d, 0x59, 0xb4, 0xa9, 0x93, 0x2a}) {
		t.Fatalf("MarshalBinary = %x, %v", b, err)
	}
	if a, err := want.AppendBinary([]byte{9}); err != nil || !bytes.Equal(a[1:], b) || a[0] != 9 {
		t.Fatalf("AppendBinary = %x, %v", a, err)
	}
	var back ID
	if err := back.UnmarshalBinary(b); err != nil || back != want {
		t.Fatalf("UnmarshalBinary = %d, %v", back, err)
	}
	if err := back.UnmarshalBinary([]byte("00cmxb6tak4sa")); err != nil || back != want {
		t.Fatalf("UnmarshalBinary(text) = %d, %v", back, err)
	}
	if err := back.UnmarshalBinary(b[1:]); !errors.Is(err, ErrInvalidLength) {
		t.Fatalf("UnmarshalBinary(7 bytes) = %v", err)
	}
	for name, fn := range map[string]func() error{
		"AppendBinary":  func() error { _, err := ID(-1).AppendBinary(nil); return err },
		"MarshalBinary": func() error { _, err := ID(-1).MarshalBinary(); return err },
		"MarshalText":   func() error { _, err := ID(-1).MarshalText(); return err },
		"json.Marshal":  func() error { _, err := json.Marshal(ID(-1)); return err },
		"NullID JSON":   func() error { _, err := json.Marshal(NullID{-1, true}); return err },
		"Value":         func() error { _, err := ID(-1).Value(); return err },
	} {
		if err := fn(); !errors.Is(err, ErrOutOfRange) {
			t.Errorf("%s of a negative ID: %v", name, err)
		}
	}
	if _, err := Parse(ID(-1).String()); err == nil {
		t.Error("the text of a negative ID parses")
	}
}

func TestRangeHelpers(t *testing.T) {
	lo, err := MinAt(1000)
	hi, err2 := MaxAt(1000)
	if err != nil || err2 != nil || lo.Timestamp() != 1000 || hi.Timestamp() != 1000 || lo.Randomness() != 0 || hi.Randomness() != MaxRandomness {
		t.Fatalf("MinAt/MaxAt = %d %d, %v %v", lo, hi, err, err2)
	}
	sc, _ := FromScalableFields(1000, MaxScalableRandomness, MaxScalabilityID)
	if sc < lo || sc > hi {
		t.Fatal("a scalable ID falls outside its millisecond's range")
	}
	at := DefaultEpoch().Add(1000*time.Millisecond + 300*time.Microsecond)
	if a, _ := MinAtTime(at); a != lo {
		t.Fatalf("MinAtTime = %d", a)
	}
	if b, _ := MaxAtTime(at); b != hi {
		t.Fatalf("MaxAtTime = %d", b)
	}
	if m, err := MaxAtTime(DefaultEpoch().Add(MaxTimestamp * time.Millisecond)); err != nil || m != Max {
		t.Fatalf("MaxAtTime(last millisecond) = %d, %v", m, err)
	}
	if _, err := MinAt(MaxTimestamp + 1); !errors.Is(err, ErrOutOfRange) {
		t.Fatal(err)
	}
	for _, tm := range []time.Time{DefaultEpoch().Add(-time.Millisecond), DefaultEpoch().Add((MaxTimestamp + 1) * time.Millisecond),
		time.Unix(1<<62, 0), time.Unix(math.MaxInt64/1000+1, 0), time.Unix(-1<<62, 0), {}} {
		for name, fn := range map[string]func(time.Time) (ID, error){"MinAtTime": MinAtTime, "MaxAtTime": MaxAtTime, "NewAt": NewAt} {
			if id, err := fn(tm); !errors.Is(err, ErrOutOfRange) || id != 0 {
				t.Errorf("%s(%v) = %d, %v; want ErrOutOfRange", name, tm, id, err)
			}
		}
	}
}

func TestNewAt(t *testing.T) {
	at := DefaultEpoch().Add(123456 * time.Millisecond)
	var or, and uint32 = 0, MaxRandomness
	for range 200 {
		id, err := NewAt(at)
		if err != nil || id.Timestamp() != 123456 {
			t.Fatalf("NewAt = %d, %v", id, err)
		}
		or, and = or|id.Randomness(), and&id.Randomness()
	}
	if or != MaxRandomness || and != 0 {
		t.Fatalf("random part does not vary: or %x, and %x", or, and)
	}
}
