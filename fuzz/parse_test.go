package fuzz

import (
	"errors"
	"testing"

	"github.com/fastid/scru128/internal/naive"
)

// parseErrors names one format's parse errors, so that checkParse can map
// the reference's outcome onto them.
type parseErrors struct {
	length, overflow, char error // overflow is nil for a format with no out-of-range text
	// badByte returns the offset and byte of the format's
	// *InvalidCharacterError in err.
	badByte func(err error) (offset int, char byte, ok bool)
}

// badByte adapts a format's *InvalidCharacterError to parseErrors.badByte.
func badByte[E error](fields func(E) (offset int, char byte)) func(error) (int, byte, bool) {
	return func(err error) (int, byte, bool) {
		var e E
		if !errors.As(err, &e) {
			return 0, 0, false
		}
		offset, char := fields(e)
		return offset, char, true
	}
}

// textParsers returns the three ways a format parses text: ParseBytes,
// Parse on a string, and UnmarshalText.
func textParsers[T any, PT interface {
	*T
	UnmarshalText([]byte) error
}](parseBytes func([]byte) (T, error), parse func(string) (T, error)) []func([]byte) (T, error) {
	return []func([]byte) (T, error){
		parseBytes,
		func(b []byte) (T, error) { return parse(string(b)) },
		func(b []byte) (id T, err error) { err = PT(&id).UnmarshalText(b); return id, err },
	}
}

// checkParse requires every parser to accept and reject data exactly as the
// reference did: on success with a value matching (as match decides), on
// failure with the same kind of error and, for a bad byte, the same offset
// and byte.
func checkParse[T any](t *testing.T, data []byte, wantErr error, wantOffset int, match func(T) bool,
	errs parseErrors, parsers []func([]byte) (T, error)) {
	t.Helper()
	for _, parse := range parsers {
		got, err := parse(data)
		switch {
		case wantErr == nil:
			if err != nil || !match(got) {
				t.Fatalf("%q: got %v, %v; the reference disagrees", data, got, err)
			}
		case errors.Is(wantErr, naive.ErrInvalidLength):
			if !errors.Is(err, errs.length) {
				t.Fatalf("%q: error %v, want %v", data, err, errs.length)
			}
		case errors.Is(wantErr, naive.ErrOutOfRange) && errs.overflow != nil:
			if !errors.Is(err, errs.overflow) {
				t.Fatalf("%q: error %v, want %v", data, err, errs.overflow)
			}
		case errors.Is(wantErr, naive.ErrInvalidCharacter):
			offset, char, ok := errs.badByte(err)
			if !ok || !errors.Is(err, errs.char) || offset != wantOffset || char != data[wantOffset] {
				t.Fatalf("%q: error %v, want invalid character at %d", data, err, wantOffset)
			}
		default:
			t.Fatalf("the reference returned unexpected error %v", wantErr)
		}
	}
}

// scanner returns Scan, given data as a []byte (isBytes) or as a string,
// into a fresh T, for checkParse.
func scanner[T any, PT interface {
	*T
	Scan(src any) error
}](isBytes bool) []func([]byte) (T, error) {
	return []func([]byte) (T, error){func(b []byte) (id T, err error) {
		if isBytes {
			err = PT(&id).Scan(b)
		} else {
			err = PT(&id).Scan(string(b))
		}
		return id, err
	}}
}

// base32Bytes adapts naive.Base32Decode of a 128-bit format to
// naive.Scan128's text decoder.
func base32Bytes(alphabet string) func([]byte) ([16]byte, int, error) {
	return func(s []byte) (u [16]byte, offset int, err error) {
		n, offset, err := naive.Base32Decode(s, alphabet, 26, 128)
		if err == nil {
			n.FillBytes(u[:])
		}
		return u, offset, err
	}
}
