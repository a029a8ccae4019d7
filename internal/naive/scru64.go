package naive

import (
	"errors"
	"regexp"
	"strconv"
	"strings"
)

// SCRU64 reference: the codec through strconv's base 36, the node spec
// grammar as one regular expression, and the generator as the
// specification states it, one plain step at a time.

const (
	// SCRU64Max is the largest SCRU64 ID, 36^12-1.
	SCRU64Max = 4738381338321616895
	// SCRU64MaxTimestamp is the largest timestamp field, 36^12/2^24 - 1.
	// It is reserved, as is 0.
	SCRU64MaxTimestamp = 282429536480
	// SCRU64MinTimestamp is the smallest timestamp the generator mints:
	// the first tick whose IDs are all 10^12 or more (10^12 / 2^24,
	// rounded up), so that no ID minted has a 12-digit decimal text.
	SCRU64MinTimestamp = (1_000_000_000_000 + 1<<24 - 1) / (1 << 24)
)

// ErrInvalidNodeSpec is the reference's one error for a rejected node spec.
var ErrInvalidNodeSpec = errors.New("naive: invalid node spec")

// EncodeSCRU64 returns the 12-digit Base36 text of an ID up to [SCRU64Max].
func EncodeSCRU64(id uint64) string {
	text := strconv.FormatUint(id, 36)
	return strings.Repeat("0", 12-len(text)) + text
}

// DecodeSCRU64 parses 12 Base36 digits, ignoring case, with strconv. It
// returns [ErrInvalidLength], or [ErrInvalidCharacter] with the offset of the
// first bad byte. Twelve digits never exceed [SCRU64Max].
func DecodeSCRU64(s []byte) (uint64, int, error) {
	if len(s) != 12 {
		return 0, -1, ErrInvalidLength
	}
	for i, c := range s {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
			return 0, i, ErrInvalidCharacter
		}
	}
	v, err := strconv.ParseUint(string(s), 36, 64)
	if err != nil || v > SCRU64Max {
		panic("naive: strconv rejected 12 validated digits")
	}
	return v, -1, nil
}

// nodeSpecPattern is the node spec grammar of the reference implementations:
// a 12-digit previous ID, a decimal node ID of 1 to 8 digits, or 0x and a
// hexadecimal one of 1 to 6 digits; a slash; a node ID size of 1 to 3
// decimal digits.
var nodeSpecPattern = regexp.MustCompile(`^(?:([0-9A-Za-z]{12})|([0-9]{1,8})|0[Xx]([0-9A-Fa-f]{1,6}))/([0-9]{1,3})$`)

// ParseSCRU64NodeSpec parses a node spec string into the generator's
// initial previous ID (the node ID in place, timestamp 0, for the node ID
// forms) and the node ID size, or returns [ErrInvalidNodeSpec].
func ParseSCRU64NodeSpec(s string) (prev uint64, nodeIDSize uint8, err error) {
	m := nodeSpecPattern.FindStringSubmatch(s)
	if m == nil {
		return 0, 0, ErrInvalidNodeSpec
	}
	size, _ := strconv.Atoi(m[4])
	if size < 1 || size > 23 {
		return 0, 0, ErrInvalidNodeSpec
	}
	var nodeID uint64
	switch {
	case m[1] != "":
		prev, _, err := DecodeSCRU64([]byte(m[1]))
		return prev, uint8(size), err
	case m[2] != "":
		nodeID, _ = strconv.ParseUint(m[2], 10, 64)
	default:
		nodeID, _ = strconv.ParseUint(m[3], 16, 64)
	}
	if nodeID >= 1<<size {
		return 0, 0, ErrInvalidNodeSpec
	}
	return nodeID << (24 - size), uint8(size), nil
}

// SCRU64Core is a SCRU64 generator as the specification describes it: the
// previous ID is the whole state. Renew supplies each renewed counter.
type SCRU64Core struct {
	Prev       uint64
	NodeIDSize uint8
	Renew      func(counterSize uint8, timestamp uint64, nodeID uint32) uint32
}

// Generate returns the next ID for a Unix time in milliseconds, with the
// rollback allowance in milliseconds, in the OrAbort form (abort set) or
// the OrReset form. It returns [ErrInvalidTimestamp] instead of an ID whose
// timestamp would be below [SCRU64MinTimestamp] or [SCRU64MaxTimestamp]
// (reserved) or beyond, and
// [ErrClockRollback] in the OrAbort form. On error the state is unchanged.
func (c *SCRU64Core) Generate(unixMillis, allowanceMillis uint64, abort bool) (uint64, error) {
	timestamp := unixMillis / 256
	allowance := allowanceMillis / 256
	if timestamp < SCRU64MinTimestamp || timestamp >= SCRU64MaxTimestamp {
		return 0, ErrInvalidTimestamp
	}
	counterSize := 24 - c.NodeIDSize
	prevTimestamp := c.Prev / (1 << 24)
	nodeID := uint32(c.Prev % (1 << 24) / (1 << counterSize))
	counter := uint32(c.Prev % (1 << counterSize))
	renew := func(timestamp uint64) uint32 {
		// Only the low counterSize bits of a renewal count.
		return c.Renew(counterSize, timestamp, nodeID) % (1 << counterSize)
	}

	switch {
	case timestamp > prevTimestamp:
		// The clock moved on: a new tick and a renewed counter.
		counter = renew(timestamp)
	case timestamp+allowance >= prevTimestamp:
		// The same tick, or a rollback within the allowance: go on from
		// the previous timestamp.
		timestamp = prevTimestamp
		if counter+1 < 1<<counterSize && timestamp < SCRU64MaxTimestamp {
			counter++
		} else {
			// Counter overflow: the next tick, a renewed counter.
			timestamp++
			if timestamp >= SCRU64MaxTimestamp {
				return 0, ErrInvalidTimestamp
			}
			counter = renew(timestamp)
		}
	case abort:
		return 0, ErrClockRollback
	default:
		// Reset: go on from the given timestamp.
		counter = renew(timestamp)
	}
	c.Prev = timestamp*(1<<24) + uint64(nodeID)*(1<<counterSize) + uint64(counter)
	return c.Prev, nil
}

// DecodeSCRU64Steps turns a fuzz input into a node configuration, a
// sequence of generator calls and the byte stream their counter renewals
// draw from, 4 bytes each. The first byte gives the node ID size (1 to 23)
// and the second the number of calls (1 to 64); the node ID comes from the
// next 3 bytes. Each call then takes three bytes: an operation byte (bit 0:
// the OrAbort form; bits 1-3: how the time moves; bits 4-6: the allowance)
// and a 16-bit value v. Times move within a tick, across one, back within
// and beyond any allowance, to invalid values, around the first tick
// minted and around the reserved last tick; allowances include 0, under one tick and more than any time.
func DecodeSCRU64Steps(data []byte) (nodeIDSize uint8, nodeID uint32, steps []Step, stream []byte) {
	if len(data) < 5 {
		return 1, 0, nil, nil
	}
	nodeIDSize = data[0]%23 + 1
	n := int(data[1]%64) + 1
	nodeID = (uint32(data[2])<<16 | uint32(data[3])<<8 | uint32(data[4])) % (1 << nodeIDSize)
	data = data[5:]
	const top = SCRU64MaxTimestamp * 256 // first millisecond of the reserved tick
	prev := uint64(1_700_000_000_000)
	for ; n > 0 && len(data) >= 3; n-- {
		op, v := data[0], uint64(data[1])<<8|uint64(data[2])
		data = data[3:]
		var ms uint64
		switch op >> 1 & 7 {
		case 0:
			ms = prev
		case 1:
			ms = prev + v%300 // within the tick or into the next
		case 2:
			ms = prev + v*64
		case 3:
			ms = prev - v%4096 // back by up to 16 ticks
		case 4:
			ms = prev - v*1024 // may pass any allowance
		case 5:
			if v&1 == 0 {
				ms = v % 1024 // includes tick 0, which is invalid
			} else {
				ms = SCRU64MinTimestamp*256 - 2048 + v%4096 // around the first tick minted
			}
		case 6:
			ms = top - 2048 + v%4096 // around the reserved last tick
		case 7:
			ms = top*(v%2) + v // far past it, or small
		}
		allowances := [8]uint64{10_000, 0, 255, 256, 1000, v * 16, 1 << 63, 1<<64 - 1}
		steps = append(steps, Step{ms, allowances[op>>4&7], op&1 == 1})
		if ms>>8 >= SCRU64MinTimestamp && ms>>8 < SCRU64MaxTimestamp {
			prev = ms
		}
	}
	return nodeIDSize, nodeID, steps, data
}
