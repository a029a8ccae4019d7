package scru64

import (
	"fmt"
	"testing"

	"github.com/fastid/scru128/internal/idtest"
)

// TestPrint checks that an ID and a NullID print their text through fmt
// and log/slog, %x the 8 bytes and %d the integer.
func TestPrint(t *testing.T) {
	id := MustParse("0u375nxqh5cq")
	idtest.CheckPrint(t, idtest.Print{
		ID:             id,
		Text:           "0u375nxqh5cq",
		Hex:            "0186d52bbe2a635a",
		GoSyntax:       "0x186d52bbe2a635a",
		Integer:        "110009624767914842",
		Null:           NullID{ID: id, Valid: true},
		NoNull:         NullID{},
		NullGoSyntax:   "scru64.NullID{ID:0x186d52bbe2a635a, Valid:true}",
		NoNullGoSyntax: "scru64.NullID{ID:0x0, Valid:false}",
	})
	// An ID above Max, made by conversion, prints as String shows it.
	big := Max + 1
	if got := fmt.Sprint(big); got != "!OUTOFRANGE(4738381338321616896)" {
		t.Errorf("Sprint(Max+1) = %q", got)
	}
}
