package ulid_test

// The ULID samples of docs/migrating.md, as examples; see the root package's
// example_readme_test.go.

import (
	"fmt"

	"github.com/fastid/scru128/ulid"
)

// Example_fromOklog is docs/migrating.md's warning for users of oklog/ulid, whose
// Time and Timestamp are the other way round.
func Example_fromOklog() {
	id := ulid.MustParse("01ARZ3NDEKTSV4RRFFQ69G5FAV")
	fmt.Println(id.Timestamp()) // 1469922850259 (oklog: id.Time())
	fmt.Println(id.Time())      // 2016-07-30 23:54:10.259 +0000 UTC (oklog: id.Timestamp())
	// Output:
	// 1469922850259
	// 2016-07-30 23:54:10.259 +0000 UTC
}

// Example_fromGoogleUUID is docs/migrating.md's note for users of google/uuid.
func Example_fromGoogleUUID() {
	id := ulid.MustParse("01ARZ3NDEKTSV4RRFFQ69G5FAV")
	u := id.UUID() // convert with uuid.UUID(id.UUID()) for github.com/google/uuid
	fmt.Printf("%x\n", u)
	fmt.Println(ulid.FromUUID(u) == id)
	// Output:
	// 01563e3ab5d3d6764c61efb99302bd5b
	// true
}
