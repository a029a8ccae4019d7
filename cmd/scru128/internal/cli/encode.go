//go:build (unix && !aix) || windows

package cli

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"

	"github.com/fastid/scru128/internal/interop"
)

// outputForm is how gen writes an ID: its text, hexadecimal digits or (for
// 128-bit formats) a UUID, in lower case or with -upper in upper case.
type outputForm struct {
	kind  outputKind
	upper bool
}

type outputKind int

const (
	asText outputKind = iota
	asHex
	asUUID
)

// encoder returns how gen writes an ID of type T in the output form o.
// The minter calls the result once per ID, so each form is one closure
// with no further layers of function values. -uuid is checked to name a
// 128-bit format before a minter is made.
func (k *kind[T]) encoder(o outputForm) func([]byte, T) []byte {
	switch {
	case o.kind == asHex && k.toUUID == nil:
		// A 64-bit ID's 16 hex digits are all decimal digits for many
		// IDs, and Scan reads digits as the decimal integer: "0x" says
		// what they are, and makes Scan refuse them rather than read
		// another ID. (32 hex digits are a 128-bit ID's UUID form.)
		return func(b []byte, id T) []byte {
			var raw [8]byte
			start := len(b)
			b = appendHex(append(b, "0x"...), k.appendBytes(raw[:0], id), o.upper)
			if o.upper {
				upperASCII(b[start : start+2])
			}
			return b
		}
	case o.kind == asHex:
		return func(b []byte, id T) []byte {
			var raw [16]byte
			return appendHex(b, k.appendBytes(raw[:0], id), o.upper)
		}
	case o.kind == asUUID:
		return func(b []byte, id T) []byte { return appendUUID(b, k.toUUID(id), o.upper) }
	case o.upper:
		return func(b []byte, id T) []byte {
			start := len(b)
			b, _ = id.AppendText(b)
			upperASCII(b[start:])
			return b
		}
	}
	return func(b []byte, id T) []byte {
		b, _ = id.AppendText(b) // every ID is valid: AppendText cannot fail
		return b
	}
}

func upperASCII(b []byte) {
	for i, c := range b {
		if 'a' <= c && c <= 'z' {
			b[i] = c - ('a' - 'A')
		}
	}
}

func appendHex(b, src []byte, upper bool) []byte {
	start := len(b)
	b = hex.AppendEncode(b, src)
	if upper {
		upperASCII(b[start:])
	}
	return b
}

// appendUUID appends id as a UUID: 8-4-4-4-12 hexadecimal digits.
func appendUUID(b []byte, id [16]byte, upper bool) []byte {
	b = appendHex(b, id[0:4], upper)
	b = append(b, '-')
	b = appendHex(b, id[4:6], upper)
	b = append(b, '-')
	b = appendHex(b, id[6:8], upper)
	b = append(b, '-')
	b = appendHex(b, id[8:10], upper)
	b = append(b, '-')
	return appendHex(b, id[10:16], upper)
}

func hexString(b []byte) string { return hex.EncodeToString(b) }

func uuidString(id [16]byte) string { return string(appendUUID(nil, id, false)) }

// bigEndian returns v's 8 bytes, most significant first.
func bigEndian(v uint64) []byte { return binary.BigEndian.AppendUint64(nil, v) }

// parseUUID reads the 36-character UUID form (8-4-4-4-12) or 32 hex
// digits, in either case, with the library's parser. The error names the
// first bad character and its offset, or the lengths it wants.
func parseUUID(s string) ([16]byte, error) {
	return interop.ParseUUID(s, interop.FormText, &interop.Errors{
		Length: func(got int, _ interop.Form) error { return &uuidLengthError{got} },
		Char: func(offset int, c byte, r rune, size int) error {
			want := "a hex digit"
			if len(s) == uuidLens[0] && interop.HyphenAt(offset) {
				want = "'-'"
			}
			return &badCharError{c, r, size, offset, want}
		},
	})
}

// uuidLengthError is a UUID or hex input of the wrong length.
type uuidLengthError struct{ got int }

func (e *uuidLengthError) Error() string {
	return fmt.Sprintf("invalid length %d: want a UUID (8-4-4-4-12) or 32 hex digits", e.got)
}

// badCharError is a character out of place in a UUID or hex input: the
// byte c at offset, which begins the character r of size bytes.
type badCharError struct {
	char   byte
	r      rune
	size   int
	offset int
	want   string
}

func (e *badCharError) Error() string {
	return interop.CharText(e.offset, e.char, e.r, e.size) + " (want " + e.want + ")"
}
