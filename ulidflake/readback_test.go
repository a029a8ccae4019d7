package ulidflake

import (
	"errors"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/fastid/scru128/internal/idtest"
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

// TestReadBackAtEveryOffset sends IDs at random offsets from their epoch,
// the first hours densely, through every form this package writes and
// every reader it has (idtest.CheckReadBack): each reads back as the same
// ID or an error. IDs come from NewAt (the default epoch), from
// generators with custom epochs on the clock, stand-alone and scalable,
// and from GenerateCore.
func TestReadBackAtEveryOffset(t *testing.T) {
	r := rand.New(rand.NewPCG(24, 4))
	var ids []ID
	for i, offset := range idtest.EpochOffsets(r, 3000, MaxTimestamp) {
		at := time.Duration(offset) * time.Millisecond
		var id ID
		var err error
		switch i % 3 {
		case 0:
			id, err = NewAt(DefaultEpoch().Add(at))
		case 1:
			if at > 1000*time.Hour {
				at %= 1000 * time.Hour // an epoch before 1970 is refused
			}
			// A second more, so that the generator's clock, which may
			// lag time.Now by a little, is not before its epoch: the
			// first second is NewAt's and GenerateCore's.
			opts := []Option{WithEpoch(time.Now().Add(-at - time.Second))}
			if r.IntN(2) == 0 {
				opts = append(opts, WithScalabilityID(uint8(r.IntN(MaxScalabilityID+1))))
			}
			var g *Generator
			if g, err = NewGenerator(opts...); err == nil {
				id, err = g.GenerateOrWait()
			}
		case 2:
			var g *Generator
			if g, err = NewGenerator(); err == nil {
				id, err = g.GenerateCore(offset)
			}
		}
		if err != nil {
			t.Fatalf("offset %d ms: %v", offset, err)
		}
		ids = append(ids, id)
	}
	read := idtest.CheckReadBack[ID, NullID](t, ids, idtest.ReadBack[ID, NullID]{
		Forms: func(id ID) map[string]idtest.Form {
			null, _ := NullID{ID: id, Valid: true}.MarshalJSON()
			binary, _ := id.AppendBinary(nil)
			return map[string]idtest.Form{
				"NullID.MarshalJSON": {Kind: idtest.JSONForm, Value: null},
				"AppendBinary":       {Kind: idtest.BinaryForm, Value: binary},
				"Int64":              {Kind: idtest.SQLForm, Value: id.Int64()},
			}
		},
		NullFields: func(n NullID) (ID, bool) { return n.ID, n.Valid },
	})
	if read == 0 {
		t.Fatal("nothing read back")
	}
}

// TestAmbiguousError pins the error of 13 digits with two readings, as
// AmbiguousError's doc comment shows it, and of 8 digits as a []byte.
func TestAmbiguousError(t *testing.T) {
	for _, tc := range []struct {
		src               any
		form              string
		asForm, asDecimal ID
		text              string
	}{
		{"3774874268538", "text", MustParse("3774874268538"), 3774874268538,
			`ulidflake: "3774874268538" is valid in 2 forms, so read as none: as text, ID 3774874268538 (integer 3718997170769368168); as decimal digits, ID 00003DVM0MCVT (integer 3774874268538); scan into a string for Parse, or into an int64, to choose`},
		{[]byte("00012345"), "binary", 0x3030303132333435, 12345,
			`ulidflake: "00012345" is valid in 2 forms, so read as none: as the binary form, ID 30C1G64S36D1N (integer 3472328300556399669); as decimal digits, ID 0000000000C1S (integer 12345); scan into a []byte for UnmarshalBinary, or into an int64, to choose`},
	} {
		id := Max
		err := id.Scan(tc.src)
		var amb *AmbiguousError
		if !errors.As(err, &amb) || !errors.Is(err, ErrAmbiguous) || *amb != (AmbiguousError{tc.form, tc.asForm, tc.asDecimal}) ||
			err.Error() != tc.text || id != Max {
			t.Errorf("Scan(%q) = %v (%+v), id %v; want\n%s", tc.src, err, amb, id, tc.text)
		}
	}
}
