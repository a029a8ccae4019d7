// Package uint128 holds what the 128-bit ID types (scru128.ID, ulid.ULID
// and legacy.ID) share as 16 big-endian bytes: their order as unsigned
// integers.
package uint128

import "encoding/binary"

// Compare returns -1, 0 or +1 as a is less than, equal to or greater than
// b, both read as 128-bit big-endian unsigned integers, which is the order
// of bytes.Compare on the 16 bytes. It takes an ID of any of the three
// types, which are all assignable to [16]byte.
//
// Comparing the two 64-bit halves inlines into the callers' Compare
// methods and takes two thirds of the instructions of bytes.Compare, whose
// out-of-line call dominates at this size; cmp.Compare on the halves does
// not fit the inlining budget and costs more too. BenchmarkCompare in each
// of the three packages measures it.
func Compare(a, b [16]byte) int {
	ah, al := binary.BigEndian.Uint64(a[0:8]), binary.BigEndian.Uint64(a[8:16])
	bh, bl := binary.BigEndian.Uint64(b[0:8]), binary.BigEndian.Uint64(b[8:16])
	switch {
	case ah < bh:
		return -1
	case ah > bh:
		return 1
	case al < bl:
		return -1
	case al > bl:
		return 1
	}
	return 0
}
