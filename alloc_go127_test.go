//go:build go1.27 && goexperiment.jsonv2

package scru128

import (
	"bytes"
	"encoding/json/jsontext"
	"testing"

	"github.com/fastid/scru128/internal/idtest"
)

// TestUnmarshalJSONFromDoesNotAllocate extends the zero-allocation promise
// of UnmarshalJSON to the method json/v2 calls, on a reused decoder.
func TestUnmarshalJSONFromDoesNotAllocate(t *testing.T) {
	idtest.SkipIfInstrumented(t)
	text := []byte(`"0372hg16csmsm50l8dikcvukc"`)
	r := bytes.NewReader(nil)
	dec := jsontext.NewDecoder(r)
	var id ID
	var b Binary
	read := func(f func(*jsontext.Decoder) error) func() {
		return func() {
			r.Reset(text)
			dec.Reset(r)
			if err := f(dec); err != nil {
				t.Fatal(err)
			}
		}
	}
	read(id.UnmarshalJSONFrom)() // the decoder's first use sizes its buffer
	idtest.CheckAllocs(t, 0, 1000, map[string]func(){
		"ID":     read(id.UnmarshalJSONFrom),
		"Binary": read(b.UnmarshalJSONFrom),
	})
}
