package ulidflake_test

import (
	"fmt"

	"github.com/fastid/scru128/ulidflake"
)

func ExampleParse() {
	id, err := ulidflake.Parse("00cmxb6tak4sa")
	if err != nil {
		panic(err)
	}
	fmt.Println(id, id.Int64(), id.Timestamp(), id.Randomness())
	fmt.Println(id.Time().Format("2006-01-02T15:04:05.000Z"))
	_, err = ulidflake.Parse("8000000000000")
	fmt.Println(err)
	// Output:
	// 00CMXB6TAK4SA 14246757444195114 13586766666 627498
	// 2024-06-06T06:06:06.666Z
	// ulidflake: value out of range (max 7ZZZZZZZZZZZZ)
}

func ExampleNewGenerator() {
	g, err := ulidflake.NewGenerator(ulidflake.WithScalabilityID(7))
	if err != nil {
		panic(err)
	}
	id, err := g.GenerateOrWait()
	if err != nil {
		panic(err)
	}
	fmt.Println(id.ScalabilityID())
	// Output: 7
}
