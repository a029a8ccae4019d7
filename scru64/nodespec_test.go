package scru64

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/fastid/scru128/internal/naive"
)

// TestParseNodeSpecAccepts pins every accepted form with its fields and
// canonical string (hex becomes decimal; a previous ID stays).
func TestParseNodeSpecAccepts(t *testing.T) {
	for _, tc := range []struct {
		in, canonical string
		nodeID        uint32
		size          uint8
		prev          ID
	}{
		{"0/1", "0/1", 0, 1, 0},
		{"1/1", "1/1", 1, 1, 0},
		{"42/8", "42/8", 42, 8, 0},
		{"255/8", "255/8", 255, 8, 0},
		{"334/16", "334/16", 334, 16, 0},
		{"65535/16", "65535/16", 65535, 16, 0},
		{"8388607/23", "8388607/23", 8388607, 23, 0},
		{"00000042/08", "42/8", 42, 8, 0},
		{"1/016", "1/16", 1, 16, 0},
		{"0x0/1", "0/1", 0, 1, 0},
		{"0xb/8", "11/8", 11, 8, 0},
		{"0X8F/8", "143/8", 143, 8, 0},
		{"0xb00/12", "2816/12", 2816, 12, 0},
		{"0xcc83/16", "52355/16", 52355, 16, 0},
		{"0x7c6bc4/23", "8154052/23", 8154052, 23, 0},
		{"0x000001/23", "1/23", 1, 23, 0},
		{"v0rbps7ay8ks/1", "v0rbps7ay8ks/1", 0, 1, 0x38a9e683bb4425ec},
		{"v0rbps7ay8ks/8", "v0rbps7ay8ks/8", 68, 8, 0x38a9e683bb4425ec},
		{"V0RBPS7AY8KS/16", "v0rbps7ay8ks/16", 17445, 16, 0x38a9e683bb4425ec},
		{"z0jndjt42op2/23", "z0jndjt42op2/23", 5486787, 23, 0x3ff596748ea77186},
		{"0u2r85hm2pt3/16", "0u2r85hm2pt3/16", MustParse("0u2r85hm2pt3").NodeCtr() >> 8, 16, MustParse("0u2r85hm2pt3")},
		// A previous ID in the reserved tick 0 is only a node ID.
		{"00000001mzuo/8", "42/8", 42, 8, 0},
		{"000000000001/1", "0/1", 0, 1, 0}, // its counter bits go
	} {
		spec, err := ParseNodeSpec(tc.in)
		if err != nil {
			t.Errorf("%q: %v", tc.in, err)
			continue
		}
		if spec.NodeID() != tc.nodeID || spec.NodeIDSize() != tc.size || spec.NodePrev() != tc.prev || spec.String() != tc.canonical {
			t.Errorf("%q: node %d size %d prev %s string %q; want %d %d %s %q", tc.in,
				spec.NodeID(), spec.NodeIDSize(), spec.NodePrev(), spec, tc.nodeID, tc.size, tc.prev, tc.canonical)
		}
		// The canonical string parses to the same spec, as the
		// constructors make it.
		again, err := ParseNodeSpec(spec.String())
		if err != nil || again != spec {
			t.Errorf("%q: canonical %q parses to %q, %v", tc.in, spec, again, err)
		}
		var built NodeSpec
		if tc.prev != 0 {
			built, err = NewNodeSpecWithNodePrev(tc.prev, tc.size)
		} else {
			built, err = NewNodeSpecWithNodeID(tc.nodeID, tc.size)
		}
		if err != nil || built.String() != tc.canonical {
			t.Errorf("%q: constructor gives %q, %v", tc.in, built, err)
		}
		prev, size, err := naive.ParseSCRU64NodeSpec(tc.in)
		if prev>>24 == 0 {
			prev &^= 1<<(24-size) - 1 // a tick-0 previous ID is only a node ID
		}
		if err != nil || ID(prev) != spec.prev || size != spec.size {
			t.Errorf("%q: naive %#x/%d, %v; fast %#x/%d", tc.in, prev, size, err, uint64(spec.prev), spec.size)
		}
	}
}

// TestParseNodeSpecRejects pins every rejected form and what the error
// says about it.
func TestParseNodeSpecRejects(t *testing.T) {
	for _, tc := range []struct{ in, reason string }{
		{"", "no slash"},
		{"42", "no slash"},
		{"/8", "no node ID before the slash"},
		{"42/", "no node ID size after the slash"},
		{" 42/8", `node ID " 42" is not a decimal number`},
		{"42/8 ", `node ID size "8 " is not a decimal number`},
		{" 42/8 ", `node ID size "8 " is not a decimal number`},
		{"42 / 8", `node ID size " 8" is not a decimal number`},
		{"+42/8", `node ID "+42" is not a decimal number`},
		{"-42/8", `node ID "-42" is not a decimal number`},
		{"42/+8", `node ID size "+8" is not a decimal number`},
		{"42/-8", `node ID size "-8" is not a decimal number`},
		{"ab/8", `node ID "ab" is not a decimal number`},
		{"1/2/3", `node ID size "2/3" is not a decimal number`},
		{"0/0", "node ID size 0 is not in 1..23"},
		{"0/24", "node ID size 24 is not in 1..23"},
		{"8/1", "node ID 8 does not fit in 1 bits"},
		{"1024/8", "node ID 1024 does not fit in 8 bits"},
		{"8388608/23", "node ID 8388608 does not fit in 23 bits"},
		{"0x100/8", "node ID 256 does not fit in 8 bits"},
		{"1/0016", `node ID size "0016" has more than 3 digits`},
		{"42/800", "node ID size 800 is not in 1..23"},
		{"123456789/23", `decimal node ID "123456789" has more than 8 digits`},
		{"0000000000001/8", `decimal node ID "0000000000001" has more than 8 digits`},
		{"0x/8", `hexadecimal node ID "0x" does not have 1 to 6 digits`},
		{"0x1234567/23", `hexadecimal node ID "0x1234567" does not have 1 to 6 digits`},
		{"0xg/8", `hexadecimal node ID "0xg" has a byte outside [0-9a-fA-F]`},
		{"0x-1/8", `hexadecimal node ID "0x-1" has a byte outside [0-9a-fA-F]`},
		{"0u2r85hm2pt_/16", `12-character node "0u2r85hm2pt_" is not a previous ID`},
		{"42/8/", `node ID size "8/" is not a decimal number`},
		{"４２/8", `node ID "４２" is not a decimal number`},
	} {
		spec, err := ParseNodeSpec(tc.in)
		if err == nil {
			t.Errorf("%q accepted as %q", tc.in, spec)
			continue
		}
		var nse *NodeSpecError
		if !errors.Is(err, ErrInvalidNodeSpec) || !errors.As(err, &nse) || nse.Input != tc.in || spec != (NodeSpec{}) {
			t.Errorf("%q: error %#v, spec %q", tc.in, err, spec)
		}
		if !strings.Contains(err.Error(), tc.reason) || !strings.Contains(err.Error(), `"42/8"`) {
			t.Errorf("%q: error %q does not say %q and show an example", tc.in, err, tc.reason)
		}
		if _, _, err := naive.ParseSCRU64NodeSpec(tc.in); err == nil {
			t.Errorf("%q: the naive grammar accepts it", tc.in)
		}
	}
}

func TestNodeSpecConstructorsReject(t *testing.T) {
	for _, tc := range []struct {
		nodeID uint32
		size   uint8
		reason string
	}{
		{0, 0, "node ID size 0 is not in 1..23"},
		{0, 24, "node ID size 24 is not in 1..23"},
		{0, 255, "node ID size 255 is not in 1..23"},
		{2, 1, "node ID 2 does not fit in 1 bits"},
		{1 << 23, 23, "node ID 8388608 does not fit in 23 bits"},
		{1<<32 - 1, 23, "node ID 4294967295 does not fit"},
	} {
		_, err := NewNodeSpecWithNodeID(tc.nodeID, tc.size)
		if !errors.Is(err, ErrInvalidNodeSpec) || !strings.Contains(err.Error(), tc.reason) {
			t.Errorf("NewNodeSpecWithNodeID(%d, %d) error = %v", tc.nodeID, tc.size, err)
		}
	}
	for _, size := range []uint8{0, 24} {
		if _, err := NewNodeSpecWithNodePrev(1, size); !errors.Is(err, ErrInvalidNodeSpec) {
			t.Errorf("NewNodeSpecWithNodePrev(1, %d) error = %v", size, err)
		}
	}
	if _, err := NewNodeSpecWithNodePrev(Max+1, 8); !errors.Is(err, ErrInvalidNodeSpec) {
		t.Errorf("NewNodeSpecWithNodePrev(Max+1) error = %v", err)
	}
}

func TestNodeSpecText(t *testing.T) {
	var zero NodeSpec
	if !zero.IsZero() || zero.String() != "" || zero.NodeID() != 0 {
		t.Errorf("zero NodeSpec: %q", zero)
	}
	var cfg struct{ Node NodeSpec }
	if err := json.Unmarshal([]byte(`{"Node":"0xb/8"}`), &cfg); err != nil || cfg.Node.String() != "11/8" {
		t.Fatalf("json.Unmarshal = %q, %v", cfg.Node, err)
	}
	js, _ := json.Marshal(cfg)
	if string(js) != `{"Node":"11/8"}` {
		t.Fatalf("json.Marshal = %s", js)
	}
	before := cfg.Node
	if err := cfg.Node.UnmarshalText([]byte("0/24")); err == nil || cfg.Node != before {
		t.Fatalf("UnmarshalText of a bad spec: %q, %v", cfg.Node, err)
	}
}
