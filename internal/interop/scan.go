package interop

import (
	"encoding/binary"
	"unsafe"
)

// The Scan and UnmarshalBinary methods of the ID types. A 128-bit ID
// reads its text, its 16 bytes and the UUID text forms; a 64-bit ID reads
// an integer, its text, its 8 bytes and decimal text. Each format passes
// its text length and parser, and its errors. A parser is handed a []byte
// source as a string that shares its memory (bytesView), so it must keep
// nothing of its input, as the formats' Parse functions do not.

// UnmarshalBinary128 is the UnmarshalBinary method of a 128-bit ID type T:
// it reads the 16 bytes, or the text form of textLen bytes, parsed by
// parse, which some stores hand back for binary columns. Any other length
// is a length error of [FormBinary]. On error *id is left unchanged.
func UnmarshalBinary128[T ~[16]byte](id *T, data []byte, textLen int, parse func(string) (T, error), e *Errors) error {
	switch len(data) {
	case 16:
		*id = T(data)
		return nil
	case textLen:
		return set(id, parse, bytesView(data))
	}
	return e.Length(len(data), FormBinary)
}

// UnmarshalBinary64 is the UnmarshalBinary method of a 64-bit ID type T
// whose values run from 0 to max: it reads the 8 big-endian bytes (a
// value above max is e.Range), or the text form of textLen bytes, parsed
// by parse. Any other length is a length error of [FormBinary]. On error
// *id is left unchanged.
func UnmarshalBinary64[T ~int64 | ~uint64](id *T, data []byte, max uint64, textLen int, parse func(string) (T, error), e *Errors) error {
	switch len(data) {
	case 8:
		n := binary.BigEndian.Uint64(data)
		if n > max {
			return e.Range
		}
		*id = T(n)
		return nil
	case textLen:
		return set(id, parse, bytesView(data))
	}
	return e.Length(len(data), FormBinary)
}

// set parses s into *id, which it leaves unchanged on error.
func set[T any](id *T, parse func(string) (T, error), s string) error {
	v, err := parse(s)
	if err != nil {
		return err
	}
	*id = v
	return nil
}

// Scan128 is the Scan method of a 128-bit ID type T whose text form is
// textLen bytes, parsed by parse. As a string or []byte it accepts the
// text form and the UUID forms ([ParseUUID]), which it tells apart by length;
// as a []byte also the 16 raw bytes. SQL NULL is e.ScanNull and any other
// source type [ScanTypeError]. On error *id is left unchanged; src is not
// retained.
func Scan128[T ~[16]byte](id *T, src any, textLen int, parse func(string) (T, error), e *Errors) error {
	var s string
	form := FormScan
	switch src := src.(type) {
	case string:
		s = src
	case []byte:
		if len(src) == 16 {
			*id = T(src)
			return nil
		}
		s, form = bytesView(src), FormScanBytes
	case nil:
		return e.ScanNull
	default:
		return ScanTypeError(src, e)
	}
	if len(s) == textLen {
		return set(id, parse, s)
	}
	u, err := ParseUUID(s, form, e)
	if err != nil {
		return err
	}
	*id = T(u)
	return nil
}

// Scan64 is the Scan method of a 64-bit ID type T whose values run from 0
// to max and whose text form is textLen bytes, parsed by parse. It accepts
// an int64 or a uint64; as a string or []byte the text form, or else
// decimal text ([ParseDecimal]), told apart by length; and as a []byte also
// the 8 big-endian bytes. A negative integer and any value above max are
// e.Range. SQL NULL is e.ScanNull and any other source type
// [ScanTypeError]. On error *id is left unchanged; src is not retained.
//
// Input of all digits can have two readings: textLen digits are the text
// form and decimal text, and 8 digits given as a []byte the binary form
// and decimal text (the driver hands a text column and a binary one alike
// as a []byte, and a string decides nothing either). Where both readings
// are IDs and they differ, Scan64 takes neither and returns e.Ambiguous
// with both, unless textDecides is set: then textLen bytes are always the
// text form, for a format whose writers never produce a decimal of textLen
// digits. Where only one reading is an ID, that one is taken. An integer
// source has one reading: its type decides.
func Scan64[T ~int64 | ~uint64](id *T, src any, max uint64, textLen int, parse func(string) (T, error), textDecides bool, e *Errors) error {
	var n uint64
	switch src := src.(type) {
	case int64:
		if src < 0 {
			return e.Range
		}
		n = uint64(src)
	case uint64:
		n = src
	case string:
		return scanText64(id, src, FormScan, max, textLen, parse, textDecides, e)
	case []byte:
		if len(src) == 8 {
			return scanBinary64(id, src, max, textLen, parse, e)
		}
		return scanText64(id, bytesView(src), FormScanBytes, max, textLen, parse, textDecides, e)
	case nil:
		return e.ScanNull
	default:
		return ScanTypeError(src, e)
	}
	if n > max {
		return e.Range
	}
	*id = T(n)
	return nil
}

// scanText64 is [Scan64] for text: the text form, or decimal text.
func scanText64[T ~int64 | ~uint64](id *T, s string, form Form, max uint64, textLen int, parse func(string) (T, error), textDecides bool, e *Errors) error {
	if len(s) == textLen {
		v, err := parse(s)
		if textDecides {
			if err != nil {
				return err
			}
			*id = v
			return nil
		}
		// A text form has letters but for a few IDs, so the loop that
		// looks for a second reading mostly stops within a few bytes.
		d, digits := Digits(s)
		switch {
		case !digits || d > max:
			if err != nil {
				return err
			}
		case err != nil:
			v = T(d) // the text form is no ID; decimal text is
		case uint64(v) != d:
			return e.Ambiguous(false, uint64(v), d)
		}
		*id = v
		return nil
	}
	n, err := ParseDecimal(s, form, max, e)
	if err != nil {
		return err
	}
	*id = T(n)
	return nil
}

// scanBinary64 is [Scan64] for 8 bytes given as a []byte: the binary form,
// unless they are 8 digits, which are decimal text too.
func scanBinary64[T ~int64 | ~uint64](id *T, b []byte, max uint64, textLen int, parse func(string) (T, error), e *Errors) error {
	d, digits := Digits(b)
	if !digits {
		return UnmarshalBinary64(id, b, max, textLen, parse, e)
	}
	// 8 digits, 0x30 to 0x39 each, read as bytes give a value from
	// 0x3030303030303030 up: never the decimal reading, below 10^8.
	if v := binary.BigEndian.Uint64(b); v <= max {
		return e.Ambiguous(true, v, d)
	}
	if d > max {
		return e.Range
	}
	*id = T(d)
	return nil
}

// Digits returns the value of s if s is one or more digits 0-9 and nothing
// else, and whether it is; more than 19 digits, which may not fit 64 bits,
// are reported as no digits. It does not allocate.
func Digits[S text](s S) (uint64, bool) {
	if len(s) == 0 || len(s) > 19 {
		return 0, false
	}
	var v uint64
	for i := range len(s) {
		d := s[i] - '0'
		if d > 9 {
			return 0, false
		}
		v = v*10 + uint64(d)
	}
	return v, true
}

// bytesView returns the bytes of b as a string without copying them, for
// parsers that keep no reference to their input.
func bytesView(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }
