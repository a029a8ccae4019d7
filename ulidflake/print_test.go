package ulidflake

import (
	"fmt"
	"testing"

	"github.com/fastid/scru128/internal/idtest"
)

// TestPrint checks that an ID and a NullID print their text through fmt
// and log/slog, %x the 8 bytes and %d the integer.
func TestPrint(t *testing.T) {
	id := MustParse("00CMXB6TAK4SA")
	idtest.CheckPrint(t, idtest.Print{
		ID:             id,
		Text:           "00CMXB6TAK4SA",
		Hex:            "00329d59b4a9932a",
		GoSyntax:       "14246757444195114",
		Integer:        "14246757444195114",
		Null:           NullID{ID: id, Valid: true},
		NoNull:         NullID{},
		NullGoSyntax:   "ulidflake.NullID{ID:14246757444195114, Valid:true}",
		NoNullGoSyntax: "ulidflake.NullID{ID:0, Valid:false}",
	})
	// A negative ID, made by conversion, prints as String shows it, and
	// its bytes as the integer's.
	if got := fmt.Sprintf("%v %x %d", ID(-5), ID(-5), ID(-5)); got != "!OUTOFRANGE(-5) fffffffffffffffb -5" {
		t.Errorf("Sprintf(ID(-5)) = %q", got)
	}
}
