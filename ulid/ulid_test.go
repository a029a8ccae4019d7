package ulid

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/fastid/scru128/internal/naive"
)

var (
	sinkID  ULID
	sinkStr string
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
		{"8ZZZZZZZZZZZZZZZZZZZZZZZZZ", ErrOverflow, -1},
		{"ZZZZZZZZZZZZZZZZZZZZZZZZZZ", ErrOverflow, -1},
		{"80000000000000000000000000", ErrOverflow, -1},
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
	if _, err := FromFields(MaxTimestamp+1, e); !errors.Is(err, ErrInvalidTimestamp) {
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
	if _, err := MaxAt(MaxTimestamp + 1); !errors.Is(err, ErrInvalidTimestamp) {
		t.Fatal(err)
	}
	if _, err := MinAtTime(time.UnixMilli(-1)); !errors.Is(err, ErrInvalidTimestamp) {
		t.Fatal(err)
	}
	if _, err := MaxAtTime(time.UnixMilli(-1)); !errors.Is(err, ErrInvalidTimestamp) {
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

func TestSQL(t *testing.T) {
	id := MustParse("01ARZ3NDEKTSV4RRFFQ69G5FAV")
	for _, src := range []any{id.String(), []byte(id.String()), id[:], strings.ToLower(id.String())} {
		var got ULID
		if err := got.Scan(src); err != nil || got != id {
			t.Fatalf("Scan(%T %v): %v", src, src, err)
		}
		var b Binary
		if err := b.Scan(src); err != nil || ULID(b) != id {
			t.Fatalf("Binary.Scan: %v", err)
		}
	}
	var got ULID
	for _, src := range []any{nil, 42, "short", []byte("8ZZZZZZZZZZZZZZZZZZZZZZZZZ")} {
		if err := got.Scan(src); err == nil {
			t.Fatalf("Scan(%v) accepted", src)
		}
	}
	if v, _ := id.Value(); v != id.String() {
		t.Fatalf("Value = %v", v)
	}
	if v, _ := Binary(id).Value(); string(v.([]byte)) != string(id[:]) {
		t.Fatalf("Binary.Value = %v", v)
	}
	var n NullULID
	if err := n.Scan(nil); err != nil || n.Valid {
		t.Fatal("NullULID NULL")
	}
	if v, _ := n.Value(); v != nil {
		t.Fatal("NullULID Value not nil")
	}
	if err := n.Scan(id.String()); err != nil || !n.Valid || n.ULID != id {
		t.Fatal("NullULID Scan")
	}
	if v, _ := n.Value(); v != id.String() {
		t.Fatal("NullULID Value")
	}
	if err := n.Scan(1.5); err == nil {
		t.Fatal("NullULID accepted float")
	}
	js, _ := json.Marshal(NullULID{ULID: id, Valid: true})
	null, _ := json.Marshal(NullULID{})
	if string(js) != `"01ARZ3NDEKTSV4RRFFQ69G5FAV"` || string(null) != "null" {
		t.Fatalf("NullULID JSON %s %s", js, null)
	}
	var back NullULID
	if err := json.Unmarshal(js, &back); err != nil || back.ULID != id || !back.Valid {
		t.Fatal("NullULID JSON back")
	}
	if err := json.Unmarshal(null, &back); err != nil || back.Valid {
		t.Fatal("NullULID null back")
	}
	if err := back.UnmarshalJSON([]byte("12")); err == nil {
		t.Fatal("NullULID accepted a number")
	}
	if err := back.UnmarshalJSON([]byte(`"8ZZZZZZZZZZZZZZZZZZZZZZZZZ"`)); err == nil {
		t.Fatal("NullULID accepted an overflow")
	}
}
