package ulidflake

import (
	"runtime"
	"testing"
	"time"

	"github.com/fastid/scru128/internal/idtest"
)

func TestHotPathsDoNotAllocate(t *testing.T) {
	idtest.SkipIfInstrumented(t)
	id := MustParse("00CMXB6TAK4SA")
	text := id.String()
	textBytes := []byte(text)
	buf := make([]byte, 0, 64)
	g, _ := NewGenerator(WithMaxStep(1))
	var scanned ID
	var srcInt, srcString any = int64(id), text
	var srcDecimal, srcBinary any = []byte("14246757444195114"), []byte{0, 0x32, 0x9d, 0x59, 0xb4, 0xa9, 0x93, 0x2a}
	// 13 digits of which only the decimal reading is an ID, and 13 whose
	// two readings agree: Scan looks for a second reading without
	// allocating.
	var srcDigits, srcAgree any = "9000000000000", []byte("0000000000007")
	jsonText, jsonInt := []byte(`"`+text+`"`), []byte("14246757444195114")
	at := DefaultEpoch().Add(time.Hour)
	runtime.GC()
	idtest.CheckAllocs(t, 0, 10_000, map[string]func(){
		"AppendText":    func() { buf, _ = id.AppendText(buf[:0]) },
		"Parse":         func() { sinkID, _ = Parse(text) },
		"ParseBytes":    func() { sinkID, _ = ParseBytes(textBytes) },
		"Validate":      func() { _ = Validate(text) },
		"UnmarshalText": func() { _ = scanned.UnmarshalText(textBytes) },
		"ScanInt64":     func() { _ = scanned.Scan(srcInt) },
		"ScanString":    func() { _ = scanned.Scan(srcString) },
		"GenerateOrWait": func() {
			sinkID, _ = g.GenerateOrWait()
		},
		"Generate":      func() { sinkID, _ = g.Generate() }, // may return ErrMonotonicOverflow: no allocation either
		"New":           func() { sinkID = New() },
		"ScanDecimal":   func() { _ = scanned.Scan(srcDecimal) },
		"ScanBinary":    func() { _ = scanned.Scan(srcBinary) },
		"ScanDigits":    func() { _ = scanned.Scan(srcDigits) },
		"ScanAgree":     func() { _ = scanned.Scan(srcAgree) },
		"AppendBinary":  func() { buf, _ = id.AppendBinary(buf[:0]) },
		"UnmarshalJSON": func() { _ = scanned.UnmarshalJSON(jsonText) },
		"JSONInteger":   func() { _ = scanned.UnmarshalJSON(jsonInt) },
		"NewAt":         func() { sinkID, _ = NewAt(at) },
	})
	idtest.CheckAllocs(t, 1, 1000, map[string]func(){"String": func() { sinkStr = id.String() }})
}
