package interop

import "fmt"

// JSONBytes16 reads the form encoding/json gave a 16-byte array type
// without JSON methods (a Binary before it had them): a JSON array of
// exactly 16 integers from 0 to 255, with JSON whitespace anywhere between
// the tokens and after the closing bracket. isArray reports whether data
// begins with '[', ok whether it is such an array. A number with a sign, a
// fraction, an exponent or a leading zero is not a byte here. It does not
// allocate.
func JSONBytes16(data []byte) (b [16]byte, isArray, ok bool) {
	if len(data) == 0 || data[0] != '[' {
		return b, false, false
	}
	i := skipSpace(data, 1)
	for n := range 16 {
		if n > 0 {
			if i >= len(data) || data[i] != ',' {
				return b, true, false
			}
			i = skipSpace(data, i+1)
		}
		start, v := i, 0
		for i < len(data) && '0' <= data[i] && data[i] <= '9' && i-start < 3 {
			v = v*10 + int(data[i]-'0')
			i++
		}
		// One to three digits, no leading zero, at most 255, and not
		// followed by more of a number (a fourth digit, '.', 'e').
		if i == start || (data[start] == '0' && i-start > 1) || v > 255 ||
			(i < len(data) && (data[i] == '.' || data[i] == 'e' || data[i] == 'E' || '0' <= data[i] && data[i] <= '9')) {
			return b, true, false
		}
		b[n] = byte(v)
		i = skipSpace(data, i)
	}
	if i >= len(data) || data[i] != ']' {
		return b, true, false
	}
	return b, true, skipSpace(data, i+1) == len(data)
}

// skipSpace returns the index of the first byte of data at or after i that
// is not JSON whitespace.
func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return i
}

// JSONValueError wraps err, which says what the type takes, with a short
// quote of the JSON value found instead.
func JSONValueError(data []byte, err error) error {
	const limit = 40
	quoted := data
	if len(quoted) > limit {
		quoted = quoted[:limit]
	}
	return fmt.Errorf("%w, got %q", err, string(quoted)) // a copy: data must not escape
}
