package scru128_test

// The code samples of the README and of docs/, as examples, so that they
// compile and, where their output is fixed, run. cmd/scru128's README test
// checks that each sample is held by an example like these.

import (
	"errors"
	"fmt"
	"log"

	"github.com/fastid/scru128"
)

// Example_quickStart is the README's quick start. Its IDs are new each
// time, so it has no fixed output.
func Example_quickStart() {
	id := scru128.New()                    // a new ID
	fmt.Println(id)                        // 03h9yrvn290a2pa54qgx42ly6, for example
	fmt.Println(id.Time(), id.Timestamp()) // its time, and as Unix milliseconds

	s := scru128.NewString() // a new ID as text
	fmt.Println(s)

	buf := make([]byte, 0, 64)
	buf = scru128.AppendNew(buf[:0]) // a new ID appended as text, without allocation
	fmt.Println(string(buf))

	parsed, err := scru128.Parse("0372hg16csmsm50l8dikcvukc")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(parsed.Time()) // 2022-04-03 08:17:16.097 +0000 UTC
}

func Example_parseErrors() {
	_, err := scru128.Parse("0372hg16cs_sm50l8dikcvukc")
	fmt.Println(err) // scru128: invalid character '_' (0x5f) at offset 10
	var ice *scru128.InvalidCharacterError
	if errors.As(err, &ice) {
		fmt.Println(ice.Offset) // 10
	}
	fmt.Println(errors.Is(err, scru128.ErrInvalidCharacter)) // true
	// Output:
	// scru128: invalid character '_' (0x5f) at offset 10
	// 10
	// true
}

// Example_fromTheReferenceLibrary is docs/migrating.md's note for users of
// github.com/scru128/go-scru128.
func Example_fromTheReferenceLibrary() {
	// FromFields returns an error where the reference panics.
	id, err := scru128.FromFields(0x017fee7fef41, 0x7e2b34, 0x32ac2e, 0xc553687c)
	if err != nil {
		log.Fatal(err) // errors.Is(err, scru128.ErrOutOfRange)
	}
	fmt.Println(id.Compare(scru128.MustParse("0372hg16csmsm50l8dikcvukc"))) // id.Cmp in the reference
	// Output: 0
}
