package legacy

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/fastid/scru128/internal/naive"
)

var (
	sinkID  ID
	sinkStr string
)

func TestDocumentExamples(t *testing.T) {
	for _, s := range []string{"00PGHAJ3Q9VAJ7IU6PQBHBUAK4", "00PGHAJ3Q9VAJ7KU6PQ92NVBTV"} {
		id, err := Parse(s)
		if err != nil || id.String() != s {
			t.Fatalf("%s: %s, %v", s, id, err)
		}
		if lower, _ := Parse(strings.ToLower(s)); lower != id {
			t.Fatal("lower case parses differently")
		}
		if n, _, err := naive.Base32Decode([]byte(s), naive.LegacyAlphabet, 26, 128); err != nil || n.Uint64() != uint64(id.PerGenRandom())|uint64(id.PerSecRandom())<<32|uint64(id.Counter()&0xff)<<56 {
			t.Fatalf("%s disagrees with math/big: %v", s, err)
		}
		// The examples were minted in 2021, the year the document was
		// written.
		if y := id.Time().Year(); y != 2021 {
			t.Fatalf("%s: year %d", s, y)
		}
	}
}

func TestFieldsRoundTrip(t *testing.T) {
	for _, f := range []struct {
		ts              uint64
		counter, ps, pg uint32
	}{
		{0, 0, 0, 0}, {MaxTimestamp, MaxCounter, MaxPerSecRandom, 1<<32 - 1}, {12345678, 0xabcdef1, 0x123456, 0xdeadbeef},
	} {
		id, err := FromFields(f.ts, f.counter, f.ps, f.pg)
		if err != nil || id != ID(naive.LegacyFromFields(f.ts, f.counter, f.ps, f.pg)) {
			t.Fatalf("%v: %x, %v", f, id, err)
		}
		if id.Timestamp() != f.ts || id.Counter() != f.counter || id.PerSecRandom() != f.ps || id.PerGenRandom() != f.pg {
			t.Fatalf("%v: fields %d %d %d %d", f, id.Timestamp(), id.Counter(), id.PerSecRandom(), id.PerGenRandom())
		}
		if want := naive.Base32Encode(id[:], 26, naive.LegacyAlphabet); id.String() != want {
			t.Fatalf("%v: %s, naive %s", f, id, want)
		}
	}
	if max, _ := FromFields(MaxTimestamp, MaxCounter, MaxPerSecRandom, 1<<32-1); max.String() != "7VVVVVVVVVVVVVVVVVVVVVVVVV" {
		t.Fatalf("max = %s", max)
	}
	for _, f := range []func() (ID, error){
		func() (ID, error) { return FromFields(MaxTimestamp+1, 0, 0, 0) },
		func() (ID, error) { return FromFields(0, MaxCounter+1, 0, 0) },
		func() (ID, error) { return FromFields(0, 0, MaxPerSecRandom+1, 0) },
	} {
		if _, err := f(); err == nil {
			t.Fatal("out-of-range field accepted")
		}
	}
	if !(ID{}).Time().Equal(time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)) {
		t.Fatal("timestamp 0 is not 2020-01-01")
	}
}

func TestParseRejects(t *testing.T) {
	for _, tc := range []struct {
		in     string
		err    error
		offset int
	}{
		{"", ErrInvalidLength, -1},
		{"7VVVVVVVVVVVVVVVVVVVVVVVV", ErrInvalidLength, -1},
		{"80000000000000000000000000", ErrOverflow, -1},
		{"VVVVVVVVVVVVVVVVVVVVVVVVVV", ErrOverflow, -1},
		{"7VVVVVVVVVVVVVVVVVVVVVVVVW", ErrInvalidCharacter, 25},
		{"00PGHAJ3Q9VAJ7IU6PQBHBUAKz", ErrInvalidCharacter, 25},
		{"0xPGHAJ3Q9VAJ7IU6PQBHBUAK4", ErrInvalidCharacter, 1},
		{"00PGHAJ3Q9VAJ7IU6PQBHBUA-4", ErrInvalidCharacter, 24},
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
}

func TestMarshalling(t *testing.T) {
	id := MustParse("00PGHAJ3Q9VAJ7IU6PQBHBUAK4")
	js, _ := json.Marshal(struct{ ID ID }{id})
	if string(js) != `{"ID":"00PGHAJ3Q9VAJ7IU6PQBHBUAK4"}` {
		t.Fatalf("JSON = %s", js)
	}
	var v struct{ ID ID }
	if err := json.Unmarshal(js, &v); err != nil || v.ID != id {
		t.Fatal(err)
	}
	bin, _ := id.MarshalBinary()
	var back ID
	if err := back.UnmarshalBinary(bin); err != nil || back != id {
		t.Fatal("binary round trip")
	}
	if err := back.UnmarshalBinary(bin[1:]); !errors.Is(err, ErrInvalidLength) {
		t.Fatal(err)
	}
	for _, src := range []any{id.String(), []byte(id.String()), id[:]} {
		var got ID
		if err := got.Scan(src); err != nil || got != id {
			t.Fatalf("Scan(%v): %v", src, err)
		}
	}
	for _, src := range []any{nil, 5, "x"} {
		if err := back.Scan(src); err == nil {
			t.Fatalf("Scan(%v) accepted", src)
		}
	}
	if val, _ := id.Value(); val != id.String() {
		t.Fatal("Value")
	}
	if id.Compare(id) != 0 || id.Compare(ID{}) != 1 || (ID{}).Compare(id) != -1 || !(ID{}).IsZero() {
		t.Fatal("Compare/IsZero")
	}
}
