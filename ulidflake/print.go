package ulidflake

import (
	"fmt"
	"log/slog"

	"github.com/fastid/scru128/internal/interop"
)

// Format implements fmt.Formatter, so that every verb shows an ID as a
// reader expects: %v and %s write the 13-digit text (as String does, also
// for an ID that is negative), %q the text in double quotes, %x and %X the 8
// big-endian bytes as 16 hexadecimal digits, %d the integer, and %#v Go
// syntax (the integer, as fmt writes an int64). Width, precision and flags
// apply as fmt applies them to a string, a byte slice (%x, %X) or an
// integer (%d). Other verbs are reported as fmt reports a verb a type does
// not take: %!b(ulidflake.ID=00CMXB6TAK4SA).
func (id ID) Format(f fmt.State, verb rune) { interop.FormatID[ID](f, verb, id) }

// LogValue implements log/slog.LogValuer: the 13-digit text, as a string.
func (id ID) LogValue() slog.Value { return slog.StringValue(id.String()) }

// Format implements fmt.Formatter: the ID as [ID.Format] writes it when
// Valid, and null otherwise (for %q and %d too, as encoding/json writes a
// NULL), padded to any width given. %#v writes both fields in Go syntax.
func (n NullID) Format(f fmt.State, verb rune) { interop.FormatNull[NullID](f, verb, n.ID, n.Valid) }

// LogValue implements log/slog.LogValuer: the 13-digit text as a string
// when Valid; otherwise a value that slog's TextHandler writes as null and
// its JSONHandler as the JSON null.
func (n NullID) LogValue() slog.Value { return interop.NullLogValue(n.ID, n.Valid) }
