//go:build go1.27 && goexperiment.jsonv2

package interop

import (
	jsonv1 "encoding/json"
	"encoding/json/jsontext"
	jsonv2 "encoding/json/v2"
)

// The json/v2 side of the ID types' JSON, built only where
// encoding/json/v2 is (Go 1.27 with its default GOEXPERIMENT; the
// experiment's tag keeps a build with GOEXPERIMENT=nojsonv2 working).
// encoding/json and encoding/json/v2 differ by design on null read into a
// value that is not a pointer: encoding/json leaves the value as it was,
// json/v2 sets it to zero. An UnmarshalJSON method cannot tell which
// package called it; an UnmarshalJSONFrom method, which both call when a
// type has one (encoding/json is built on json/v2 in Go 1.27), can, from
// the options its decoder carries.

// UnmarshalJSONFrom is the UnmarshalJSONFrom method of an ID type T: it
// reads one JSON value from dec and hands it to T's UnmarshalJSON, except
// null, which leaves *id as it was under encoding/json's semantics
// (encoding/json sets MergeWithLegacySemantics) and sets it to zero
// otherwise, as each package does for uuid.UUID and other types without
// JSON methods of their own.
func UnmarshalJSONFrom[T any, P interface {
	*T
	UnmarshalJSON(data []byte) error
}](dec *jsontext.Decoder, id P) error {
	value, err := dec.ReadValue()
	if err != nil {
		return err
	}
	if value.Kind() == 'n' {
		if keep, _ := jsonv2.GetOption(dec.Options(), jsonv1.MergeWithLegacySemantics); !keep {
			var zero T
			*id = zero
		}
		return nil
	}
	return id.UnmarshalJSON(value)
}
