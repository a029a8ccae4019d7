package naive

import (
	"errors"
	"testing"
)

func TestSCRU64Vectors(t *testing.T) {
	for _, tc := range []struct {
		text string
		v    uint64
	}{
		{"000000000000", 0},
		{"00000009zldr", 0xffffff},
		{"zzzzzzzq0em8", 0x41c21cb8e0000000},
		{"zzzzzzzzzzzz", SCRU64Max},
		{"0u375nxqh5cq", 0x0186d52bbe2a635a},
		{"0u2pf62ji4b9", 109959589539758421},
	} {
		if got := EncodeSCRU64(tc.v); got != tc.text {
			t.Errorf("EncodeSCRU64(%#x) = %s, want %s", tc.v, got, tc.text)
		}
		if got, _, err := DecodeSCRU64([]byte(tc.text)); err != nil || got != tc.v {
			t.Errorf("DecodeSCRU64(%s) = %#x, %v", tc.text, got, err)
		}
	}
	for _, tc := range []struct {
		in     string
		offset int
		err    error
	}{
		{"", -1, ErrInvalidLength},
		{"0000000000000", -1, ErrInvalidLength},
		{"0u375nxqh5c", -1, ErrInvalidLength},
		{"0u375nx-h5cq", 7, ErrInvalidCharacter},
		{" u375nxqh5cq", 0, ErrInvalidCharacter},
	} {
		if _, offset, err := DecodeSCRU64([]byte(tc.in)); !errors.Is(err, tc.err) || offset != tc.offset {
			t.Errorf("DecodeSCRU64(%q) = offset %d, %v; want %d, %v", tc.in, offset, err, tc.offset, tc.err)
		}
	}
}

func TestSCRU64NodeSpec(t *testing.T) {
	for _, tc := range []struct {
		in   string
		prev uint64
		size uint8
	}{
		{"42/8", 0x2a0000, 8},
		{"0xb00/12", 0xb00000, 12},
		{"0X7c6bc4/23", 0xf8d788, 23},
		{"8388607/23", 0xfffffe, 23},
		{"v0rbps7ay8ks/16", 0x38a9e683bb4425ec, 16},
		{"1/016", 0x100, 16},
	} {
		prev, size, err := ParseSCRU64NodeSpec(tc.in)
		if err != nil || prev != tc.prev || size != tc.size {
			t.Errorf("%q: %#x, %d, %v; want %#x, %d", tc.in, prev, size, err, tc.prev, tc.size)
		}
	}
	for _, in := range []string{"", "42", "/8", "42/", " 42/8", "42/8 ", "+42/8", "ab/8", "1/2/3",
		"0/0", "0/24", "8/1", "1024/8", "1/0016", "42/800", "0000000000001/8", "0x/8", "0x1234567/23"} {
		if _, _, err := ParseSCRU64NodeSpec(in); err == nil {
			t.Errorf("%q accepted", in)
		}
	}
}

func TestSCRU64CoreOverflowAndRollback(t *testing.T) {
	renewals := 0
	c := SCRU64Core{Prev: 0x2a0000, NodeIDSize: 22, Renew: func(counterSize uint8, _ uint64, nodeID uint32) uint32 {
		if counterSize != 2 || nodeID != 0x2a0000>>2 {
			t.Fatalf("Renew(%d, node %d)", counterSize, nodeID)
		}
		renewals++
		return 2
	}}
	const ms = 1_700_000_000_000
	const ts = ms / 256
	want := []uint64{ts<<24 | 0x2a0002, ts<<24 | 0x2a0003, (ts+1)<<24 | 0x2a0002}
	for i, w := range want {
		got, err := c.Generate(ms, 10_000, true)
		if err != nil || got != w {
			t.Fatalf("ID %d = %#x, %v; want %#x", i, got, err, w)
		}
	}
	if renewals != 2 {
		t.Fatalf("%d renewals, want 2", renewals)
	}
	if _, err := c.Generate(ms-10_000-256, 10_000, true); !errors.Is(err, ErrClockRollback) {
		t.Fatalf("rollback: %v", err)
	}
	if got, err := c.Generate(ms-10_000-256, 10_000, false); err != nil || got>>24 != (ms-10_000-256)/256 {
		t.Fatalf("reset: %#x, %v", got, err)
	}
	for _, bad := range []uint64{0, 255, SCRU64MaxTimestamp * 256} {
		if _, err := c.Generate(bad, 0, false); !errors.Is(err, ErrInvalidTimestamp) {
			t.Errorf("Generate(%d) error = %v", bad, err)
		}
	}
}
