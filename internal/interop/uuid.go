package interop

// The UUID text forms: 36 characters, 8-4-4-4-12 hexadecimal digits
// separated by hyphens (what PostgreSQL's uuid type, CockroachDB and
// MySQL's BIN_TO_UUID return), or the same 32 digits without hyphens.
// Digits may be upper or lower case. Nothing else of those lengths is a
// UUID: no braces, no urn:uuid: prefix, no hyphens elsewhere.

// hexValues maps a byte to its hexadecimal digit value, or notHex.
var hexValues = func() (t [256]byte) {
	for i := range t {
		t[i] = notHex
	}
	for i := range byte(10) {
		t['0'+i] = i
	}
	for i := range byte(6) {
		t['a'+i], t['A'+i] = 10+i, 10+i
	}
	return t
}()

const notHex = 0xff

// hyphenated holds, for each byte of the 36-character form, whether it is
// a hyphen (true) or a digit.
var hyphenated = [36]bool{8: true, 13: true, 18: true, 23: true}

// HyphenAt reports whether the 36-character UUID form has a hyphen at
// index i, for callers that say what belonged where ParseUUID met a bad
// character.
func HyphenAt(i int) bool { return 0 <= i && i < len(hyphenated) && hyphenated[i] }

// ParseUUID parses the 36-character hyphenated form or the 32-digit hex
// form into 16 bytes, big-endian as written. Any other length is a length
// error of form (the Scan that called it); a byte that is not a
// hexadecimal digit where one belongs, or not a hyphen where one belongs,
// is e.Char with its offset (the first such byte). It does not allocate on
// success.
func ParseUUID[T text](s T, form Form, e *Errors) (u [16]byte, err error) {
	var hyphens bool
	switch len(s) {
	case 32:
	case 36:
		hyphens = true
	default:
		return u, e.Length(len(s), form)
	}
	var acc byte // bits set in any digit value, to catch notHex once
	j := 0       // next input byte
	for i := range u {
		if hyphens && hyphenated[j] {
			if s[j] != '-' {
				return [16]byte{}, badUUID(s, hyphens, e)
			}
			j++
		}
		hi, lo := hexValues[s[j]], hexValues[s[j+1]]
		acc |= hi | lo
		u[i] = hi<<4 | lo
		j += 2
	}
	if acc&0xf0 != 0 { // notHex has high bits; digit values do not
		return [16]byte{}, badUUID(s, hyphens, e)
	}
	return u, nil
}

// badUUID finds the first byte of s that is out of place, for [ParseUUID]'s
// error. It is kept out of line so that ParseUUID stays small.
//
//go:noinline
func badUUID[T text](s T, hyphens bool, e *Errors) error {
	for i := range len(s) {
		wantHyphen := hyphens && hyphenated[i]
		if wantHyphen != (s[i] == '-') || !wantHyphen && hexValues[s[i]] == notHex {
			c, r, size := CharAt(s, i)
			return e.Char(i, c, r, size)
		}
	}
	return e.Range // not reached: ParseUUID calls it only with a bad byte
}
