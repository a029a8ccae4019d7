package ulid

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
	sinkID  ULID
	sinkStr string
	sinkInt int
)

func TestSpecExample(t *testing.T) {
	id := MustParse("01ARZ3NDEKTSV4RRFFQ69G5FAV")
	if id.Timestamp() != 1469922850259 {
		t.Fatalf("timestamp = %d", id.Timestamp())
	}
	if got := id.Time(); !got.Equal(time.UnixMilli(1469922850259)) || got.Location() != time.UTC {
		t.Fatalf("Time = %v", got)
	}
	if id.String() != "01ARZ3NDEKTSV4RRFFQ69G5FAV" {
		t.Fatalf("String = %s", id)
	}
	if lower := MustParse("01arz3ndektsv4rrffq69g5fav"); lower != id {
		t.Fatal("lower case parses differently")
	}
}

func TestEdgesAgainstNaive(t *testing.T) {
	for _, s := range []string{
		"00000000000000000000000000",
		"7ZZZZZZZZZZZZZZZZZZZZZZZZZ",
		"7zzzzzzzzzzzzzzzzzzzzzzzzz",
		"0000000000ZZZZZZZZZZZZZZZZ",
		"7ZZZZZZZZZ0000000000000000",
	} {
		id, err := Parse(s)
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		if want := naive.Base32Encode(id[:], 26, naive.CrockfordAlphabet); id.String() != want || !strings.EqualFold(want, s) {
			t.Fatalf("%s: String = %s, naive %s", s, id, want)
		}
	}
	if MustParse("7ZZZZZZZZZZZZZZZZZZZZZZZZZ") != Max {
		t.Fatal("7ZZ...Z is not Max")
	}
}

func TestParseRejects(t *testing.T) {
	for _, tc := range []struct {
		in     string
		err    error
		offset int
	}{
		{"", ErrInvalidLength, -1},
		{"0", ErrInvalidLength, -1},
		{"01ARZ3NDEKTSV4RRFFQ69G5FA", ErrInvalidLength, -1},
		{"01ARZ3NDEKTSV4RRFFQ69G5FAVV", ErrInvalidLength, -1},
		{"8ZZZZZZZZZZZZZZZZZZZZZZZZZ", ErrOutOfRange, -1},
		{"ZZZZZZZZZZZZZZZZZZZZZZZZZZ", ErrOutOfRange, -1},
		{"80000000000000000000000000", ErrOutOfRange, -1},
		{"I1ARZ3NDEKTSV4RRFFQ69G5FAV", ErrInvalidCharacter, 0},
		{"01LRZ3NDEKTSV4RRFFQ69G5FAV", ErrInvalidCharacter, 2},
		{"01ARZ3NDEKTSV4RRFFQ69G5FAo", ErrInvalidCharacter, 25},
		{"01ARZ3NDEKTSV4RRFFQ69G5FuV", ErrInvalidCharacter, 24},
		{"01ARZ3NDEK-SV4RRFFQ69G5FAV", ErrInvalidCharacter, 10},
		{"01ARZ3NDEK SV4RRFFQ69G5FAV", ErrInvalidCharacter, 10},
		{"01ARZ3NDEKTSV4RRFFQ69G5FA\xff", ErrInvalidCharacter, 25},
		// An invalid byte is reported before an overflowing first digit.
		{"8ZZZZZZZZZZZZZZZZZZZZZZZZU", ErrInvalidCharacter, 25},
	} {
		for _, parse := range []func(string) (ULID, error){Parse, func(s string) (ULID, error) { return ParseBytes([]byte(s)) }} {
			_, err := parse(tc.in)
			if !errors.Is(err, tc.err) {
				t.Errorf("%q: error %v, want %v", tc.in, err, tc.err)
				continue
			}
			var ice *InvalidCharacterError
			if errors.As(err, &ice) && (ice.Offset != tc.offset || ice.Char != tc.in[tc.offset]) {
				t.Errorf("%q: %v, want offset %d", tc.in, err, tc.offset)
			}
		}
	}
	var ice = &InvalidCharacterError{Offset: 3, Char: 'U'}
	if ice.Error() != `ulid: invalid character 'U' (0x55) at offset 3` {
		t.Fatalf("Error() = %s", ice.Error())
	}
}

func TestMustParsePanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("no panic")
		}
	}()
	MustParse("8ZZZZZZZZZZZZZZZZZZZZZZZZZ")
}

func TestFieldsAndRange(t *testing.T) {
	e := [10]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	id, err := FromFields(0x0123456789ab, e)
	if err != nil || id.Timestamp() != 0x0123456789ab || id.Entropy() != e {
		t.Fatalf("FromFields = %x, %v", id, err)
	}
	if _, err := FromFields(MaxTimestamp+1, e); !errors.Is(err, ErrOutOfRange) {
		t.Fatalf("FromFields above max: %v", err)
	}
	lo, _ := MinAt(1000)
	hi, _ := MaxAt(1000)
	if lo.Timestamp() != 1000 || hi.Timestamp() != 1000 || lo.Compare(hi) >= 0 || lo.Entropy() != [10]byte{} {
		t.Fatalf("MinAt/MaxAt = %s %s", lo, hi)
	}
	next, _ := MinAt(1001)
	if hi.Compare(next) >= 0 || hi.Entropy() != [10]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff} {
		t.Fatal("MaxAt(1000) not below MinAt(1001)")
	}
	if _, err := MaxAt(MaxTimestamp + 1); !errors.Is(err, ErrOutOfRange) {
		t.Fatal(err)
	}
	at, _ := MinAtTime(time.UnixMilli(1000).Add(999 * time.Microsecond))
	at2, _ := MaxAtTime(time.UnixMilli(1000))
	if at != lo || at2 != hi {
		t.Fatal("MinAtTime/MaxAtTime disagree with MinAt/MaxAt")
	}
	if !(ULID{}).IsZero() || id.IsZero() {
		t.Fatal("IsZero")
	}
	if id.Compare(id) != 0 || Max.Compare(id) != 1 || id.Compare(Max) != -1 {
		t.Fatal("Compare")
	}
	if FromUint64s(id.Uint64s()) != id {
		t.Fatal("Uint64s round trip")
	}
}

func TestUUIDRoundTrip(t *testing.T) {
	id := MustParse("01ARZ3NDEKTSV4RRFFQ69G5FAV")
	type uuidLike [16]byte // stands in for uuid.UUID
	u := uuidLike(id.UUID())
	if FromUUID(u) != id || uuidLike(id) != u {
		t.Fatal("UUID round trip lost bytes")
	}
}

func TestTextAndBinaryMarshalling(t *testing.T) {
	id := MustParse("01ARZ3NDEKTSV4RRFFQ69G5FAV")
	text, _ := id.MarshalText()
	appended, _ := id.AppendText([]byte("id="))
	if string(text) != id.String() || string(appended) != "id="+id.String() {
		t.Fatalf("MarshalText %q, AppendText %q", text, appended)
	}
	var back ULID
	if err := back.UnmarshalText(text); err != nil || back != id {
		t.Fatalf("UnmarshalText: %v", err)
	}
	if err := back.UnmarshalText([]byte("8ZZZZZZZZZZZZZZZZZZZZZZZZZ")); err == nil || back != id {
		t.Fatal("failed UnmarshalText changed the ULID")
	}
	bin, _ := id.MarshalBinary()
	var fromBin ULID
	if err := fromBin.UnmarshalBinary(bin); err != nil || fromBin != id {
		t.Fatal("binary round trip")
	}
	if err := fromBin.UnmarshalBinary(bin[:15]); !errors.Is(err, ErrInvalidLength) {
		t.Fatal(err)
	}
	if ab, _ := id.AppendBinary([]byte{9}); len(ab) != 17 || ab[0] != 9 {
		t.Fatal("AppendBinary")
	}
	js, err := json.Marshal(struct{ ID ULID }{id})
	if err != nil || string(js) != `{"ID":"01ARZ3NDEKTSV4RRFFQ69G5FAV"}` {
		t.Fatalf("JSON = %s, %v", js, err)
	}
	var v struct{ ID ULID }
	if err := json.Unmarshal(js, &v); err != nil || v.ID != id {
		t.Fatalf("JSON back: %v", err)
	}
}

// TestInterop runs the checks every format shares; with the UUID forms
// among them, it covers the report of a uuid column that could not
// be read back.
func TestInterop(t *testing.T) {
	id := MustParse("01ARZ3NDEKTSV4RRFFQ69G5FAV")
	idtest.CheckInterop(t, idtest.Interop[ULID, NullULID]{
		Sample: id,
		Text:   id.String(),
		Accept: []any{"01563e3a-b5d3-d676-4c61-efb99302bd5b", []byte("01563E3A-B5D3-D676-4C61-EFB99302BD5B"),
			"01563e3ab5d3d6764c61efb99302bd5b", []byte("01563E3AB5D3D6764C61EFB99302BD5B"), id[:]},
		Reject: append(idtest.UUIDRejects(ErrInvalidLength, ErrInvalidCharacter),
			idtest.Reject{Src: "01ARZ3NDEKTSV4RRFFQ69G5FAU", Err: ErrInvalidCharacter, Offset: 25},
			idtest.Reject{Src: []byte("8ZZZZZZZZZZZZZZZZZZZZZZZZZ"), Err: ErrOutOfRange, Offset: -1},
			idtest.Reject{Src: 1.5, Err: ErrScanType, Offset: -1}),
		ScanNull:   ErrScanNull,
		ScanType:   ErrScanType,
		Length:     ErrInvalidLength,
		NewNull:    func(id ULID, valid bool) NullULID { return NullULID{id, valid} },
		NullFields: func(n NullULID) (ULID, bool) { return n.ULID, n.Valid },
	})
}

// TestBinary checks the wrappers that bind the 16 bytes, which a binary
// column and its range bounds need.
func TestBinary(t *testing.T) {
	id := MustParse("01ARZ3NDEKTSV4RRFFQ69G5FAV")
	if v, err := Binary(id).Value(); err != nil || !bytes.Equal(v.([]byte), id[:]) {
		t.Fatalf("Binary.Value = %v, %v", v, err)
	}
	var b Binary
	if err := b.Scan("01563e3a-b5d3-d676-4c61-efb99302bd5b"); err != nil || ULID(b) != id {
		t.Fatalf("Binary.Scan = %v, %v", b, err)
	}
	if v, err := NullBinary(NullULID{id, true}).Value(); err != nil || !bytes.Equal(v.([]byte), id[:]) {
		t.Fatalf("NullBinary.Value = %v, %v", v, err)
	}
	if v, err := (NullBinary{ULID: id}).Value(); err != nil || v != nil {
		t.Fatalf("invalid NullBinary.Value = %v, %v", v, err)
	}
	n := NullULID{id, true}
	if err := (*NullBinary)(&n).Scan(nil); err != nil || n.Valid {
		t.Fatalf("NullBinary.Scan(nil) = %v, %v", n, err)
	}
	if err := (*NullBinary)(&n).Scan(id[:]); err != nil || !n.Valid || n.ULID != id {
		t.Fatalf("NullBinary.Scan(bytes) = %v, %v", n, err)
	}
}

// TestFarTimes is the symptom of far-future times wrapping round
// to 1970 in MinAtTime and MaxAtTime, and of ulid reporting ErrInvalidTimestamp
// where the root package reports ErrOutOfRange.
func TestFarTimes(t *testing.T) {
	for _, tm := range []time.Time{time.UnixMilli(-1), time.UnixMilli(MaxTimestamp + 1), time.Unix(1<<62, 0),
		time.Unix(math.MaxInt64/1000+1, 0), time.Unix(-1<<62, 0), {}} {
		for name, fn := range map[string]func(time.Time) (ULID, error){
			"MinAtTime": MinAtTime, "MaxAtTime": MaxAtTime, "NewAt": NewAt,
		} {
			if id, err := fn(tm); !errors.Is(err, ErrOutOfRange) || !id.IsZero() {
				t.Errorf("%s(%v) = %s, %v; want ErrOutOfRange", name, tm, id, err)
			}
		}
	}
	if id, err := MaxAtTime(time.UnixMilli(MaxTimestamp)); err != nil || id != Max {
		t.Fatalf("MaxAtTime(last millisecond) = %s, %v", id, err)
	}
}

func TestNewAt(t *testing.T) {
	at := time.UnixMilli(1469922850259).Add(300 * time.Microsecond)
	seen := make(map[ULID]bool)
	for range 1000 {
		id, err := NewAt(at)
		if err != nil || id.Timestamp() != 1469922850259 || seen[id] {
			t.Fatalf("NewAt = %s, %v (repeat %v)", id, err, seen[id])
		}
		seen[id] = true
	}
	var or, and [10]byte
	and = maxEntropy
	for id := range seen {
		e := id.Entropy()
		for i := range e {
			or[i], and[i] = or[i]|e[i], and[i]&e[i]
		}
	}
	if or != maxEntropy || and != [10]byte{} {
		t.Fatalf("random part does not vary: or %x, and %x", or, and)
	}
}
