package scru128

import (
	"encoding/json"
	"runtime"
	"testing"
	"time"

	"github.com/fastid/scru128/internal/idtest"
)

// TestHotPathsDoNotAllocate pins the zero-allocation promise of every hot
// path. AllocsPerRun averages over many calls, so an allocation on any
// regular path (even one call in a few) shows.
func TestHotPathsDoNotAllocate(t *testing.T) {
	idtest.SkipIfInstrumented(t)
	id := MustParse("0372hg16csmsm50l8dikcvukc")
	text := id.String()
	textBytes := []byte(text)
	buf := make([]byte, 0, 64)
	g := NewGenerator()
	fill := make([]ID, 64)
	var scanText, scanUUID, scanRaw any = text, []byte("01a20ae5-cd8b-ec48-3da7-86bbd79a5a50"), id[:]
	jsonText := []byte(`"` + text + `"`)
	at := time.UnixMilli(1648973836097)
	runtime.GC() // start from a clean slate so a GC in the middle shows
	var binary Binary
	jsonArray := []byte(byteArrayJSON(id))
	idtest.CheckAllocs(t, 0, 10_000, map[string]func(){
		"BinaryAppendText":       func() { buf, _ = Binary(id).AppendText(buf[:0]) },
		"BinaryUnmarshalJSON":    func() { _ = binary.UnmarshalJSON(jsonText) },
		"BinaryUnmarshalJSONOld": func() { _ = binary.UnmarshalJSON(jsonArray) },
		"AppendText":             func() { buf, _ = id.AppendText(buf[:0]) },
		"Parse":                  func() { sinkID, _ = Parse(text) },
		"ParseBytes":             func() { sinkID, _ = ParseBytes(textBytes) },
		"Validate":               func() { _ = Validate(text) },
		"Generate":               func() { sinkID, _ = g.Generate() },
		"New":                    func() { sinkID = New() },
		"AppendNew":              func() { buf = AppendNew(buf[:0]) },
		"Fill":                   func() { _ = g.Fill(fill) },
		"UnmarshalText": func() {
			var v ID
			_ = v.UnmarshalText(textBytes)
		},
		"ScanText":      func() { _ = sinkID.Scan(scanText) },
		"ScanUUID":      func() { _ = sinkID.Scan(scanUUID) },
		"ScanRaw":       func() { _ = sinkID.Scan(scanRaw) },
		"UnmarshalJSON": func() { _ = sinkID.UnmarshalJSON(jsonText) },
		"NewAt":         func() { sinkID, _ = NewAt(at) },
	})
	idtest.CheckAllocs(t, 1, 1000, map[string]func(){
		"String":    func() { sinkStr = id.String() },
		"NewString": func() { sinkStr = NewString() },
	})
}

// byteArrayJSON is the JSON of id's 16 bytes as an array of numbers, the
// form a Binary had before it had JSON methods.
func byteArrayJSON(id ID) string {
	out, err := json.Marshal([16]byte(id))
	if err != nil {
		panic(err)
	}
	return string(out)
}
