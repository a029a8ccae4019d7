package ulid

import (
	"runtime"
	"testing"
	"time"

	"github.com/fastid/scru128/internal/idtest"
)

// TestHotPathsDoNotAllocate pins the zero-allocation promise of every hot
// path.
func TestHotPathsDoNotAllocate(t *testing.T) {
	if testing.CoverMode() != "" || idtest.RaceEnabled {
		t.Skip("instrumented builds allocate")
	}
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
	for name, fn := range map[string]func(){
		"AppendText":    func() { buf, _ = id.AppendText(buf[:0]) },
		"AppendBinary":  func() { buf, _ = id.AppendBinary(buf[:0]) },
		"Parse":         func() { sinkID, _ = Parse(text) },
		"ParseBytes":    func() { sinkID, _ = ParseBytes(textBytes) },
		"UnmarshalText": func() { _ = scanned.UnmarshalText(textBytes) },
		"ScanString":    func() { _ = scanned.Scan(srcString) },
		"ScanBytes":     func() { _ = scanned.Scan(srcBytes) },
		"ScanUUID":      func() { _ = scanned.Scan(srcUUID) },
		"ScanRaw":       func() { _ = scanned.Scan(srcRaw) },
		"UnmarshalJSON": func() { _ = scanned.UnmarshalJSON(jsonText) },
		"NewUnordered":  func() { sinkID = NewUnordered() },
		"AppendNew":     func() { buf = AppendNew(buf[:0]) },
		"NewAt":         func() { sinkID, _ = NewAt(at) },
		"Generate":      func() { sinkID, _ = g.Generate() },
		"Make":          func() { sinkID = Make() },
		"New":           func() { sinkID = New() },
	} {
		if n := testing.AllocsPerRun(10_000, fn); n != 0 {
			t.Errorf("%s: %v allocations per call", name, n)
		}
	}
	if n := testing.AllocsPerRun(1000, func() { sinkStr = id.String() }); n != 1 {
		t.Errorf("String: %v allocations per call, want 1", n)
	}
}
