package scru64

import (
	"errors"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/fastid/scru128/internal/idtest"
)

// zeroCounter renews every counter to 0, for the smallest IDs a tick
// holds.
type zeroCounter struct{}

func (zeroCounter) Renew(uint8, RenewContext) uint32 { return 0 }

// TestSmallestMinted proves what Scan's reading of 12 characters as the
// text form rests on: no ID a Generator mints has a decimal text of 12
// digits. The smallest ID any generator can mint, node ID 0 with a counter
// of 0 in the tick of MinTimestamp, is 10^12 or more; every method refuses
// the tick before it, also where the fast path would count on from an
// earlier ID within the rollback allowance, and a node spec whose previous
// ID is small does not lead below it. (scru64 has no NewAt: generators are
// the only way to mint.)
func TestSmallestMinted(t *testing.T) {
	smallest := NewGeneratorWithCounterMode(mustSpec(t, "0/1"), zeroCounter{})
	id, err := smallest.GenerateOrAbortCore(MinTimestamp<<8, 0)
	if err != nil || id != MinTimestamp<<nodeCtrSize {
		t.Fatalf("the smallest mintable ID: %s, %v", id, err)
	}
	if decimal := strconv.FormatUint(uint64(id), 10); len(decimal) != 13 || id < 1e12 {
		t.Fatalf("the smallest mintable ID %s is %s, not 13 digits", id, decimal)
	}
	if (MinTimestamp-1)<<nodeCtrSize >= 1e12 {
		t.Fatal("MinTimestamp is not the first tick whose IDs are all 10^12 or more")
	}
	for name, mint := range map[string]func(g *Generator, ms uint64) (ID, error){
		"GenerateOrAbortCore": func(g *Generator, ms uint64) (ID, error) { return g.GenerateOrAbortCore(ms, 10_000) },
		"GenerateOrResetCore": func(g *Generator, ms uint64) (ID, error) { return g.GenerateOrResetCore(ms, 10_000) },
	} {
		for _, spec := range []string{"0/1", "000000000001/8", "00000001jg00/8", "zzzzzzzzzzzz/23"} {
			g := NewGeneratorWithCounterMode(mustSpec(t, spec), zeroCounter{})
			for _, ms := range []uint64{0, 255, 256, MinTimestamp<<8 - 256, MinTimestamp<<8 - 1} {
				if id, err := mint(g, ms); !errors.Is(err, ErrInvalidTimestamp) {
					t.Errorf("%s from %s at %d ms: %s, %v; want ErrInvalidTimestamp", name, spec, ms, id, err)
				}
			}
		}
		// The fast path: a time just before MinTimestamp's tick is within
		// the allowance of an ID in it, and still refused.
		g := NewGeneratorWithCounterMode(mustSpec(t, "0/1"), zeroCounter{})
		if _, err := mint(g, MinTimestamp<<8); err != nil {
			t.Fatal(err)
		}
		if id, err := mint(g, MinTimestamp<<8-1); !errors.Is(err, ErrInvalidTimestamp) {
			t.Errorf("%s just before MinTimestamp after an ID in it: %s, %v", name, id, err)
		}
		if id, err := mint(g, MinTimestamp<<8); err != nil || id != MinTimestamp<<nodeCtrSize+1 {
			t.Errorf("%s after the refusal: %s, %v", name, id, err)
		}
	}
}

// TestValueRefusesTwelveDigits checks the other half: an ID from 10^11 to
// 10^12-1, which only a conversion or FromParts makes, has a 12-digit
// decimal text, which Scan would read as the text form of another ID, so
// Value refuses it with both readings; its neighbours go through, and
// their decimal text reads back.
func TestValueRefusesTwelveDigits(t *testing.T) {
	for _, id := range []ID{1e11, 123456789012, 1e12 - 1} {
		v, err := id.Value()
		var amb *AmbiguousError
		if !errors.As(err, &amb) || !errors.Is(err, ErrAmbiguous) || v != nil ||
			amb.Form != "text" || amb.AsDecimal != id || amb.AsForm != MustParse(strconv.FormatUint(uint64(id), 10)) {
			t.Errorf("Value(%d) = %v, %v; want an AmbiguousError", id, v, err)
		}
		n := NullID{ID: id, Valid: true}
		if _, err := n.Value(); !errors.Is(err, ErrAmbiguous) {
			t.Errorf("NullID.Value(%d): %v", id, err)
		}
	}
	const want = `scru64: the decimal text of ID 00001kpqzg2c, "123456789012", is valid in 2 forms, so Value writes none: as text, ID 123456789012 (integer 139250390350662758); as decimal digits, ID 00001kpqzg2c (integer 123456789012)`
	if _, err := ID(123456789012).Value(); err == nil || err.Error() != want {
		t.Errorf("Value's error: %v; want\n%s", err, want)
	}
	for _, id := range []ID{0, 1e11 - 1, 1e12, MinTimestamp << nodeCtrSize, Max} {
		v, err := id.Value()
		if err != nil {
			t.Fatalf("Value(%d): %v", id, err)
		}
		stored := strconv.FormatInt(v.(int64), 10)
		var back ID
		if err := back.Scan(stored); err != nil || back != id {
			t.Errorf("Scan(%s) = %s, %v", stored, back, err)
		}
	}
}

// TestReadBackAtEveryOffset sends IDs minted at random times from
// MinTimestamp's tick on, the first hours densely, under random node
// specs, through every form this package writes and every reader it has
// (idtest.CheckReadBack): each reads back as the same ID or an error.
func TestReadBackAtEveryOffset(t *testing.T) {
	r := rand.New(rand.NewPCG(24, 64))
	var ids []ID
	for _, offset := range idtest.EpochOffsets(r, 3000, (MaxTimestamp-MinTimestamp)<<8-1) {
		size := uint8(1 + r.IntN(23))
		spec, err := NewNodeSpecWithNodeID(uint32(r.Uint64N(1<<size)), size)
		if err != nil {
			t.Fatal(err)
		}
		id, err := NewGenerator(spec).GenerateOrAbortCore(MinTimestamp<<8+offset, 0)
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
				"Uint64":             {Kind: idtest.SQLForm, Value: id.Uint64()},
			}
		},
		NullFields: func(n NullID) (ID, bool) { return n.ID, n.Valid },
	})
	if read == 0 {
		t.Fatal("nothing read back")
	}
}

// TestAmbiguousError pins the error of 8 digits as a []byte, as
// AmbiguousError's doc comment shows it, and that 12 digits are the text
// form.
func TestAmbiguousError(t *testing.T) {
	id := Max
	err := id.Scan([]byte("12345678"))
	want := `scru64: "12345678" is valid in 2 forms, so read as none: as the binary form, ID qxl0nudotqgo (integer 3544952156018063160); as decimal digits, ID 00000007clzi (integer 12345678); scan into a []byte for UnmarshalBinary, or into an int64, to choose`
	var amb *AmbiguousError
	if !errors.As(err, &amb) || !errors.Is(err, ErrAmbiguous) || amb.Form != "binary" || amb.AsForm != 0x3132333435363738 ||
		amb.AsDecimal != 12345678 || err.Error() != want || id != Max {
		t.Errorf("Scan(12345678 as []byte) = %v, id %v; want\n%s", err, id, want)
	}
	for _, src := range []any{"123456789012", []byte("123456789012")} {
		if err := id.Scan(src); err != nil || id != MustParse("123456789012") {
			t.Errorf("Scan(%T 123456789012) = %v, %v; want the text form", src, id, err)
		}
	}
}
