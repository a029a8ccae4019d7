package ulidflake

import (
	"strconv"
	"testing"
	"time"
)

// TestDecimalNearEpochReadsBack is the report of Ulid-Flake text
// reading back as another ID: an ID of the first hours after its epoch has
// a 13-digit decimal form, which a TEXT column holds after Value (SQLite)
// and which has the length of the text form. Scan must give the same ID
// or an error, never the ID whose text those 13 digits are.
func TestDecimalNearEpochReadsBack(t *testing.T) {
	id, err := NewAt(DefaultEpoch().Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	g, err := NewGenerator(WithEpoch(time.Now().Add(-time.Hour)))
	if err != nil {
		t.Fatal(err)
	}
	minted, err := g.Generate()
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []ID{id, minted} {
		v, err := id.Value()
		if err != nil {
			t.Fatal(err)
		}
		stored := strconv.FormatInt(v.(int64), 10) // what a TEXT column holds
		if len(stored) != EncodedSize {
			t.Fatalf("%s: decimal %s is not 13 digits", id, stored)
		}
		for _, src := range []any{stored, []byte(stored)} {
			var back ID
			if err := back.Scan(src); err == nil && back != id {
				t.Errorf("Scan(%T %s) = %s (%d), no error; want %s or an error", src, stored, back, back, id)
			}
		}
	}
}
