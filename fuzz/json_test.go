package fuzz

import (
	"bytes"
	"encoding/json"
	"io"
	"strconv"
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

// FuzzJSONBytes16 checks the reader of a Binary's old JSON form, an array
// of 16 bytes as numbers, against encoding/json: an input that begins
// with '[' is read exactly when encoding/json reads it as an array of 16
// JSON numbers, each an integer from 0 to 255 without a sign, and gives
// the same bytes.
func FuzzJSONBytes16(f *testing.F) {
	for _, s := range []string{
		`[1,127,238,127,239,65,126,43,52,50,172,46,197,83,104,124]`,
		`[ 0 , 0,0,0,0,0,0,0,0,0,0,0,0,0,0,255 ] `, `[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,256]`,
		`[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]`, `[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]`,
		`[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,-0]`, `[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,1.0]`,
		`[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,1e2]`, `[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,01]`,
		`[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,"1"]`, `[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]x`, `[]`, `[`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, isArray, ok := interop.JSONBytes16(data)
		if isArray != (len(data) > 0 && data[0] == '[') {
			t.Fatalf("JSONBytes16(%q): isArray %v", data, isArray)
		}
		if !isArray {
			return
		}
		want, wantOK := bytes16(data)
		if ok != wantOK || ok && got != want {
			t.Fatalf("JSONBytes16(%q) = %v, %v; encoding/json %v, %v", data, got, ok, want, wantOK)
		}
	})
}

// bytes16 reads data as encoding/json reads a JSON array of numbers, and
// reports whether it holds exactly 16 integers from 0 to 255 written
// without a sign, fraction or exponent.
func bytes16(data []byte) (b [16]byte, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var values []any
	if err := dec.Decode(&values); err != nil || len(values) != 16 {
		return b, false
	}
	if _, err := dec.Token(); err != io.EOF { // nothing but whitespace after the array
		return b, false
	}
	for i, v := range values {
		n, isNumber := v.(json.Number)
		if !isNumber {
			return b, false
		}
		u, err := strconv.ParseUint(string(n), 10, 8)
		if err != nil {
			return b, false
		}
		b[i] = byte(u)
	}
	return b, true
}
