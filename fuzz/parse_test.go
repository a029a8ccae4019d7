package fuzz

import (
	"errors"
	"fmt"
	"testing"
	"unicode/utf8"

	"github.com/fastid/scru128/internal/naive"
)

// parseErrors names one format's parse errors, so that checkParse can map
// the reference's outcome onto them.
type parseErrors struct {
	length, overflow, char error // overflow is nil for a format with no out-of-range text
	// badByte returns the fields of the format's *InvalidCharacterError in
	// err.
	badByte func(err error) (offset int, char byte, r rune, size int, ok bool)
	// lengths returns the Got and Want of the format's *LengthError in err.
	lengths func(err error) (got, want int, ok bool)
	textLen int // the length of the text form, which a LengthError wants
}

// badByte adapts a format's *InvalidCharacterError to parseErrors.badByte.
func badByte[E error](fields func(E) (offset int, char byte, r rune, size int)) func(error) (int, byte, rune, int, bool) {
	return func(err error) (int, byte, rune, int, bool) {
		var e E
		if !errors.As(err, &e) {
			return 0, 0, 0, 0, false
		}
		offset, char, r, size := fields(e)
		return offset, char, r, size, true
	}
}

// lengths adapts a format's *LengthError to parseErrors.lengths.
func lengths[E error](fields func(E) (got, want int)) func(error) (int, int, bool) {
	return func(err error) (int, int, bool) {
		var e E
		if !errors.As(err, &e) {
			return 0, 0, false
		}
		got, want := fields(e)
		return got, want, true
	}
}

// textParsers returns the four ways a format parses text: ParseBytes,
// Parse on a string, UnmarshalText, and Validate, which returns no ID, so
// Parse's stands in; a Validate that disagrees with Parse on success
// fails as an unexpected error.
func textParsers[T any, PT interface {
	*T
	UnmarshalText([]byte) error
}](parseBytes func([]byte) (T, error), parse func(string) (T, error), validate func(string) error) []func([]byte) (T, error) {
	return []func([]byte) (T, error){
		parseBytes,
		func(b []byte) (T, error) { return parse(string(b)) },
		func(b []byte) (id T, err error) { err = PT(&id).UnmarshalText(b); return id, err },
		func(b []byte) (T, error) {
			id, parseErr := parse(string(b))
			err := validate(string(b))
			if (err == nil) != (parseErr == nil) {
				return id, fmt.Errorf("Validate: %v, but Parse: %v", err, parseErr)
			}
			return id, err
		},
	}
}

// checkParse requires every parser to accept and reject data exactly as the
// reference did: on success with a value matching (as match decides), on
// failure with the same kind of error and, for a bad byte, the same offset
// and byte and the UTF-8 character it begins; a length error must carry
// the length of data and the text form's.
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
			got, want, ok := errs.lengths(err)
			if !ok || !errors.Is(err, errs.length) || got != len(data) || want != errs.textLen {
				t.Fatalf("%q: error %v, want %v of %d bytes", data, err, errs.length, len(data))
			}
		case errors.Is(wantErr, naive.ErrOutOfRange) && errs.overflow != nil:
			if !errors.Is(err, errs.overflow) {
				t.Fatalf("%q: error %v, want %v", data, err, errs.overflow)
			}
		case errors.Is(wantErr, naive.ErrInvalidCharacter):
			offset, char, r, size, ok := errs.badByte(err)
			wantRune, wantSize := utf8.DecodeRune(data[wantOffset:])
			if !ok || !errors.Is(err, errs.char) || offset != wantOffset || char != data[wantOffset] ||
				r != wantRune || size != wantSize {
				t.Fatalf("%q: error %v, want invalid character %q at %d", data, err, wantRune, wantOffset)
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

// checkScan64 is [checkParse] for the Scan of a 64-bit format, whose
// reference may also refuse input as having two readings: then Scan must
// fail with the format's ambiguity error, whose fields (as ambiguity
// returns them) name the same two readings.
func checkScan64[T ~int64 | ~uint64](t *testing.T, data []byte, want uint64, wantOffset int, wantErr error, errs parseErrors,
	ambiguity func(error) (form string, asForm, asDecimal uint64, ok bool), scan []func([]byte) (T, error)) {
	t.Helper()
	var ref *naive.AmbiguousError
	if !errors.As(wantErr, &ref) {
		checkParse(t, data, wantErr, wantOffset, func(got T) bool { return uint64(got) == want }, errs, scan)
		return
	}
	wantForm := "text"
	if ref.Binary {
		wantForm = "binary"
	}
	for _, s := range scan {
		got, err := s(data)
		form, asForm, asDecimal, ok := ambiguity(err)
		if !ok || form != wantForm || asForm != ref.AsForm || asDecimal != ref.AsDecimal {
			t.Fatalf("%q: got %v, %v; want both readings, as %s %d and as decimal %d", data, got, err, wantForm, ref.AsForm, ref.AsDecimal)
		}
	}
}
