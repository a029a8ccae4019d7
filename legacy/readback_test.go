package legacy

import (
	"math/rand/v2"
	"testing"

	"github.com/fastid/scru128/internal/idtest"
)

// TestReadBackAtEveryOffset sends IDs minted at random offsets from the
// format's epoch, the first hours densely, through every form this
// package writes (the text, JSON, the bytes, Value, Binary's Value, the
// UUID forms a uuid column returns and the CLI's -hex prints) and every
// reader it has (idtest.CheckReadBack): each reads back as the same ID or
// an error.
func TestReadBackAtEveryOffset(t *testing.T) {
	r := rand.New(rand.NewPCG(24, 128))
	var ids []ID
	for _, offset := range idtest.EpochOffsets(r, 2000, MaxTimestamp) {
		id, err := NewGenerator().GenerateCore(offset)
		if err != nil {
			t.Fatalf("offset %d ms: %v", offset, err)
		}
		ids = append(ids, id)
	}
	read := idtest.CheckReadBack[ID, NullID](t, ids, idtest.ReadBack[ID, NullID]{
		Forms: func(id ID) map[string]idtest.Form {
			forms := idtest.UUIDForms(id)
			null, _ := NullID{ID: id, Valid: true}.MarshalJSON()
			forms["Null type's MarshalJSON"] = idtest.Form{Kind: idtest.JSONForm, Value: null}
			binary, _ := Binary(id).Value()
			forms["Binary's Value"] = idtest.Form{Kind: idtest.SQLForm, Value: binary}
			return forms
		},
		NullFields: func(n NullID) (ID, bool) { return n.ID, n.Valid },
	})
	if read == 0 {
		t.Fatal("nothing read back")
	}
}
