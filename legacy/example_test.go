package legacy_test

import (
	"fmt"

	"github.com/fastid/scru128/legacy"
)

func ExampleParse() {
	id, err := legacy.Parse("00pghaj3q9vaj7iu6pqbhbuak4")
	if err != nil {
		panic(err)
	}
	fmt.Println(id, id.Time().Format("2006-01-02T15:04:05.000Z"))
	fmt.Println(id.Counter(), id.PerSecRandom(), id.PerGenRandom())
	_, err = legacy.Parse("80000000000000000000000000")
	fmt.Println(err)
	// Output:
	// 00PGHAJ3Q9VAJ7IU6PQBHBUAK4 2021-09-26T05:26:19.124Z
	// 167421561 7920082 3804179076
	// legacy: value out of range (max 7VVVVVVVVVVVVVVVVVVVVVVVVV)
}
