package ulid

import (
	"fmt"
	"log/slog"

	"github.com/fastid/scru128/internal/interop"
)

// Format implements fmt.Formatter, so that every verb shows a ULID as a
// reader expects: %v and %s write the 26-digit text, %q the text in double
// quotes, %x and %X the 16 bytes as 32 hexadecimal digits (the UUID form
// without hyphens), and %#v Go syntax
// (ulid.ULID{0x1, 0x56, ...}). Width, precision and flags apply as fmt
// applies them to a string or, for %x and %X, a byte slice. Other verbs
// are reported as fmt reports a verb a type does not take:
// %!d(ulid.ULID=01ARZ3NDEKTSV4RRFFQ69G5FAV).
func (id ULID) Format(f fmt.State, verb rune) { interop.FormatID[ULID](f, verb, id) }

// LogValue implements log/slog.LogValuer: the 26-digit text, as a string.
func (id ULID) LogValue() slog.Value { return slog.StringValue(id.String()) }

// Format implements fmt.Formatter as [ULID.Format] does, so a Binary prints
// as its ULID's text rather than as 16 numbers; %#v writes ulid.Binary{...}.
func (b Binary) Format(f fmt.State, verb rune) { interop.FormatID[Binary](f, verb, ULID(b)) }

// LogValue implements log/slog.LogValuer: the 26-digit text, as a string.
func (b Binary) LogValue() slog.Value { return ULID(b).LogValue() }

// Format implements fmt.Formatter: the ULID as [ULID.Format] writes it when
// Valid, and null otherwise (for %q too, as encoding/json writes a NULL),
// padded to any width given. %#v writes both fields in Go syntax.
func (n NullULID) Format(f fmt.State, verb rune) {
	interop.FormatNull[NullULID](f, verb, n.ULID, n.Valid)
}

// LogValue implements log/slog.LogValuer: the 26-digit text as a string
// when Valid; otherwise a value that slog's TextHandler writes as null and
// its JSONHandler as the JSON null.
func (n NullULID) LogValue() slog.Value { return interop.NullLogValue(n.ULID, n.Valid) }

// Format implements fmt.Formatter as [NullULID.Format] does.
func (n NullBinary) Format(f fmt.State, verb rune) {
	interop.FormatNull[NullBinary](f, verb, n.ULID, n.Valid)
}

// LogValue implements log/slog.LogValuer as [NullULID.LogValue] does.
func (n NullBinary) LogValue() slog.Value { return interop.NullLogValue(n.ULID, n.Valid) }
