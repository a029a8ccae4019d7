package ulid

import (
	"fmt"
	"strings"
	"testing"

	"github.com/fastid/scru128/internal/idtest"
)

// TestPrint checks that a ULID, a Binary and a NullULID print their text
// through fmt and log/slog, and %x the 16 bytes.
func TestPrint(t *testing.T) {
	id := MustParse("01ARZ3NDEKTSV4RRFFQ69G5FAV")
	goSyntax := func(name string, b [16]byte) string {
		return strings.Replace(fmt.Sprintf("%#v", b), "[16]uint8", name, 1)
	}
	idtest.CheckPrint(t, idtest.Print{
		ID:             id,
		Text:           "01ARZ3NDEKTSV4RRFFQ69G5FAV",
		Hex:            "01563e3ab5d3d6764c61efb99302bd5b",
		GoSyntax:       goSyntax("ulid.ULID", id),
		Binary:         Binary(id),
		BinaryGoSyntax: goSyntax("ulid.Binary", id),
		Null:           NullULID{ULID: id, Valid: true},
		NoNull:         NullULID{},
		NullGoSyntax:   "ulid.NullULID{ULID:" + goSyntax("ulid.ULID", id) + ", Valid:true}",
		NoNullGoSyntax: "ulid.NullULID{ULID:" + goSyntax("ulid.ULID", Zero) + ", Valid:false}",
		NullBinary:     NullBinary{ULID: id, Valid: true},
		NoNullBinary:   NullBinary{ULID: id},
	})
}
