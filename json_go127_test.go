//go:build go1.27 && goexperiment.jsonv2

package scru128_test

import (
	"encoding/json/v2"
	"errors"
	"uuid"
)

// From Go 1.27 the checks of json_test.go run under encoding/json/v2 too,
// and measure the standard library's uuid.UUID itself.
func init() {
	jsonPackages = append(jsonPackages, jsonPackage{
		name:      "encoding/json/v2",
		marshal:   func(v any) ([]byte, error) { return json.Marshal(v) },
		unmarshal: func(data []byte, v any) error { return json.Unmarshal(data, v) },
		v2:        true,
	})
	measureReference = measureFacts[uuid.UUID]
	semanticPath = func(err error) (string, bool) {
		var se *json.SemanticError
		if !errors.As(err, &se) {
			return "", false
		}
		return string(se.JSONPointer), true
	}
}
