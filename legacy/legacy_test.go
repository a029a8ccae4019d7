package legacy

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/fastid/scru128/internal/idtest"
	"github.com/fastid/scru128/internal/naive"
)

var (
	sinkID  ID
	sinkStr string
	sinkInt int
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
		if _, err := f(); !errors.Is(err, ErrOutOfRange) {
			t.Fatalf("out-of-range field: %v", err)
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
		{"80000000000000000000000000", ErrOutOfRange, -1},
		{"VVVVVVVVVVVVVVVVVVVVVVVVVV", ErrOutOfRange, -1},
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
	if err := back.UnmarshalBinary([]byte("00pghaj3q9vaj7iu6pqbhbuak4")); err != nil || back != id {
		t.Fatalf("UnmarshalBinary(text) = %s, %v", back, err)
	}
	if val, _ := id.Value(); val != id.String() {
		t.Fatal("Value")
	}
	if id.Compare(id) != 0 || id.Compare(ID{}) != 1 || (ID{}).Compare(id) != -1 || !(ID{}).IsZero() {
		t.Fatal("Compare/IsZero")
	}
}

// TestInterop runs the checks every format shares, the UUID forms among
// them.
func TestInterop(t *testing.T) {
	id := MustParse("00PGHAJ3Q9VAJ7IU6PQBHBUAK4")
	hex := "00cc22a98f49faa67978d9d2e2bf2a84"
	if got := fmtHex(id); got != hex {
		t.Fatalf("hex of the sample = %s", got)
	}
	hyphenated := hex[:8] + "-" + hex[8:12] + "-" + hex[12:16] + "-" + hex[16:20] + "-" + hex[20:]
	idtest.CheckInterop(t, idtest.Interop[ID, NullID]{
		Sample: id,
		Text:   id.String(),
		Accept: []any{hyphenated, []byte(strings.ToUpper(hyphenated)), hex, []byte(strings.ToUpper(hex)), id[:]},
		Reject: append(idtest.UUIDRejects(ErrInvalidLength, ErrInvalidCharacter),
			idtest.Reject{Src: "00PGHAJ3Q9VAJ7IU6PQBHBUAKW", Err: ErrInvalidCharacter, Offset: 25},
			idtest.Reject{Src: []byte("80000000000000000000000000"), Err: ErrOutOfRange, Offset: -1},
			idtest.Reject{Src: int64(5), Err: ErrScanType, Offset: -1}),
		ScanNull:   ErrScanNull,
		ScanType:   ErrScanType,
		Length:     ErrInvalidLength,
		NewNull:    func(id ID, valid bool) NullID { return NullID{id, valid} },
		NullFields: func(n NullID) (ID, bool) { return n.ID, n.Valid },
	})
	if FromUUID(id.UUID()) != id {
		t.Fatal("UUID round trip")
	}
}

func fmtHex(id ID) string {
	const digits = "0123456789abcdef"
	var b []byte
	for _, c := range id {
		b = append(b, digits[c>>4], digits[c&15])
	}
	return string(b)
}

func TestBinary(t *testing.T) {
	id := MustParse("00PGHAJ3Q9VAJ7IU6PQBHBUAK4")
	if v, err := Binary(id).Value(); err != nil || !bytes.Equal(v.([]byte), id[:]) {
		t.Fatalf("Binary.Value = %v, %v", v, err)
	}
	var b Binary
	if err := b.Scan(id[:]); err != nil || ID(b) != id {
		t.Fatalf("Binary.Scan = %v, %v", b, err)
	}
	if v, err := NullBinary(NullID{id, true}).Value(); err != nil || !bytes.Equal(v.([]byte), id[:]) {
		t.Fatalf("NullBinary.Value = %v, %v", v, err)
	}
	if v, err := (NullBinary{}).Value(); err != nil || v != nil {
		t.Fatalf("invalid NullBinary.Value = %v, %v", v, err)
	}
	var n NullBinary
	if err := n.Scan(id.String()); err != nil || !n.Valid || n.ID != id {
		t.Fatalf("NullBinary.Scan = %v, %v", n, err)
	}
}

func TestRangeHelpers(t *testing.T) {
	lo, err := MinAt(1000)
	hi, err2 := MaxAt(1000)
	if err != nil || err2 != nil || lo.Timestamp() != 1000 || hi.Timestamp() != 1000 || lo.Counter() != 0 ||
		hi.Counter() != MaxCounter || hi.PerSecRandom() != MaxPerSecRandom || hi.PerGenRandom() != 1<<32-1 {
		t.Fatalf("MinAt/MaxAt = %s %s, %v %v", lo, hi, err, err2)
	}
	next, _ := MinAt(1001)
	if lo.Compare(hi) >= 0 || hi.Compare(next) >= 0 {
		t.Fatal("ranges overlap")
	}
	at := time.UnixMilli(TimestampBias + 1000).Add(500 * time.Microsecond)
	if a, _ := MinAtTime(at); a != lo {
		t.Fatalf("MinAtTime = %s", a)
	}
	if b, _ := MaxAtTime(at); b != hi {
		t.Fatalf("MaxAtTime = %s", b)
	}
	if _, err := MinAt(MaxTimestamp + 1); !errors.Is(err, ErrOutOfRange) {
		t.Fatal(err)
	}
	if m, err := MaxAtTime(time.UnixMilli(TimestampBias + MaxTimestamp)); err != nil || m.String() != "7VVVVVVVVVVVVVVVVVVVVVVVVV" {
		t.Fatalf("MaxAtTime(last millisecond) = %s, %v", m, err)
	}
	for _, tm := range []time.Time{time.UnixMilli(TimestampBias - 1), time.UnixMilli(TimestampBias + MaxTimestamp + 1),
		time.Unix(1<<62, 0), time.Unix(math.MaxInt64/1000+1, 0), time.Unix(-1<<62, 0), {}} {
		for name, fn := range map[string]func(time.Time) (ID, error){
			"MinAtTime": MinAtTime, "MaxAtTime": MaxAtTime, "NewAt": NewAt,
		} {
			if id, err := fn(tm); !errors.Is(err, ErrOutOfRange) || !id.IsZero() {
				t.Errorf("%s(%v) = %s, %v; want ErrOutOfRange", name, tm, id, err)
			}
		}
	}
}

func TestNewAt(t *testing.T) {
	at := time.Date(2021, 9, 26, 5, 26, 19, 124_000_000, time.UTC)
	seen := make(map[ID]bool)
	var or, and [2]uint64
	and = [2]uint64{math.MaxUint64, math.MaxUint64}
	for range 1000 {
		id, err := NewAt(at)
		if err != nil || !id.Time().Equal(at) || seen[id] {
			t.Fatalf("NewAt = %s (%v), %v", id, id.Time(), err)
		}
		seen[id] = true
		hi, lo := id.Uint64s()
		or[0], or[1], and[0], and[1] = or[0]|hi, or[1]|lo, and[0]&hi, and[1]&lo
	}
	if or[0]&(1<<20-1) != 1<<20-1 || or[1] != math.MaxUint64 || and[0]&(1<<20-1) != 0 || and[1] != 0 {
		t.Fatalf("random fields do not vary: or %x %x, and %x %x", or[0], or[1], and[0], and[1])
	}
}
