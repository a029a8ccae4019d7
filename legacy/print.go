package legacy

import (
	"fmt"
	"log/slog"

	"github.com/fastid/scru128/internal/interop"
)

// Format implements fmt.Formatter, so that every verb shows an ID as a
// reader expects: %v and %s write the 26-digit text, %q the text in double
// quotes, %x and %X the 16 bytes as 32 hexadecimal digits (the UUID form
// without hyphens), and %#v Go syntax
// (legacy.ID{0x0, 0xcc, ...}). Width, precision and flags apply as fmt
// applies them to a string or, for %x and %X, a byte slice. Other verbs
// are reported as fmt reports a verb a type does not take:
// %!d(legacy.ID=00PGHAJ3Q9VAJ7IU6PQBHBUAK4).
func (id ID) Format(f fmt.State, verb rune) { interop.FormatID[ID](f, verb, id) }

// LogValue implements log/slog.LogValuer: the 26-digit text, as a string.
func (id ID) LogValue() slog.Value { return slog.StringValue(id.String()) }

// Format implements fmt.Formatter as [ID.Format] does, so a Binary prints
// as its ID's text rather than as 16 numbers; %#v writes legacy.Binary{...}.
func (b Binary) Format(f fmt.State, verb rune) { interop.FormatID[Binary](f, verb, ID(b)) }

// LogValue implements log/slog.LogValuer: the 26-digit text, as a string.
func (b Binary) LogValue() slog.Value { return ID(b).LogValue() }

// Format implements fmt.Formatter: the ID as [ID.Format] writes it when
// Valid, and null otherwise (for %q too, as encoding/json writes a NULL),
// padded to any width given. %#v writes both fields in Go syntax.
func (n NullID) Format(f fmt.State, verb rune) {
	interop.FormatNull[NullID](f, verb, n.ID, n.Valid)
}

// LogValue implements log/slog.LogValuer: the 26-digit text as a string
// when Valid; otherwise a value that slog's TextHandler writes as null and
// its JSONHandler as the JSON null.
func (n NullID) LogValue() slog.Value { return interop.NullLogValue(n.ID, n.Valid) }

// Format implements fmt.Formatter as [NullID.Format] does.
func (n NullBinary) Format(f fmt.State, verb rune) {
	interop.FormatNull[NullBinary](f, verb, n.ID, n.Valid)
}

// LogValue implements log/slog.LogValuer as [NullID.LogValue] does.
func (n NullBinary) LogValue() slog.Value { return interop.NullLogValue(n.ID, n.Valid) }
