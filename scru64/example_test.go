package scru64_test

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/fastid/scru128/scru64"
)

func ExampleParse() {
	id, err := scru64.Parse("0U375NXQH5CQ") // case is ignored
	if err != nil {
		panic(err)
	}
	fmt.Println(id, id.Int64())
	fmt.Println(id.Timestamp(), id.Time().Format(time.RFC3339Nano))
	fmt.Printf("node_ctr %#06x\n", id.NodeCtr())

	_, err = scru64.Parse("0u375nx-h5cq")
	fmt.Println(err)
	// Output:
	// 0u375nxqh5cq 110009624767914842
	// 6557084606 2023-03-12T09:34:19.136Z
	// node_ctr 0x2a635a
	// scru64: invalid character '-' (0x2d) at offset 7
}

func ExampleFromParts() {
	id, _ := scru64.FromParts(6557084606, 0x2a635a)
	fmt.Println(id)
	_, err := scru64.FromUint64(4738381338321616896) // 36^12
	fmt.Println(err)
	// Output:
	// 0u375nxqh5cq
	// scru64: value out of range (max 4738381338321616895)
}

func ExampleParseNodeSpec() {
	for _, s := range []string{"42/8", "0xb00/12", "0u2r85hm2pt3/16", "1024/8"} {
		spec, err := scru64.ParseNodeSpec(s)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Println(spec, spec.NodeID(), spec.NodeIDSize())
	}
	// Output:
	// 42/8 42 8
	// 2816/12 2816 12
	// 0u2r85hm2pt3/16 11001 16
	// scru64: invalid node spec "1024/8": node ID 1024 does not fit in 8 bits (the largest is 255) (want <node ID>/<size> such as "42/8", "0xb00/12" or "0u2r85hm2pt3/16")
}

// zeroMode starts every tick's counter at 0, to make the example
// deterministic; the default is random.
type zeroMode struct{}

func (zeroMode) Renew(uint8, scru64.RenewContext) uint32 { return 0 }

func ExampleGenerator_GenerateOrAbortCore() {
	spec, _ := scru64.ParseNodeSpec("0x3ff/22") // a 2-bit counter: 4 IDs per tick
	g := scru64.NewGeneratorWithCounterMode(spec, zeroMode{})
	const unixMillis = 1_700_000_000_000
	for range 5 {
		id, _ := g.GenerateOrAbortCore(unixMillis, scru64.DefaultRollbackAllowance)
		fmt.Println(id, id.Timestamp(), id.NodeCtr()>>2, id.NodeCtr()&3)
	}
	// Output:
	// 0ugzz2pk28l8 6640625000 1023 0
	// 0ugzz2pk28l9 6640625000 1023 1
	// 0ugzz2pk28la 6640625000 1023 2
	// 0ugzz2pk28lb 6640625000 1023 3
	// 0ugzz2pu1tz0 6640625001 1023 0
}

func ExampleGenerator() {
	spec, err := scru64.ParseNodeSpec("42/8")
	if err != nil {
		panic(err)
	}
	g := scru64.NewGenerator(spec)
	a, _ := g.Generate()
	b, _ := g.Generate()
	fmt.Println(a < b, a.NodeCtr()>>16)
	// Output: true 42
}

func ExampleNew() {
	// Normally the environment gives each process its node spec, as in
	// SCRU64_NODE_SPEC=42/8 ./server; code may instead set it before the
	// first use, as docs/formats.md says: Initialize takes a NodeSpec, which
	// ParseNodeSpec makes from the variable's text.
	spec, err := scru64.ParseNodeSpec("42/8")
	if err != nil {
		panic(err)
	}
	if err := scru64.GlobalGenerator.Initialize(spec); err != nil {
		panic(err)
	}
	id := scru64.New()
	fmt.Println(len(id.String()), id.NodeCtr()>>16)
	// Output: 12 42
}

func ExampleID_MarshalJSON() {
	var v struct {
		ID   scru64.ID
		Copy scru64.ID
	}
	// A string in, or a number from a system that stores IDs as integers.
	_ = json.Unmarshal([]byte(`{"ID":"0u375nxqh5cq","Copy":110009624767914842}`), &v)
	out, _ := json.Marshal(v)
	fmt.Println(string(out))
	// Output: {"ID":"0u375nxqh5cq","Copy":"0u375nxqh5cq"}
}
