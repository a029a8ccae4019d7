package bench

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/oklog/ulid/v2"

	fastulid "github.com/fastid/scru128/ulid"
)

// ulidEdgeTexts are the strings the differential tests always try: the
// largest ULID and one above it, lower and mixed case, each excluded letter
// in each case, and bytes around the alphabet's gaps.
func ulidEdgeTexts() []string {
	texts := []string{
		"00000000000000000000000000",
		"7ZZZZZZZZZZZZZZZZZZZZZZZZZ",
		"7zzzzzzzzzzzzzzzzzzzzzzzzz",
		"8ZZZZZZZZZZZZZZZZZZZZZZZZZ",
		"80000000000000000000000000",
		"ZZZZZZZZZZZZZZZZZZZZZZZZZZ",
		"01ARZ3NDEKTSV4RRFFQ69G5FAV",
		"01arz3ndektsv4rrffq69g5fav",
		"01ArZ3nDeKtSv4RrFfQ69g5FaV",
		"01ARZ3NDEKTSV4RRFFQ69G5FA",
		"01ARZ3NDEKTSV4RRFFQ69G5FAVV",
		"",
	}
	for _, c := range "ILOUilou@[`{/:-_ \t\x00\x7f\x80\xff" {
		for _, at := range []int{0, 1, 12, 25} {
			b := []byte("01ARZ3NDEKTSV4RRFFQ69G5FAV")
			b[at] = byte(c)
			texts = append(texts, string(b))
		}
	}
	return texts
}

// TestULIDTextMatchesOklog checks that the same 16 bytes give the same text
// in both libraries, for random values and the edges.
func TestULIDTextMatchesOklog(t *testing.T) {
	values := [][16]byte{{}, {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}}
	for i := range 128 {
		var v [16]byte
		v[i/8] = 0x80 >> (i % 8)
		values = append(values, v)
	}
	for range 100_000 {
		var v [16]byte
		for i := range v {
			v[i] = byte(rand.Uint32())
		}
		values = append(values, v)
	}
	buf := make([]byte, ulid.EncodedSize)
	for _, v := range values {
		ours := fastulid.ULID(v)
		theirs := ulid.ULID(v)
		if err := theirs.MarshalTextTo(buf); err != nil {
			t.Fatal(err)
		}
		got, _ := ours.AppendText(nil)
		if string(got) != string(buf) || ours.String() != theirs.String() {
			t.Fatalf("%x: fastid %s, oklog %s", v, got, buf)
		}
		// And back through the other library.
		if back, err := ulid.ParseStrict(ours.String()); err != nil || back != theirs {
			t.Fatalf("oklog cannot read fastid's %s: %v", ours, err)
		}
		if back, err := fastulid.Parse(theirs.String()); err != nil || back != ours {
			t.Fatalf("fastid cannot read oklog's %s: %v", theirs, err)
		}
	}
}

// TestULIDStrictParseMatchesOklog checks that our Parse and oklog's
// ParseStrict accept and reject the same strings, with the same bytes and
// the same kind of error.
func TestULIDStrictParseMatchesOklog(t *testing.T) {
	texts := ulidEdgeTexts()
	const alphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZabcdefghjkmnpqrstvwxyz"
	for range 100_000 {
		b := make([]byte, 26)
		for i := range b {
			b[i] = alphabet[rand.IntN(len(alphabet))]
		}
		if rand.IntN(4) == 0 {
			b[rand.IntN(26)] = byte(rand.Uint32()) // any byte, often invalid
		}
		texts = append(texts, string(b))
	}
	for _, s := range texts {
		theirs, theirErr := ulid.ParseStrict(s)
		ours, ourErr := fastulid.Parse(s)
		switch {
		case theirErr == nil:
			if ourErr != nil || ulid.ULID(ours) != theirs {
				t.Fatalf("%q: fastid %s, %v; oklog %s", s, ours, ourErr, theirs)
			}
		case errors.Is(theirErr, ulid.ErrDataSize):
			if !errors.Is(ourErr, fastulid.ErrInvalidLength) {
				t.Fatalf("%q: fastid %v, oklog %v", s, ourErr, theirErr)
			}
		case errors.Is(theirErr, ulid.ErrInvalidCharacters):
			if !errors.Is(ourErr, fastulid.ErrInvalidCharacter) {
				t.Fatalf("%q: fastid %v, oklog %v", s, ourErr, theirErr)
			}
		case errors.Is(theirErr, ulid.ErrOverflow):
			if !errors.Is(ourErr, fastulid.ErrOutOfRange) {
				t.Fatalf("%q: fastid %v, oklog %v", s, ourErr, theirErr)
			}
		default:
			t.Fatalf("%q: unexpected oklog error %v", s, theirErr)
		}
		if theirErr == nil && !strings.EqualFold(ours.String(), s) {
			t.Fatalf("%q: re-encoded as %s", s, ours)
		}
	}
}

var (
	diffSinkFastULID fastulid.ULID
	diffSinkErr      error
)

// BenchmarkULIDvsOklog measures each ULID operation next to oklog/ulid's
// counterpart in the same run, so the ratios hold on a noisy machine.
func BenchmarkULIDvsOklog(b *testing.B) {
	const text = "01J9Z3CWSW4V2A2T9D3M8QY6KX"
	ours := fastulid.MustParse(text)
	theirs := ulid.MustParseStrict(text)
	buf := make([]byte, ulid.EncodedSize)

	b.Run("Encode/fastid-AppendText", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			buf, _ = ours.AppendText(buf[:0])
		}
	})
	b.Run("Encode/oklog-MarshalTextTo", func(b *testing.B) {
		b.ReportAllocs()
		buf = buf[:ulid.EncodedSize]
		for b.Loop() {
			diffSinkErr = theirs.MarshalTextTo(buf)
		}
	})
	b.Run("Parse/fastid-Parse", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			diffSinkFastULID, diffSinkErr = fastulid.Parse(text)
		}
	})
	b.Run("Parse/oklog-ParseStrict", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			sinkULID, diffSinkErr = ulid.ParseStrict(text)
		}
	})
	b.Run("Mint/fastid-Make", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			diffSinkFastULID = fastulid.Make()
		}
	})
	b.Run("Mint/fastid-NewUnordered", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			diffSinkFastULID = fastulid.NewUnordered()
		}
	})
	b.Run("Mint/oklog-Make", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			sinkULID = ulid.Make()
		}
	})
}

// TestULIDMigrationNotes holds the differences from oklog/ulid that the
// ulid package's doc and docs/migrating.md describe, against oklog itself:
// Time and Timestamp swapped, Value storing text where oklog's stores the
// 16 bytes that Binary stores, Zero, and %x.
func TestULIDMigrationNotes(t *testing.T) {
	const text = "01ARZ3NDEKTSV4RRFFQ69G5FAV"
	theirs := ulid.MustParseStrict(text)
	ours := fastulid.MustParse(text)
	if theirs.Time() != ours.Timestamp() || !theirs.Timestamp().Equal(ours.Time()) {
		t.Errorf("oklog Time %d, Timestamp %v; ours Timestamp %d, Time %v", theirs.Time(), theirs.Timestamp(), ours.Timestamp(), ours.Time())
	}
	theirValue, _ := theirs.Value()
	binaryValue, _ := fastulid.Binary(ours).Value()
	ourValue, _ := ours.Value()
	if b, ok := theirValue.([]byte); !ok || string(b) != string(binaryValue.([]byte)) || ourValue != text {
		t.Errorf("oklog Value %v, Binary's %v, ours %v", theirValue, binaryValue, ourValue)
	}
	if [16]byte(ulid.Zero) != [16]byte(fastulid.Zero) {
		t.Error("Zero differs")
	}
	hexOfText := fmt.Sprintf("%x", text)
	if got := fmt.Sprintf("%x", theirs); got != hexOfText {
		t.Errorf("oklog %%x = %s; the docs say it is the hexadecimal of the text", got)
	}
	if got := fmt.Sprintf("%x", ours); got != "01563e3ab5d3d6764c61efb99302bd5b" {
		t.Errorf("our %%x = %s, want the 16 bytes", got)
	}
	// Scan of NULL leaves oklog's ULID as it was; ours reports it.
	if err := theirs.Scan(nil); err != nil || theirs != ulid.ULID(ours) {
		t.Errorf("oklog Scan(nil) = %v, ULID %s", err, theirs)
	}
	if err := ours.Scan(nil); !errors.Is(err, fastulid.ErrScanNull) {
		t.Errorf("our Scan(nil) = %v", err)
	}
}
