package fuzz

import (
	"encoding/json"
	"testing"

	"github.com/fastid/scru128/internal/interop"
)

// FuzzJSONString checks the JSON string decoder every ID type's
// UnmarshalJSON uses against encoding/json: the same inputs are strings,
// with the same contents, escapes and invalid UTF-8 included.
func FuzzJSONString(f *testing.F) {
	for _, s := range []string{`"0372hg16csmsm50l8dikcvukc"`, `"\u0030372hg16csmsm50l8dikcvuk\u0063"`, `"\ud83d\ude00"`,
		"\"\xff\"", `"a\"b"`, `"\"`, `null`, `12`, `""`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, ok := interop.JSONString(data)
		var want string
		err := json.Unmarshal(data, &want)
		wantOK := err == nil && len(data) >= 2 && data[0] == '"' && data[len(data)-1] == '"'
		if ok != wantOK || ok && string(got) != want {
			t.Fatalf("JSONString(%q) = %q, %v; encoding/json %q, %v", data, got, ok, want, err)
		}
	})
}
