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
func Scan64[T ~int64 | ~uint64](id *T, src any, max uint64, textLen int, parse func(string) (T, error), e *Errors) error {
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
		return scanText64(id, src, FormScan, max, textLen, parse, e)
	case []byte:
		if len(src) == 8 {
			return UnmarshalBinary64(id, src, max, textLen, parse, e)
		}
		return scanText64(id, bytesView(src), FormScanBytes, max, textLen, parse, e)
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
func scanText64[T ~int64 | ~uint64](id *T, s string, form Form, max uint64, textLen int, parse func(string) (T, error), e *Errors) error {
	if len(s) == textLen {
		return set(id, parse, s)
	}
	n, err := ParseDecimal(s, form, max, e)
	if err != nil {
		return err
	}
	*id = T(n)
	return nil
}

// bytesView returns the bytes of b as a string without copying them, for
// parsers that keep no reference to their input.
func bytesView(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }
