package legacy

import (
	"encoding/json"
	"runtime"
	"testing"
	"time"

	"github.com/fastid/scru128/internal/idtest"
)

func TestHotPathsDoNotAllocate(t *testing.T) {
	idtest.SkipIfInstrumented(t)
	id := MustParse("00PGHAJ3Q9VAJ7IU6PQBHBUAK4")
	text := id.String()
	textBytes := []byte(text)
	buf := make([]byte, 0, 64)
	g := NewGenerator()
	var scanned ID
	var srcUUID, srcRaw any = "00cc22a9-8f49-faa6-7978-d9d2e2bf2a84", id[:]
	jsonText := []byte(`"` + text + `"`)
	at := time.UnixMilli(TimestampBias + 1000)
	runtime.GC()
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
		"UnmarshalText":          func() { _ = scanned.UnmarshalText(textBytes) },
		"Generate":               func() { sinkID, _ = g.Generate() },
		"New":                    func() { sinkID = New() },
		"ScanUUID":               func() { _ = scanned.Scan(srcUUID) },
		"ScanRaw":                func() { _ = scanned.Scan(srcRaw) },
		"UnmarshalJSON":          func() { _ = scanned.UnmarshalJSON(jsonText) },
		"NewAt":                  func() { sinkID, _ = NewAt(at) },
	})
	idtest.CheckAllocs(t, 1, 1000, map[string]func(){"String": func() { sinkStr = id.String() }})
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
