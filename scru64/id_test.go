package scru64

import (
	"bytes"
	"database/sql"
	"database/sql/driver"
	"encoding"
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"testing"
	"time"

	"github.com/fastid/scru128/internal/idtest"
)

var (
	_ encoding.TextAppender      = ID(0)
	_ encoding.TextMarshaler     = ID(0)
	_ encoding.TextUnmarshaler   = (*ID)(nil)
	_ encoding.BinaryAppender    = ID(0)
	_ encoding.BinaryMarshaler   = ID(0)
	_ encoding.BinaryUnmarshaler = (*ID)(nil)
	_ json.Marshaler             = ID(0)
	_ json.Unmarshaler           = (*ID)(nil)
	_ sql.Scanner                = (*ID)(nil)
	_ driver.Valuer              = ID(0)
	_ sql.Scanner                = (*NullID)(nil)
	_ driver.Valuer              = NullID{}
	_ encoding.TextMarshaler     = NodeSpec{}
	_ encoding.TextUnmarshaler   = (*NodeSpec)(nil)
)

func TestFromPartsRejects(t *testing.T) {
	for _, tc := range []struct {
		ts      uint64
		nodeCtr uint32
	}{{MaxTimestamp + 1, 0}, {0, MaxNodeCtr + 1}, {1 << 63, 0}, {0, 1<<32 - 1}} {
		if _, err := FromParts(tc.ts, tc.nodeCtr); !errors.Is(err, ErrOutOfRange) {
			t.Errorf("FromParts(%d, %d) error = %v", tc.ts, tc.nodeCtr, err)
		}
	}
}

func TestFromIntegers(t *testing.T) {
	for _, v := range []int64{-1, -1 << 63, int64(Max) + 1, 1<<63 - 1} {
		if _, err := FromInt64(v); !errors.Is(err, ErrOutOfRange) {
			t.Errorf("FromInt64(%d) error = %v", v, err)
		}
	}
	for _, v := range []int64{0, 1, int64(Max)} {
		id, err := FromInt64(v)
		if err != nil || id.Int64() != v || id.Uint64() != uint64(v) {
			t.Errorf("FromInt64(%d) = %d, %v", v, id, err)
		}
		if id, err := FromUint64(uint64(v)); err != nil || id.Int64() != v {
			t.Errorf("FromUint64(%d) = %d, %v", v, id, err)
		}
	}
}

func TestTimeAndCompare(t *testing.T) {
	id := MustParse("0u375nxqh5cq")
	want := time.UnixMilli(6557084606 * 256).UTC()
	if !id.Time().Equal(want) || id.Time().Location() != time.UTC {
		t.Errorf("Time = %v, want %v", id.Time(), want)
	}
	next := MustParse("0u375nxqh5cr")
	if id.Compare(next) != -1 || next.Compare(id) != 1 || id.Compare(id) != 0 {
		t.Error("Compare disagrees with the integer order")
	}
	if !ID(0).IsZero() || id.IsZero() {
		t.Error("IsZero")
	}
	// The largest ID's tick starts in February 4261.
	if got := Max.Time(); got.Year() != 4261 || got.Month() != time.February {
		t.Errorf("Max.Time() = %v", got)
	}
}

// TestRoundTrips passes every vector through every representation and
// back.
func TestRoundTrips(t *testing.T) {
	for _, v := range vectors {
		id := ID(v.value)
		text, _ := id.MarshalText()
		appended, _ := id.AppendText([]byte("prefix"))
		if string(text) != v.text || string(appended) != "prefix"+v.text {
			t.Errorf("%s: MarshalText %q, AppendText %q", v.text, text, appended)
		}
		var back ID
		if err := back.UnmarshalText(text); err != nil || back != id {
			t.Errorf("%s: UnmarshalText = %s, %v", v.text, back, err)
		}

		bin, _ := id.MarshalBinary()
		if len(bin) != 8 || uint64(bin[0])<<56|uint64(bin[7]) != v.value&(0xff<<56|0xff) {
			t.Errorf("%s: MarshalBinary = %x", v.text, bin)
		}
		back = 0
		if err := back.UnmarshalBinary(bin); err != nil || back != id {
			t.Errorf("%s: UnmarshalBinary = %s, %v", v.text, back, err)
		}
		back = 0
		if err := back.UnmarshalBinary(text); err != nil || back != id {
			t.Errorf("%s: UnmarshalBinary(text) = %s, %v", v.text, back, err)
		}

		js, err := json.Marshal(id)
		if err != nil || string(js) != `"`+v.text+`"` {
			t.Errorf("%s: json.Marshal = %s, %v", v.text, js, err)
		}
		back = 0
		if err := json.Unmarshal(js, &back); err != nil || back != id {
			t.Errorf("%s: json.Unmarshal(%s) = %s, %v", v.text, js, back, err)
		}
		back = 0
		if err := json.Unmarshal([]byte(jsonNumber(v.value)), &back); err != nil || back != id {
			t.Errorf("%s: json.Unmarshal(number) = %s, %v", v.text, back, err)
		}

		value, err := id.Value()
		if err != nil || value != int64(v.value) {
			t.Errorf("%s: Value = %v, %v", v.text, value, err)
		}
		for _, src := range []any{value, v.value, v.text, []byte(v.text), bin} {
			back = 0
			if err := back.Scan(src); err != nil || back != id {
				t.Errorf("%s: Scan(%T %v) = %s, %v", v.text, src, src, back, err)
			}
		}
	}
}

func jsonNumber(v uint64) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestUnmarshalRejects(t *testing.T) {
	for _, in := range []string{`"0u375nxqh5c"`, `"0u375nxqh5c_"`, `-1`, `1.5`, `1e3`, `+1`, `4738381338321616896`,
		`18446744073709551616`, `true`, `[]`, `""`, `"`, ``, `0x10`, `1_000`} {
		id := ID(7)
		if err := id.UnmarshalJSON([]byte(in)); err == nil || id != 7 {
			t.Errorf("UnmarshalJSON(%s) = %s, %v", in, id, err)
		}
	}
	id := ID(7)
	if err := json.Unmarshal([]byte(`null`), &id); err != nil || id != 7 {
		t.Errorf("null: %s, %v", id, err)
	}
	if err := id.UnmarshalJSON([]byte(`4738381338321616896`)); !errors.Is(err, ErrOutOfRange) {
		t.Errorf("36^12 in JSON: %v", err)
	}
	for _, src := range []any{int64(-1), int64(Max) + 1, uint64(Max) + 1, "0u375nxqh5c", []byte("short"),
		[]byte{0xff, 0, 0, 0, 0, 0, 0, 0}, nil, 1.5, true} {
		id := ID(7)
		if err := id.Scan(src); err == nil || id != 7 {
			t.Errorf("Scan(%T %v) = %s, %v", src, src, id, err)
		}
	}
	if _, err := (Max + 1).Value(); !errors.Is(err, ErrOutOfRange) {
		t.Errorf("Value above Max: %v", err)
	}
}

func TestNullID(t *testing.T) {
	var n NullID
	if err := n.Scan(nil); err != nil || n.Valid {
		t.Fatalf("Scan(nil) = %+v, %v", n, err)
	}
	if v, err := n.Value(); v != nil || err != nil {
		t.Fatalf("Value of NULL = %v, %v", v, err)
	}
	if err := n.Scan(int64(0x0186d52bbe2a635a)); err != nil || !n.Valid || n.ID.String() != "0u375nxqh5cq" {
		t.Fatalf("Scan(int64) = %+v, %v", n, err)
	}
	js, _ := json.Marshal([]NullID{n, {}})
	if string(js) != `["0u375nxqh5cq",null]` {
		t.Fatalf("json = %s", js)
	}
	var back []NullID
	if err := json.Unmarshal([]byte(`["0u375nxqh5cq",null,109959589539758421]`), &back); err != nil ||
		len(back) != 3 || back[0] != n || back[1].Valid || back[2].ID.String() != "0u2pf62ji4b9" {
		t.Fatalf("json.Unmarshal = %+v, %v", back, err)
	}
	if v, err := n.Value(); v != int64(0x0186d52bbe2a635a) || err != nil {
		t.Fatalf("Value = %v, %v", v, err)
	}
}

func TestMarshalDoesNotKeepBuffer(t *testing.T) {
	buf := make([]byte, 0, 64)
	a, _ := ID(1).AppendText(buf)
	b, _ := ID(2).AppendText(buf)
	if !bytes.Equal(a, b) { // both wrote into buf's array
		t.Fatal("AppendText did not use the room in b")
	}
	t1, _ := ID(1).MarshalText()
	t2, _ := ID(1).MarshalText()
	t1[0] = 'x'
	if t2[0] == 'x' {
		t.Fatal("MarshalText results share memory")
	}
}

// TestInterop runs the checks every format shares, with the 64-bit forms:
// integers, decimal text and 8 raw bytes.
func TestInterop(t *testing.T) {
	id := MustParse("0u375nxqh5cq") // 110009624767914842
	idtest.CheckInterop(t, idtest.Interop[ID, NullID]{
		Sample: id,
		Text:   id.String(),
		Accept: []any{int64(id), uint64(id), "110009624767914842", []byte("110009624767914842"),
			"000110009624767914842", []byte{0x01, 0x86, 0xd5, 0x2b, 0xbe, 0x2a, 0x63, 0x5a}},
		Reject: []idtest.Reject{
			{Src: "", Err: ErrInvalidLength, Offset: -1},
			{Src: []byte{}, Err: ErrInvalidLength, Offset: -1},
			{Src: "-110009624767914842", Err: ErrInvalidCharacter, Offset: 0},
			{Src: "+110009624767914842", Err: ErrInvalidCharacter, Offset: 0},
			{Src: " 110009624767914842", Err: ErrInvalidCharacter, Offset: 0},
			{Src: "110009624767914842 ", Err: ErrInvalidCharacter, Offset: 18},
			{Src: []byte("1100096247679.4842"), Err: ErrInvalidCharacter, Offset: 13},
			{Src: "1e18", Err: ErrInvalidCharacter, Offset: 1},
			{Src: "4738381338321616896", Err: ErrOutOfRange, Offset: -1},                // Max+1
			{Src: []byte("99999999999999999999999999"), Err: ErrOutOfRange, Offset: -1}, // past 64 bits
			{Src: "0u375nxqh5c_", Err: ErrInvalidCharacter, Offset: 11},                 // 12 bytes: the text form
			{Src: "0u375nxqh5c", Err: ErrInvalidCharacter, Offset: 1},                   // 11 bytes: decimal
			{Src: []byte{0xff, 0, 0, 0, 0, 0, 0, 0}, Err: ErrOutOfRange, Offset: -1},
			{Src: []byte("12345678"), Err: ErrAmbiguous, Offset: -1}, // binary, and decimal text
			{Src: int64(-1), Err: ErrOutOfRange, Offset: -1},
			{Src: uint64(Max) + 1, Err: ErrOutOfRange, Offset: -1},
			{Src: 1.5, Err: ErrScanType, Offset: -1},
			{Src: true, Err: ErrScanType, Offset: -1},
		},
		ScanNull:   ErrScanNull,
		ScanType:   ErrScanType,
		Length:     ErrInvalidLength,
		NewNull:    func(id ID, valid bool) NullID { return NullID{id, valid} },
		NullFields: func(n NullID) (ID, bool) { return n.ID, n.Valid },
	})
}

// TestDecimalTextRoundTrip is the symptom of an ID that did not
// round-trip through a TEXT column: SQLite stores Value's int64 there as
// decimal text, which Scan rejected with "invalid length".
func TestDecimalTextRoundTrip(t *testing.T) {
	for _, id := range []ID{0, 1, 99_999_999_999, 1_000_000_000_000, MustParse("0u375nxqh5cq"), Max} {
		v, err := id.Value()
		if err != nil {
			t.Fatal(err)
		}
		stored := strconv.FormatInt(v.(int64), 10) // what the TEXT column holds
		var back ID
		for _, src := range []any{stored, []byte(stored)} {
			if err := back.Scan(src); err != nil || back != id {
				t.Errorf("Scan(%T %s) = %s, %v; want %s", src, stored, back, err, id)
			}
		}
	}
}

// TestJSONForms checks what UnmarshalJSON accepts: the string with
// escapes, a JSON integer, and null.
func TestJSONForms(t *testing.T) {
	want := MustParse("0u375nxqh5cq")
	for _, in := range []string{`"0u375nxqh5cq"`, `"\u0030u375nxqh5cq"`, `"0U375NXQH5C\u0051"`, `110009624767914842`} {
		var id ID
		if err := json.Unmarshal([]byte(in), &id); err != nil || id != want {
			t.Errorf("json.Unmarshal(%s) = %s, %v", in, id, err)
		}
	}
	type row struct {
		A ID `json:"a,omitempty"`
		B ID `json:"b,omitzero"`
	}
	if b, _ := json.Marshal(row{}); string(b) != `{}` {
		t.Errorf("omitempty and omitzero of the zero ID = %s", b)
	}
}

// TestZeroGenerator is the symptom of the zero Generator returning
// an ID above Max and then ErrClockRollback forever: every method now
// returns ErrNoNodeSpec.
func TestZeroGenerator(t *testing.T) {
	var g Generator
	for name, fn := range map[string]func() (ID, error){
		"Generate":            g.Generate,
		"GenerateOrSleep":     g.GenerateOrSleep,
		"GenerateOrReset":     g.GenerateOrReset,
		"GenerateOrAbortCore": func() (ID, error) { return g.GenerateOrAbortCore(uint64(time.Now().UnixMilli()), 10_000) },
		"GenerateOrResetCore": func() (ID, error) { return g.GenerateOrResetCore(uint64(time.Now().UnixMilli()), 10_000) },
	} {
		for range 2 {
			if id, err := fn(); !errors.Is(err, ErrNoNodeSpec) || id != 0 {
				t.Errorf("zero Generator %s = %s, %v; want ErrNoNodeSpec", name, id, err)
			}
		}
	}
	if !g.NodeSpec().IsZero() || g.NodeID() != 0 || g.NodeIDSize() != 0 {
		t.Errorf("zero Generator: spec %q, node %d/%d", g.NodeSpec(), g.NodeID(), g.NodeIDSize())
	}
}

func TestRangeHelpers(t *testing.T) {
	lo, err := MinAt(1000)
	hi, err2 := MaxAt(1000)
	if err != nil || err2 != nil || lo.Timestamp() != 1000 || hi.Timestamp() != 1000 || lo.NodeCtr() != 0 || hi.NodeCtr() != MaxNodeCtr {
		t.Fatalf("MinAt/MaxAt = %s %s, %v %v", lo, hi, err, err2)
	}
	if next, _ := MinAt(1001); hi >= next {
		t.Fatal("adjacent ranges overlap")
	}
	// A time anywhere in tick 1000 (ms 256000 to 256255) gives its bounds.
	for _, ms := range []int64{256000, 256100, 256255} {
		a, _ := MinAtTime(time.UnixMilli(ms))
		b, _ := MaxAtTime(time.UnixMilli(ms).Add(999 * time.Microsecond))
		if a != lo || b != hi {
			t.Errorf("tick bounds of %d ms = %s %s", ms, a, b)
		}
	}
	if m, err := MaxAt(MaxTimestamp); err != nil || m != Max {
		t.Fatalf("MaxAt(MaxTimestamp) = %s, %v", m, err)
	}
	if m, err := MaxAtTime(time.UnixMilli((MaxTimestamp+1)<<8 - 1)); err != nil || m != Max {
		t.Fatalf("MaxAtTime(last millisecond) = %s, %v", m, err)
	}
	if _, err := MinAt(MaxTimestamp + 1); !errors.Is(err, ErrOutOfRange) {
		t.Fatal(err)
	}
	for _, tm := range []time.Time{time.UnixMilli(-1), time.UnixMilli((MaxTimestamp + 1) << 8), time.Unix(1<<62, 0),
		time.Unix(math.MaxInt64/1000+1, 0), time.Unix(-1<<62, 0), {}} {
		for name, fn := range map[string]func(time.Time) (ID, error){"MinAtTime": MinAtTime, "MaxAtTime": MaxAtTime} {
			if id, err := fn(tm); !errors.Is(err, ErrOutOfRange) || id != 0 {
				t.Errorf("%s(%v) = %s, %v; want ErrOutOfRange", name, tm, id, err)
			}
		}
	}
}
