package ulidflake

import (
	"runtime"
	"testing"
)

func TestHotPathsDoNotAllocate(t *testing.T) {
	if testing.CoverMode() != "" || raceEnabled {
		t.Skip("instrumented builds allocate")
	}
	id := MustParse("00CMXB6TAK4SA")
	text := id.String()
	textBytes := []byte(text)
	buf := make([]byte, 0, 64)
	g, _ := NewGenerator(WithMaxStep(1))
	var scanned ID
	var srcInt, srcString any = int64(id), text
	runtime.GC()
	for name, fn := range map[string]func(){
		"AppendText":    func() { buf, _ = id.AppendText(buf[:0]) },
		"Parse":         func() { sinkID, _ = Parse(text) },
		"ParseBytes":    func() { sinkID, _ = ParseBytes(textBytes) },
		"UnmarshalText": func() { _ = scanned.UnmarshalText(textBytes) },
		"ScanInt64":     func() { _ = scanned.Scan(srcInt) },
		"ScanString":    func() { _ = scanned.Scan(srcString) },
		"GenerateOrWait": func() {
			sinkID, _ = g.GenerateOrWait()
		},
		"Generate": func() { sinkID, _ = g.Generate() }, // may return ErrOverflow: no allocation either
	} {
		if n := testing.AllocsPerRun(10_000, fn); n != 0 {
			t.Errorf("%s: %v allocations per call", name, n)
		}
	}
	if n := testing.AllocsPerRun(1000, func() { sinkStr = id.String() }); n != 1 {
		t.Errorf("String: %v allocations per call, want 1", n)
	}
}
