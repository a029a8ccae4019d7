package ulid_test

import (
	"fmt"

	"github.com/fastid/scru128/ulid"
)

func ExampleParse() {
	id, err := ulid.Parse("01arz3ndektsv4rrffq69g5fav")
	if err != nil {
		panic(err)
	}
	fmt.Println(id, id.Timestamp(), id.Time().Format("2006-01-02T15:04:05.000Z07:00"))
	_, err = ulid.Parse("8ZZZZZZZZZZZZZZZZZZZZZZZZZ")
	fmt.Println(err)
	_, err = ulid.Parse("01ARZ3NDEKTSV4RRFFQ69G5FAU")
	fmt.Println(err)
	// Output:
	// 01ARZ3NDEKTSV4RRFFQ69G5FAV 1469922850259 2016-07-30T23:54:10.259Z
	// ulid: value out of range (max 7ZZZZZZZZZZZZZZZZZZZZZZZZZ)
	// ulid: invalid character 'U' (0x55) at offset 25
}

func ExampleGenerator() {
	g := ulid.NewGenerator()
	a, _ := g.Generate()
	b, _ := g.Generate()
	fmt.Println(a.Compare(b))
	// Output: -1
}

func ExampleMinAt() {
	lo, _ := ulid.MinAt(1469922850259)
	hi, _ := ulid.MaxAt(1469922850259)
	fmt.Println(lo)
	fmt.Println(hi)
	// Output:
	// 01ARZ3NDEK0000000000000000
	// 01ARZ3NDEKZZZZZZZZZZZZZZZZ
}

func ExampleULID_UUID() {
	id := ulid.MustParse("01ARZ3NDEKTSV4RRFFQ69G5FAV")
	u := id.UUID() // convert with uuid.UUID(id.UUID()) for github.com/google/uuid
	fmt.Printf("%x\n", u)
	fmt.Println(ulid.FromUUID(u) == id)
	// Output:
	// 01563e3ab5d3d6764c61efb99302bd5b
	// true
}
