package naive

import (
	"encoding/hex"
	"errors"
	"math/big"
	"strings"
)

// The reference of what Scan accepts besides each format's own text: the
// UUID text forms of 16 bytes, decimal text of a 64-bit integer, and the
// rules that tell the forms apart by length.

// DecodeUUID parses the 36-character form 8-4-4-4-12 (hyphens at offsets
// 8, 13, 18 and 23, hexadecimal digits everywhere else) or 32 hexadecimal
// digits, either case, with encoding/hex. It returns [ErrInvalidLength] for
// any other length, or [ErrInvalidCharacter] with the offset of the first
// byte that is not what its position calls for.
func DecodeUUID(s []byte) ([16]byte, int, error) {
	var u [16]byte
	var hyphens []int
	switch len(s) {
	case 36:
		hyphens = []int{8, 13, 18, 23}
	case 32:
	default:
		return u, -1, ErrInvalidLength
	}
	var digits []byte
	for i, c := range s {
		wantHyphen := false
		for _, h := range hyphens {
			wantHyphen = wantHyphen || i == h
		}
		switch {
		case wantHyphen && c == '-':
		case !wantHyphen && strings.IndexByte("0123456789abcdefABCDEF", c) >= 0:
			digits = append(digits, c)
		default:
			return u, i, ErrInvalidCharacter
		}
	}
	if _, err := hex.Decode(u[:], digits); err != nil {
		panic("naive: encoding/hex rejected validated digits")
	}
	return u, -1, nil
}

// DecodeDecimal parses one or more digits 0-9, nothing else, with
// math/big. It returns [ErrInvalidLength] for no digits, [ErrInvalidCharacter]
// with the offset of the first other byte, or [ErrOutOfRange] for a value
// above max.
func DecodeDecimal(s []byte, max uint64) (uint64, int, error) {
	if len(s) == 0 {
		return 0, -1, ErrInvalidLength
	}
	for i, c := range s {
		if c < '0' || c > '9' {
			return 0, i, ErrInvalidCharacter
		}
	}
	n, _ := new(big.Int).SetString(string(s), 10)
	if n.Cmp(new(big.Int).SetUint64(max)) > 0 {
		return 0, -1, ErrOutOfRange
	}
	return n.Uint64(), -1, nil
}

// Scan128 is the reference Scan of a 128-bit format for a string source
// (isBytes false) or a []byte one: 16 bytes given as []byte are the raw
// form; textLen bytes are the format's text, which text decodes; 36 or 32
// bytes a UUID form; any other length is [ErrInvalidLength].
func Scan128(s []byte, isBytes bool, textLen int, text func([]byte) ([16]byte, int, error)) ([16]byte, int, error) {
	switch {
	case isBytes && len(s) == 16:
		return [16]byte(s), -1, nil
	case len(s) == textLen:
		return text(s)
	}
	return DecodeUUID(s)
}

// ErrAmbiguous is the reference's error for input that reads as two
// different IDs; the error returned is an [*AmbiguousError] that wraps it.
var ErrAmbiguous = errors.New("naive: reads as two IDs")

// AmbiguousError holds the two readings of input of all digits: as the
// binary form (Binary set) or the text form, and as decimal text.
type AmbiguousError struct {
	Binary            bool
	AsForm, AsDecimal uint64
}

// Error returns ErrAmbiguous's text.
func (e *AmbiguousError) Error() string { return ErrAmbiguous.Error() }

// Unwrap returns ErrAmbiguous.
func (e *AmbiguousError) Unwrap() error { return ErrAmbiguous }

// Scan64 is the reference Scan of a 64-bit format for a string source
// (isBytes false) or a []byte one. The input may be in the binary form (8
// bytes given as []byte, big-endian, [ErrOutOfRange] above max), the
// format's text (textLen bytes, which text decodes) or decimal text; a
// length that is neither of the first two is decimal text alone. Input of
// the binary or text form's length that is all digits has a second
// reading, as decimal text: if both readings are IDs and differ, the
// result is an [*AmbiguousError]; if one is, that one; if neither, the
// error of the binary or text reading. With textDecides the text form's
// length is the text form alone.
func Scan64(s []byte, isBytes bool, textLen int, text func([]byte) (uint64, int, error), max uint64, textDecides bool) (uint64, int, error) {
	var form uint64
	var formOffset int
	var formErr error
	binary := isBytes && len(s) == 8
	switch {
	case binary:
		v := new(big.Int).SetBytes(s)
		if v.Cmp(new(big.Int).SetUint64(max)) > 0 {
			formOffset, formErr = -1, ErrOutOfRange
		} else {
			form, formOffset = v.Uint64(), -1
		}
	case len(s) == textLen:
		form, formOffset, formErr = text(s)
		if textDecides {
			return form, formOffset, formErr
		}
	default:
		return DecodeDecimal(s, max)
	}
	allDigits := len(s) > 0
	for _, c := range s {
		allDigits = allDigits && '0' <= c && c <= '9'
	}
	if !allDigits {
		return form, formOffset, formErr
	}
	decimal, _, decimalErr := DecodeDecimal(s, max)
	switch {
	case formErr != nil && decimalErr != nil:
		return form, formOffset, formErr
	case formErr != nil:
		return decimal, -1, nil
	case decimalErr != nil, form == decimal:
		return form, formOffset, nil
	}
	return 0, -1, &AmbiguousError{Binary: binary, AsForm: form, AsDecimal: decimal}
}
