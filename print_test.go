package scru128

import (
	"fmt"
	"strings"
	"testing"

	"github.com/fastid/scru128/internal/idtest"
)

// TestPrint is the report that a NullID printed as {ID:... Valid:true}
// through slog, a Binary as 16 numbers, and %x of an ID as the hex of its
// text.
func TestPrint(t *testing.T) {
	id := MustParse("0372hg16csmsm50l8dikcvukc")
	goSyntax := func(name string, b [16]byte) string {
		return strings.Replace(fmt.Sprintf("%#v", b), "[16]uint8", name, 1)
	}
	idtest.CheckPrint(t, idtest.Print{
		ID:             id,
		Text:           "0372hg16csmsm50l8dikcvukc",
		Hex:            "017fee7fef417e2b3432ac2ec553687c",
		GoSyntax:       goSyntax("scru128.ID", id),
		Binary:         Binary(id),
		BinaryGoSyntax: goSyntax("scru128.Binary", id),
		Null:           NullID{ID: id, Valid: true},
		NoNull:         NullID{},
		NullGoSyntax:   "scru128.NullID{ID:" + goSyntax("scru128.ID", id) + ", Valid:true}",
		NoNullGoSyntax: "scru128.NullID{ID:" + goSyntax("scru128.ID", Nil) + ", Valid:false}",
		NullBinary:     NullBinary{ID: id, Valid: true},
		NoNullBinary:   NullBinary{ID: id},
	})
}
