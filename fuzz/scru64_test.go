package fuzz

import (
	"encoding/binary"
	"errors"
	"strings"
	"testing"

	"github.com/fastid/scru128/internal/naive"
	"github.com/fastid/scru128/scru64"
)

// FuzzSCRU64Encode checks that the text of any value up to the largest ID
// is what strconv gives, through every text method, and that it parses
// back; values above it must be refused by FromUint64 and FromInt64.
func FuzzSCRU64Encode(f *testing.F) {
	f.Add(uint64(0))
	f.Add(uint64(scru64.Max))
	f.Fuzz(func(t *testing.T, v uint64) {
		id, err := scru64.FromUint64(v)
		if v > naive.SCRU64Max {
			_, errInt := scru64.FromInt64(int64(v))
			if !errors.Is(err, scru64.ErrOutOfRange) || !errors.Is(errInt, scru64.ErrOutOfRange) {
				t.Fatalf("%d above the largest ID: errors %v, %v", v, err, errInt)
			}
			return
		}
		if err != nil {
			t.Fatalf("FromUint64(%d): %v", v, err)
		}
		want := naive.EncodeSCRU64(v)
		if got := id.String(); got != want {
			t.Fatalf("String(%d) = %s, strconv %s", v, got, want)
		}
		appended, err := id.AppendText([]byte("x"))
		if err != nil || string(appended) != "x"+want {
			t.Fatalf("AppendText = %q, %v", appended, err)
		}
		if text, _ := id.MarshalText(); string(text) != want {
			t.Fatalf("MarshalText = %q", text)
		}
		if js, _ := id.MarshalJSON(); string(js) != `"`+want+`"` {
			t.Fatalf("MarshalJSON = %s", js)
		}
		back, err := scru64.Parse(strings.ToUpper(want))
		if err != nil || back != id {
			t.Fatalf("Parse(upper %s) = %d, %v", want, back, err)
		}
		if fromParts, err := scru64.FromParts(v>>24, uint32(v&(1<<24-1))); err != nil || fromParts != id ||
			id.Timestamp() != v>>24 || id.NodeCtr() != uint32(v&(1<<24-1)) {
			t.Fatalf("fields of %d: %d %d, FromParts %d, %v", v, id.Timestamp(), id.NodeCtr(), fromParts, err)
		}
	})
}

// FuzzSCRU64Parse checks that Parse, ParseBytes, UnmarshalText and
// UnmarshalBinary accept and reject exactly the byte strings the strconv
// reference does, with the same value and, for a bad character, the same
// offset.
func FuzzSCRU64Parse(f *testing.F) {
	f.Add([]byte("0u375nxqh5cq"))
	f.Add([]byte("ZZZZZZZZZZZZ"))
	f.Fuzz(func(t *testing.T, data []byte) {
		want, wantOffset, wantErr := naive.DecodeSCRU64(data)
		// Any 12 valid digits are in range, so the reference has no
		// out-of-range outcome here.
		checkParse(t, data, wantErr, wantOffset, func(got scru64.ID) bool { return uint64(got) == want },
			parseErrors{scru64.ErrInvalidLength, nil, scru64.ErrInvalidCharacter,
				badByte(func(e *scru64.InvalidCharacterError) (int, byte, rune, int) { return e.Offset, e.Char, e.Rune, e.Size }),
				lengths(func(e *scru64.LengthError) (int, int) { return e.Got, e.Want }), 12},
			textParsers(scru64.ParseBytes, scru64.Parse, scru64.Validate))
		// Whatever the bytes, the other decoders must not panic.
		var id scru64.ID
		_ = id.UnmarshalBinary(data)
		_ = id.UnmarshalJSON(data)
		_ = id.Scan(data)
		_ = id.Scan(string(data))
	})
}

// FuzzSCRU64NodeSpec checks ParseNodeSpec against the reference grammar (a
// regular expression): the same strings are accepted, with the same node,
// and the canonical string of an accepted spec parses to the same spec.
func FuzzSCRU64NodeSpec(f *testing.F) {
	for _, s := range []string{"42/8", "0xb00/12", "0u2r85hm2pt3/16", "0/24", "1/0016", "8/1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		prev, size, wantErr := naive.ParseSCRU64NodeSpec(s)
		spec, err := scru64.ParseNodeSpec(s)
		if wantErr != nil {
			if !errors.Is(err, scru64.ErrInvalidNodeSpec) {
				t.Fatalf("%q: accepted as %q (%v), the reference rejects it", s, spec, err)
			}
			return
		}
		if err != nil {
			t.Fatalf("%q: %v, the reference accepts it", s, err)
		}
		counterSize := 24 - size
		if spec.NodeIDSize() != size || spec.NodeID() != uint32(prev&(1<<24-1)>>counterSize) {
			t.Fatalf("%q: node %d/%d, reference prev %#x size %d", s, spec.NodeID(), spec.NodeIDSize(), prev, size)
		}
		if prev>>24 != 0 && uint64(spec.NodePrev()) != prev {
			t.Fatalf("%q: previous ID %d, reference %d", s, spec.NodePrev(), prev)
		}
		again, err := scru64.ParseNodeSpec(spec.String())
		if err != nil || again != spec {
			t.Fatalf("%q: canonical %q parses to %q, %v", s, spec, again, err)
		}
	})
}

// FuzzSCRU64Core drives Generator's core methods and the reference
// algorithm with the same node, times and counter renewals and requires the
// same IDs and errors.
func FuzzSCRU64Core(f *testing.F) {
	f.Add([]byte{7, 8, 0, 0, 42, 0, 0, 0, 0, 0, 0, 2, 0, 1, 6, 0, 3, 8, 0x10, 0, 1, 2, 3, 4, 5, 6, 7, 8})
	f.Fuzz(func(t *testing.T, data []byte) {
		size, nodeID, steps, stream := naive.DecodeSCRU64Steps(data)
		spec, err := scru64.NewNodeSpecWithNodeID(nodeID, size)
		if err != nil {
			t.Fatalf("node %d/%d: %v", nodeID, size, err)
		}
		g := scru64.NewGeneratorWithCounterMode(spec, &streamMode{data: stream})
		refMode := &streamMode{data: stream}
		ref := naive.SCRU64Core{Prev: uint64(nodeID) << (24 - size), NodeIDSize: size,
			Renew: func(uint8, uint64, uint32) uint32 { return refMode.next() }}
		for i, s := range steps {
			want, wantErr := ref.Generate(s.Timestamp, s.Allowance, s.Abort)
			var got scru64.ID
			if s.Abort {
				got, err = g.GenerateOrAbortCore(s.Timestamp, s.Allowance)
			} else {
				got, err = g.GenerateOrResetCore(s.Timestamp, s.Allowance)
			}
			if !sameSCRU64Error(err, wantErr) || err == nil && uint64(got) != want {
				t.Fatalf("node %s step %d %+v: got %d, %v; naive %d, %v", spec, i, s, got, err, want, wantErr)
			}
		}
	})
}

// streamMode renews counters from a byte stream, 4 big-endian bytes each,
// and 0 once it runs out.
type streamMode struct{ data []byte }

func (m *streamMode) next() uint32 {
	if len(m.data) < 4 {
		return 0
	}
	v := binary.BigEndian.Uint32(m.data)
	m.data = m.data[4:]
	return v
}

func (m *streamMode) Renew(uint8, scru64.RenewContext) uint32 { return m.next() }

func sameSCRU64Error(err, ref error) bool {
	switch {
	case ref == nil:
		return err == nil
	case errors.Is(ref, naive.ErrInvalidTimestamp):
		return errors.Is(err, scru64.ErrInvalidTimestamp)
	case errors.Is(ref, naive.ErrClockRollback):
		return errors.Is(err, scru64.ErrClockRollback)
	}
	return false
}

// FuzzSCRU64Scan checks that ID.Scan, given the bytes as a []byte and as a
// string, accepts and rejects exactly what the reference does: 12 bytes
// are the text form (digits too: no ID Value writes has 12 decimal
// digits), 8 bytes as a []byte the binary form, anything else decimal
// text, with the same value or the same kind of error and offset; and 8
// digits as a []byte, which are decimal text too, are refused with both
// readings.
func FuzzSCRU64Scan(f *testing.F) {
	f.Add([]byte("110009624767914842"))
	f.Add([]byte("4738381338321616895"))
	f.Add([]byte("4738381338321616896"))
	f.Add([]byte("99999999999999999999999"))
	f.Add([]byte("0u375nxqh5cq"))
	f.Add([]byte{0x41, 0xc2, 0x1c, 0xb8, 0xe0, 0, 0, 0})
	f.Add([]byte("123456789012"))
	f.Add([]byte("12345678"))
	f.Fuzz(func(t *testing.T, data []byte) {
		errs := parseErrors{scru64.ErrInvalidLength, scru64.ErrOutOfRange, scru64.ErrInvalidCharacter,
			badByte(func(e *scru64.InvalidCharacterError) (int, byte, rune, int) { return e.Offset, e.Char, e.Rune, e.Size }),
			lengths(func(e *scru64.LengthError) (int, int) { return e.Got, e.Want }), 12}
		ambiguity := func(err error) (string, uint64, uint64, bool) {
			var e *scru64.AmbiguousError
			if !errors.As(err, &e) || !errors.Is(err, scru64.ErrAmbiguous) {
				return "", 0, 0, false
			}
			return e.Form, uint64(e.AsForm), uint64(e.AsDecimal), true
		}
		for _, isBytes := range []bool{false, true} {
			want, wantOffset, wantErr := naive.Scan64(data, isBytes, 12, naive.DecodeSCRU64, naive.SCRU64Max, true)
			checkScan64(t, data, want, wantOffset, wantErr, errs, ambiguity, scanner[scru64.ID](isBytes))
		}
	})
}
