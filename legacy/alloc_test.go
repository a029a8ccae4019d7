package legacy

import (
	"runtime"
	"testing"
	"time"

	"github.com/fastid/scru128/internal/idtest"
)

func TestHotPathsDoNotAllocate(t *testing.T) {
	if testing.CoverMode() != "" || idtest.RaceEnabled {
		t.Skip("instrumented builds allocate")
	}
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
	for name, fn := range map[string]func(){
		"AppendText":    func() { buf, _ = id.AppendText(buf[:0]) },
		"Parse":         func() { sinkID, _ = Parse(text) },
		"ParseBytes":    func() { sinkID, _ = ParseBytes(textBytes) },
		"UnmarshalText": func() { _ = scanned.UnmarshalText(textBytes) },
		"Generate":      func() { sinkID, _ = g.Generate() },
		"New":           func() { sinkID = New() },
		"ScanUUID":      func() { _ = scanned.Scan(srcUUID) },
		"ScanRaw":       func() { _ = scanned.Scan(srcRaw) },
		"UnmarshalJSON": func() { _ = scanned.UnmarshalJSON(jsonText) },
		"NewAt":         func() { sinkID, _ = NewAt(at) },
	} {
		if n := testing.AllocsPerRun(10_000, fn); n != 0 {
			t.Errorf("%s: %v allocations per call", name, n)
		}
	}
	if n := testing.AllocsPerRun(1000, func() { sinkStr = id.String() }); n != 1 {
		t.Errorf("String: %v allocations per call, want 1", n)
	}
}
