package ulid

import (
	"encoding/json"
	"runtime"
	"testing"
	"time"

	"github.com/fastid/scru128/internal/idtest"
)

// TestHotPathsDoNotAllocate pins the zero-allocation promise of every hot
// path.
func TestHotPathsDoNotAllocate(t *testing.T) {
	idtest.SkipIfInstrumented(t)
	id := MustParse("01ARZ3NDEKTSV4RRFFQ69G5FAV")
	text := id.String()
	textBytes := []byte(text)
	buf := make([]byte, 0, 64)
	g := NewGenerator()
	var scanned ULID
	// Boxed once here: converting to any on each call would allocate.
	var srcString, srcBytes any = text, textBytes
	var srcUUID, srcRaw any = "01563e3a-b5d3-d676-4c61-efb99302bd5b", id[:]
	jsonText := []byte(`"` + text + `"`)
	at := time.UnixMilli(1469922850259)
	runtime.GC()
	var binary Binary
	jsonArray := []byte(byteArrayJSON(id))
	idtest.CheckAllocs(t, 0, 10_000, map[string]func(){
		"BinaryAppendText":       func() { buf, _ = Binary(id).AppendText(buf[:0]) },
		"BinaryUnmarshalJSON":    func() { _ = binary.UnmarshalJSON(jsonText) },
		"BinaryUnmarshalJSONOld": func() { _ = binary.UnmarshalJSON(jsonArray) },
		"AppendText":             func() { buf, _ = id.AppendText(buf[:0]) },
		"AppendBinary":           func() { buf, _ = id.AppendBinary(buf[:0]) },
		"Parse":                  func() { sinkID, _ = Parse(text) },
		"ParseBytes":             func() { sinkID, _ = ParseBytes(textBytes) },
		"Validate":               func() { _ = Validate(text) },
		"UnmarshalText":          func() { _ = scanned.UnmarshalText(textBytes) },
		"ScanString":             func() { _ = scanned.Scan(srcString) },
		"ScanBytes":              func() { _ = scanned.Scan(srcBytes) },
		"ScanUUID":               func() { _ = scanned.Scan(srcUUID) },
		"ScanRaw":                func() { _ = scanned.Scan(srcRaw) },
		"UnmarshalJSON":          func() { _ = scanned.UnmarshalJSON(jsonText) },
		"NewUnordered":           func() { sinkID = NewUnordered() },
		"AppendNew":              func() { buf = AppendNew(buf[:0]) },
		"NewAt":                  func() { sinkID, _ = NewAt(at) },
		"Generate":               func() { sinkID, _ = g.Generate() },
		"Make":                   func() { sinkID = Make() },
		"New":                    func() { sinkID = New() },
	})
	idtest.CheckAllocs(t, 1, 1000, map[string]func(){"String": func() { sinkStr = id.String() }})
}

// byteArrayJSON is the JSON of id's 16 bytes as an array of numbers, the
// form a Binary had before it had JSON methods.
func byteArrayJSON(id ULID) string {
	out, err := json.Marshal([16]byte(id))
	if err != nil {
		panic(err)
	}
	return string(out)
}
