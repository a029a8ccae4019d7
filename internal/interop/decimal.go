package interop

import "math/bits"

// ParseDecimal parses s as a non-negative decimal integer of one or more
// digits 0-9, nothing else: no sign, no spaces, no point, no exponent;
// leading zeros are allowed. It is what a database that stores an integer
// in a text column (SQLite does) hands back to Scan. An empty s is a
// length error of form; a byte other than a digit is e.Char with the
// offset of the first one; a value above max is e.Range (also for any
// number of digits past what 64 bits hold, after every byte has been
// checked). It does not allocate on success.
func ParseDecimal[T text](s T, form Form, max uint64, e *Errors) (uint64, error) {
	if len(s) == 0 {
		return 0, e.Length(0, form)
	}
	var v uint64
	overflow := false
	for i := range len(s) {
		d := s[i] - '0'
		if d > 9 {
			c, r, size := CharAt(s, i)
			return 0, e.Char(i, c, r, size)
		}
		hi, lo := bits.Mul64(v, 10)
		sum, carry := bits.Add64(lo, uint64(d), 0)
		if hi != 0 || carry != 0 {
			overflow = true
		}
		v = sum
	}
	if overflow || v > max {
		return 0, e.Range
	}
	return v, nil
}
