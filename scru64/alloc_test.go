package scru64

import (
	"runtime"
	"testing"

	"github.com/fastid/scru128/internal/idtest"
)

var (
	sinkID    ID
	sinkStr   string
	sinkErr   error
	sinkBytes []byte
)

// TestHotPathsDoNotAllocate pins the zero-allocation promise of every hot
// path. AllocsPerRun averages over many calls, so an allocation on any
// regular path (even one call in a few) shows.
func TestHotPathsDoNotAllocate(t *testing.T) {
	idtest.SkipIfInstrumented(t)
	id := MustParse("0u375nxqh5cq")
	text := id.String()
	textBytes := []byte(text)
	buf := make([]byte, 0, 64)
	g := NewGenerator(mustSpec(t, "0/1"))
	custom := NewGeneratorWithCounterMode(mustSpec(t, "0/1"), &streamMode{})
	saved := GlobalGenerator
	defer func() { GlobalGenerator = saved }()
	GlobalGenerator = new(Global)
	if err := GlobalGenerator.Initialize(mustSpec(t, "0/1")); err != nil {
		t.Fatal(err)
	}
	var ms uint64 = testMillis
	var boxed any = int64(id) // boxing allocates; Scan must not
	runtime.GC()              // start from a clean slate so a GC in the middle shows
	idtest.CheckAllocs(t, 0, 10_000, map[string]func(){
		"AppendText":      func() { buf, _ = id.AppendText(buf[:0]) },
		"AppendBinary":    func() { buf, _ = id.AppendBinary(buf[:0]) },
		"Parse":           func() { sinkID, _ = Parse(text) },
		"ParseBytes":      func() { sinkID, _ = ParseBytes(textBytes) },
		"Validate":        func() { _ = Validate(text) },
		"UnmarshalText":   func() { sinkErr = sinkID.UnmarshalText(textBytes) },
		"UnmarshalBinary": func() { sinkErr = sinkID.UnmarshalBinary(textBytes) },
		"UnmarshalJSON":   func() { sinkErr = sinkID.UnmarshalJSON([]byte(`"0u375nxqh5cq"`)) },
		"Scan":            func() { sinkErr = sinkID.Scan(boxed) },
		"Generate":        func() { sinkID, _ = g.Generate() },
		"GenerateOrSleep": func() { sinkID, _ = g.GenerateOrSleep() },
		"GenerateOrReset": func() { sinkID, _ = g.GenerateOrReset() },
		"New":             func() { sinkID = New() },
		"GlobalGenerate":  func() { sinkID, _ = GlobalGenerator.Generate() },
		"CoreNewTicks": func() {
			ms += 256 // every call starts a tick: the renewal path
			sinkID, _ = g.GenerateOrAbortCore(ms, 0)
		},
		"CoreCustomMode": func() {
			ms += 256
			sinkID, _ = custom.GenerateOrAbortCore(ms, 0)
		},
	})
	idtest.CheckAllocs(t, 1, 1000, map[string]func(){
		"String":      func() { sinkStr = id.String() },
		"NewString":   func() { sinkStr = NewString() },
		"MarshalText": func() { sinkBytes, _ = id.MarshalText() },
		"MarshalJSON": func() { sinkBytes, _ = id.MarshalJSON() },
	})
}
