package ulidflake

import (
	"slices"
	"strconv"
	"unsafe"

	"github.com/fastid/scru128/internal/crockford"
	"github.com/fastid/scru128/internal/interop"
)

// Parse parses the 13-digit text of an ID, ignoring case. It returns a
// [*LengthError] (matching [ErrInvalidLength]) if s is not 13 bytes long, an
// [*InvalidCharacterError] (matching [ErrInvalidCharacter]) naming the first
// character outside the Crockford alphabet (I, L, O and U are outside it),
// or a [*RangeError] (matching [ErrOutOfRange]) naming the largest text if
// the value is above 7ZZZZZZZZZZZZ (a first digit above 7). It does not allocate on success.
func Parse(s string) (ID, error) { return decode(s) }

// ParseBytes is [Parse] for a byte slice. It does not retain b.
func ParseBytes(b []byte) (ID, error) { return decode(bytesView(b)) }

// MustParse is [Parse] that panics on error, for constants in code and
// tests. The panic value is an error that quotes s and wraps the error of
// Parse, for example `ulidflake: MustParse("0372"): invalid length 4, want 13`.
func MustParse(s string) ID {
	id, err := Parse(s)
	if err != nil {
		panic(&interop.MustError{Pkg: "ulidflake", Input: s, Err: err})
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

// bytesView returns the bytes of b as a string without copying them. The
// decoder only reads its input and keeps nothing of it.
func bytesView(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

func decode(s string) (ID, error) {
	if len(s) != EncodedSize {
		return 0, textLengthError(len(s))
	}
	v, lead, ok := crockford.Decode64(crockford.Crockford, s)
	if !ok {
		return 0, charError(s, crockford.IndexInvalid(crockford.Crockford, s))
	}
	if lead > 7 {
		// The value is 2^63 or more: its sign bit (or a bit above 64)
		// is set. It is rejected, never wrapped.
		return 0, errTextRange
	}
	return ID(v), nil
}

// UnmarshalText parses the 13-digit text form into id, as [Parse] does, so
// an ID reads from a JSON string. On error id is left unchanged.
func (id *ID) UnmarshalText(b []byte) error {
	v, err := decode(bytesView(b))
	if err != nil {
		return err
	}
	*id = v
	return nil
}

// AppendText appends the 13-digit upper-case text of id to b and returns
// the extended slice. It does not allocate when b has room for 13 more
// bytes. The error is [ErrOutOfRange] for a negative id, which no function
// of this package returns; b is then returned unchanged.
func (id ID) AppendText(b []byte) ([]byte, error) {
	if id < 0 {
		return b, ErrOutOfRange
	}
	n := len(b)
	if cap(b)-n < EncodedSize {
		b = slices.Grow(b, EncodedSize)
	}
	b = b[:n+EncodedSize]
	crockford.Encode64(crockford.Crockford, (*[EncodedSize]byte)(b[n:]), uint64(id))
	return b, nil
}

// MarshalText returns the 13-digit upper-case text of id, so an ID writes
// as a JSON string. It returns [ErrOutOfRange] for a negative id.
func (id ID) MarshalText() ([]byte, error) {
	return id.AppendText(make([]byte, 0, EncodedSize))
}

// String returns the 13-digit upper-case text of id, such as
// 00CMXB6TAK4SA. For a negative id, which no function of this package
// returns, it returns "!OUTOFRANGE(" followed by the decimal value and ")",
// which shows the number and which [Parse] rejects. It makes exactly one
// allocation for a valid id.
func (id ID) String() string {
	if id < 0 {
		return "!OUTOFRANGE(" + strconv.FormatInt(int64(id), 10) + ")"
	}
	b := make([]byte, EncodedSize)
	crockford.Encode64(crockford.Crockford, (*[EncodedSize]byte)(b), uint64(id))
	return unsafe.String(&b[0], len(b))
}
