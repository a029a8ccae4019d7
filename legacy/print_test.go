package legacy

import (
	"fmt"
	"strings"
	"testing"

	"github.com/fastid/scru128/internal/idtest"
)

// TestPrint checks that an ID, a Binary and a NullID print their text
// through fmt and log/slog, and %x the 16 bytes.
func TestPrint(t *testing.T) {
	id := MustParse("00PGHAJ3Q9VAJ7IU6PQBHBUAK4")
	goSyntax := func(name string, b [16]byte) string {
		return strings.Replace(fmt.Sprintf("%#v", b), "[16]uint8", name, 1)
	}
	idtest.CheckPrint(t, idtest.Print{
		ID:             id,
		Text:           "00PGHAJ3Q9VAJ7IU6PQBHBUAK4",
		Hex:            "00cc22a98f49faa67978d9d2e2bf2a84",
		GoSyntax:       goSyntax("legacy.ID", id),
		Binary:         Binary(id),
		BinaryGoSyntax: goSyntax("legacy.Binary", id),
		Null:           NullID{ID: id, Valid: true},
		NoNull:         NullID{},
		NullGoSyntax:   "legacy.NullID{ID:" + goSyntax("legacy.ID", id) + ", Valid:true}",
		NoNullGoSyntax: "legacy.NullID{ID:" + goSyntax("legacy.ID", Nil) + ", Valid:false}",
		NullBinary:     NullBinary{ID: id, Valid: true},
		NoNullBinary:   NullBinary{ID: id},
	})
}
