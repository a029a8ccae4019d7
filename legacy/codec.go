package legacy

import (
	"encoding/binary"
	"slices"
	"unsafe"

	"github.com/fastid/scru128/internal/crockford"
	"github.com/fastid/scru128/internal/interop"
)

// Alphabet is the legacy form's digits, in digit order.
const Alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUV"

// digits is the legacy alphabet prepared for the shared base-32 codec,
// which has the same bit layout as ULID's: only the digits differ.
var digits = crockford.NewEncoding(Alphabet)

// Parse parses the 26-digit text of an ID, ignoring case. It returns a
// [*LengthError] (matching [ErrInvalidLength]) if s is not 26 bytes long, an
// [*InvalidCharacterError] (matching [ErrInvalidCharacter]) naming the first
// character outside [0-9A-Va-v], or a [*RangeError] (matching
// [ErrOutOfRange]) naming the largest ID if the first digit is above 7 (the
// value is above 7VVVVVVVVVVVVVVVVVVVVVVVVV). It does not allocate on
// success.
func Parse(s string) (ID, error) { return decode(s) }

// ParseBytes is [Parse] for a byte slice. It does not retain b.
func ParseBytes(b []byte) (ID, error) { return decode(bytesView(b)) }

// MustParse is [Parse] that panics on error, for constants in code and
// tests. The panic value is an error that quotes s and wraps the error of
// Parse, for example `legacy: MustParse("0372"): invalid length 4, want 26`.
func MustParse(s string) ID {
	id, err := Parse(s)
	if err != nil {
		panic(&interop.MustError{Pkg: "legacy", Input: s, Err: err})
	}
	return id
}

// Validate reports whether s is the text of an ID: it returns what [Parse]
// returns for s, without the ID, so nil or the same error. It does not
// allocate on success.
func Validate(s string) error {
	_, err := decode(s)
	return err
}

// UnmarshalText parses the 26-digit text form into id, as [Parse] does. On
// error id is left unchanged.
func (id *ID) UnmarshalText(b []byte) error {
	v, err := decode(bytesView(b))
	if err != nil {
		return err
	}
	*id = v
	return nil
}

// bytesView returns the bytes of b as a string without copying them. The
// decoders only read their input and keep nothing of it (an
// [InvalidCharacterError] copies what it needs), so b may change
// afterwards.
func bytesView(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

func decode(s string) (id ID, err error) {
	if len(s) != EncodedSize {
		return ID{}, textLengthError(len(s))
	}
	hi, lo, lead := crockford.Decode128(digits, s)
	if lead > 7 {
		return ID{}, decodeError(s)
	}
	// Writing the named result in place avoids building the ID in a
	// temporary and copying it.
	binary.BigEndian.PutUint64(id[0:8], hi)
	binary.BigEndian.PutUint64(id[8:16], lo)
	return id, nil
}

// decodeError reports why decode rejected s, which has the right length:
// the first invalid byte if there is one, else a first digit above 7. It
// is kept out of line so that decode's fast path stays small.
//
//go:noinline
func decodeError(s string) error {
	if i := crockford.IndexInvalid(digits, s); i >= 0 {
		return charError(s, i)
	}
	return errTextRange
}

// AppendText appends the 26-digit upper-case text of id to b and returns
// the extended slice. It does not allocate when b has room for 26 more
// bytes; the error is always nil and is there to satisfy
// encoding.TextAppender.
func (id ID) AppendText(b []byte) ([]byte, error) {
	n := len(b)
	if cap(b)-n < EncodedSize {
		b = slices.Grow(b, EncodedSize)
	}
	b = b[:n+EncodedSize]
	crockford.Encode128(digits, (*[EncodedSize]byte)(b[n:]),
		binary.BigEndian.Uint64(id[0:8]), binary.BigEndian.Uint64(id[8:16]))
	return b, nil
}

// MarshalText returns the 26-digit upper-case text of id. The error is
// always nil.
func (id ID) MarshalText() ([]byte, error) {
	b := make([]byte, EncodedSize)
	crockford.Encode128(digits, (*[EncodedSize]byte)(b),
		binary.BigEndian.Uint64(id[0:8]), binary.BigEndian.Uint64(id[8:16]))
	return b, nil
}

// String returns the 26-digit upper-case text of id, such as
// 00PGHAJ3Q9VAJ7IU6PQBHBUAK4. It makes exactly one allocation.
func (id ID) String() string {
	b := make([]byte, EncodedSize)
	crockford.Encode128(digits, (*[EncodedSize]byte)(b),
		binary.BigEndian.Uint64(id[0:8]), binary.BigEndian.Uint64(id[8:16]))
	// b is never written again or shared, so it can back the string
	// directly instead of being copied by string(b).
	return unsafe.String(&b[0], len(b))
}
