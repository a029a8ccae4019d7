package scru64

import "strconv"

// NodeSpec is a generator's node configuration: its node_id and
// node_id_size, and optionally node_prev, an ID the generator has to
// continue after. It is written as a node spec string: a decimal node ID, a
// hexadecimal one after "0x", or a 12-digit previous ID, then a slash and
// the decimal node ID size from 1 to 23, for example "42/8", "0xb00/12" or
// "0u2r85hm2pt3/16". A previous ID carries the node ID in the leading size
// bits of its node_ctr field.
//
// The zero NodeSpec is not a usable configuration: make one with
// [ParseNodeSpec], [NewNodeSpecWithNodeID] or [NewNodeSpecWithNodePrev]. A
// NodeSpec is a small value, safe to copy and compare with ==.
type NodeSpec struct {
	// prev is node_prev, or for a fresh node an ID with timestamp 0 and
	// the node ID in place, which any real timestamp moves past.
	prev ID
	size uint8 // node_id_size; 0 only in the zero NodeSpec
}

// maxNodeIDSize is the largest node_id_size: the counter keeps at least
// one bit.
const maxNodeIDSize = nodeCtrSize - 1

// NewNodeSpecWithNodeID returns the [NodeSpec] of a fresh node with the given
// node ID and node ID size. It returns a [*NodeSpecError] (matching
// [ErrInvalidNodeSpec]) if nodeIDSize is not in 1..23 or nodeID does not fit
// in nodeIDSize bits.
func NewNodeSpecWithNodeID(nodeID uint32, nodeIDSize uint8) (NodeSpec, error) {
	if reason := checkNodeID(uint64(nodeID), nodeIDSize); reason != "" {
		return NodeSpec{}, &NodeSpecError{Input: pairString(uint64(nodeID), nodeIDSize), Reason: reason}
	}
	return NodeSpec{prev: ID(nodeID) << (nodeCtrSize - nodeIDSize), size: nodeIDSize}, nil
}

// NewNodeSpecWithNodePrev returns the [NodeSpec] of a node that continues
// after prev, an ID it (or a node with the same node ID) generated before;
// the node ID is the leading nodeIDSize bits of prev's node_ctr field. A
// generator made from it returns IDs greater than prev, provided the clock
// is not behind prev's timestamp by more than the rollback allowance. It
// returns a [*NodeSpecError] (matching [ErrInvalidNodeSpec]) if nodeIDSize is
// not in 1..23 or prev is above [Max].
func NewNodeSpecWithNodePrev(prev ID, nodeIDSize uint8) (NodeSpec, error) {
	input := func() string {
		b, _ := prev.AppendText(nil)
		return string(b) + "/" + strconv.Itoa(int(nodeIDSize))
	}
	if reason := checkSize(nodeIDSize); reason != "" {
		return NodeSpec{}, &NodeSpecError{Input: input(), Reason: reason}
	}
	if prev > Max {
		return NodeSpec{}, &NodeSpecError{Input: input(), Reason: "previous ID " +
			strconv.FormatUint(uint64(prev), 10) + " is above the largest ID (36^12-1)"}
	}
	return withPrev(prev, nodeIDSize), nil
}

// withPrev returns the [NodeSpec] for prev and size, both valid. A previous ID
// in the reserved tick 0 is no ID at all: only its node ID counts, and the
// counter bits are dropped so that the spec equals its canonical form.
func withPrev(prev ID, size uint8) NodeSpec {
	if prev.Timestamp() == 0 {
		prev &^= 1<<(nodeCtrSize-size) - 1
	}
	return NodeSpec{prev: prev, size: size}
}

// checkSize returns why size is not a node ID size, or "".
func checkSize(size uint8) string {
	if size < 1 || size > maxNodeIDSize {
		return "node ID size " + strconv.Itoa(int(size)) + " is not in 1..23"
	}
	return ""
}

// checkNodeID returns why nodeID and size do not make a node, or "".
func checkNodeID(nodeID uint64, size uint8) string {
	if reason := checkSize(size); reason != "" {
		return reason
	}
	if nodeID >= 1<<size {
		return "node ID " + strconv.FormatUint(nodeID, 10) + " does not fit in " +
			strconv.Itoa(int(size)) + " bits (the largest is " + strconv.Itoa(1<<size-1) + ")"
	}
	return ""
}

func pairString(nodeID uint64, size uint8) string {
	return strconv.FormatUint(nodeID, 10) + "/" + strconv.Itoa(int(size))
}

// ParseNodeSpec parses a node spec string: "42/8" (decimal node ID, 1 to 8
// digits), "0xb00/12" (hexadecimal node ID after 0x or 0X, 1 to 6 digits,
// either case) or "0u2r85hm2pt3/16" (a 12-digit previous ID), where the
// number after the slash is the node ID size, 1 to 3 decimal digits with a
// value from 1 to 23. Nothing else is accepted: no spaces, signs or extra
// slashes. It returns a [*NodeSpecError] (matching [ErrInvalidNodeSpec]) that
// says what is wrong.
func ParseNodeSpec(s string) (NodeSpec, error) {
	fail := func(reason string) (NodeSpec, error) {
		return NodeSpec{}, &NodeSpecError{Input: s, Reason: reason}
	}
	slash := -1
	for i := range len(s) {
		if s[i] == '/' {
			slash = i
			break
		}
	}
	if slash < 0 {
		return fail("no slash between node ID and node ID size")
	}
	head, tail := s[:slash], s[slash+1:]

	// The node ID size: 1 to 3 decimal digits.
	if tail == "" {
		return fail("no node ID size after the slash")
	}
	if len(tail) > 3 {
		return fail("node ID size " + strconv.Quote(tail) + " has more than 3 digits")
	}
	size, ok := parseDigits(tail, 10)
	if !ok {
		return fail("node ID size " + strconv.Quote(tail) + " is not a decimal number")
	}
	if size < 1 || size > maxNodeIDSize {
		return fail("node ID size " + strconv.FormatUint(size, 10) + " is not in 1..23")
	}

	// The node: a previous ID, a hexadecimal or a decimal node ID.
	var nodeID uint64
	switch {
	case head == "":
		return fail("no node ID before the slash")
	case len(head) == 12:
		prev, err := Parse(head)
		if err != nil {
			return NodeSpec{}, &NodeSpecError{Input: s, Err: err,
				Reason: "12-character node " + strconv.Quote(head) + " is not a previous ID"}
		}
		return withPrev(prev, uint8(size)), nil
	case len(head) >= 2 && head[0] == '0' && (head[1] == 'x' || head[1] == 'X'):
		digits := head[2:]
		if len(digits) < 1 || len(digits) > 6 {
			return fail("hexadecimal node ID " + strconv.Quote(head) + " does not have 1 to 6 digits after 0x")
		}
		if nodeID, ok = parseDigits(digits, 16); !ok {
			return fail("hexadecimal node ID " + strconv.Quote(head) + " has a byte outside [0-9a-fA-F] after 0x")
		}
	default:
		if nodeID, ok = parseDigits(head, 10); !ok {
			return fail("node ID " + strconv.Quote(head) +
				" is not a decimal number, a hexadecimal one after 0x or a 12-digit previous ID")
		}
		if len(head) > 8 {
			return fail("decimal node ID " + strconv.Quote(head) + " has more than 8 digits")
		}
	}
	if reason := checkNodeID(nodeID, uint8(size)); reason != "" {
		return fail(reason)
	}
	return NodeSpec{prev: ID(nodeID) << (nodeCtrSize - size), size: uint8(size)}, nil
}

// parseDigits returns the value of s, at most 8 digits in base 10 or 16, and
// whether every byte is such a digit. Unlike strconv it takes no sign, no
// prefix and no underscores.
func parseDigits(s string, base uint64) (uint64, bool) {
	var v uint64
	for i := range len(s) {
		c := s[i]
		var d uint64
		switch {
		case '0' <= c && c <= '9':
			d = uint64(c - '0')
		case base == 16 && 'a' <= c|0x20 && c|0x20 <= 'f':
			d = uint64(c|0x20-'a') + 10
		default:
			return 0, false
		}
		v = v*base + d
	}
	return v, true
}

// NodeID returns the node ID: given, or the leading NodeIDSize bits of the
// previous ID's node_ctr field.
func (n NodeSpec) NodeID() uint32 {
	if n.size == 0 {
		return 0
	}
	return n.prev.NodeCtr() >> (nodeCtrSize - n.size)
}

// NodeIDSize returns the node ID size in bits, 1 to 23, or 0 for the zero
// [NodeSpec].
func (n NodeSpec) NodeIDSize() uint8 { return n.size }

// NodePrev returns the previous ID the [NodeSpec] continues after, or 0 if it
// describes a fresh node.
func (n NodeSpec) NodePrev() ID {
	if n.prev.Timestamp() == 0 {
		return 0
	}
	return n.prev
}

// IsZero reports whether n is the zero [NodeSpec], which is not a usable
// configuration.
func (n NodeSpec) IsZero() bool { return n.size == 0 }

// String returns the canonical node spec string: "<previous ID>/<size>" if
// there is a previous ID, else "<decimal node ID>/<size>", so "0xb/8"
// becomes "11/8". It returns "" for the zero [NodeSpec].
func (n NodeSpec) String() string {
	b, _ := n.AppendText(nil)
	return string(b)
}

// AppendText appends the canonical node spec string (see String) to b. The
// error is always nil.
func (n NodeSpec) AppendText(b []byte) ([]byte, error) {
	switch {
	case n.size == 0:
		return b, nil
	case n.NodePrev() != 0:
		b, _ = n.prev.AppendText(b)
	default:
		b = strconv.AppendUint(b, uint64(n.NodeID()), 10)
	}
	b = append(b, '/')
	return strconv.AppendUint(b, uint64(n.size), 10), nil
}

// MarshalText returns the canonical node spec string (see String). The
// error is always nil.
func (n NodeSpec) MarshalText() ([]byte, error) { return n.AppendText(nil) }

// UnmarshalText parses a node spec string into n, as [ParseNodeSpec] does. On
// error n is left unchanged.
func (n *NodeSpec) UnmarshalText(b []byte) error {
	v, err := ParseNodeSpec(string(b))
	if err != nil {
		return err
	}
	*n = v
	return nil
}
