package ulidflake

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

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
		{"8000000000000", ErrOverflow, -1},
		{"G000000000000", ErrOverflow, -1},
		{"ZZZZZZZZZZZZZ", ErrOverflow, -1},
		{"zzzzzzzzzzzzz", ErrOverflow, -1},
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
	if _, err := FromInt64(-1); !errors.Is(err, ErrOverflow) {
		t.Fatal("FromInt64(-1) accepted")
	}
	if _, err := ID(-1).AppendText(nil); !errors.Is(err, ErrOverflow) {
		t.Fatal("negative ID encoded")
	}
	if s := ID(-1).String(); s != "!OVERFLOW(-1)" {
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
		if _, err := f(); err == nil {
			t.Fatal("out-of-range field accepted")
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
	if err := json.Unmarshal([]byte(`{"ID":"8000000000000"}`), &v); !errors.Is(err, ErrOverflow) {
		t.Fatalf("JSON overflow: %v", err)
	}
	if val, err := id.Value(); err != nil || val != int64(14246757444195114) {
		t.Fatalf("Value = %v, %v", val, err)
	}
	if _, err := ID(-5).Value(); !errors.Is(err, ErrOverflow) {
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
