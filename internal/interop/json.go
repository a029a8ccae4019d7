package interop

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// JSONString returns the contents of data if data is exactly one JSON
// string, with its escapes decoded as encoding/json decodes them, and ok
// false otherwise. A string of plain printable ASCII without a backslash
// (every ID's text) is returned as a subslice of data, without allocation;
// anything else goes through encoding/json, so \u escapes, surrogate pairs
// and invalid UTF-8 come out exactly as they would there.
func JSONString(data []byte) (s []byte, ok bool) {
	if len(data) < 2 || data[0] != '"' || data[len(data)-1] != '"' {
		return nil, false
	}
	inner := data[1 : len(data)-1]
	plain := true
	for _, c := range inner {
		if c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			plain = false
			break
		}
	}
	if plain {
		return inner, true
	}
	// The copy keeps data from escaping to the heap through the decoder,
	// so a caller's stack buffer stays there on the fast path.
	var str string
	if err := json.Unmarshal(bytes.Clone(data), &str); err != nil {
		return nil, false
	}
	return []byte(str), true
}

// JSONKind says what [DecodeJSON] found.
type JSONKind int

const (
	// JSONNull is the literal null.
	JSONNull JSONKind = iota
	// JSONText is a JSON string: the text form, to parse.
	JSONText
	// JSONInt is a JSON integer (64-bit formats only).
	JSONInt
	// JSONInvalid is anything else; the error says so.
	JSONInvalid
)

// DecodeJSON classifies an ID's JSON value: null, a string (whose
// contents it returns, unescaped), or, when allowInt is set, a
// non-negative integer up to max (which it returns). An integer above max
// is e.Range; anything else, including a negative number, a fraction or
// an exponent, is e.JSON.
func DecodeJSON(data []byte, allowInt bool, max uint64, e *Errors) (text []byte, n uint64, kind JSONKind, err error) {
	if string(data) == "null" {
		return nil, 0, JSONNull, nil
	}
	if s, ok := JSONString(data); ok {
		return s, 0, JSONText, nil
	}
	if allowInt && len(data) > 0 && '0' <= data[0] && data[0] <= '9' {
		// A JSON integer is digits only, and more than one only
		// without a leading zero; ParseDecimal checks the digits.
		if len(data) == 1 || data[0] != '0' {
			if v, err := ParseDecimal(data, FormText, max, e); err == nil {
				return nil, v, JSONInt, nil
			} else if err == e.Range {
				return nil, 0, JSONInvalid, err
			}
		}
	}
	return nil, 0, JSONInvalid, jsonError(data, e)
}

// jsonError wraps e.JSON with a short quote of what was found.
func jsonError(data []byte, e *Errors) error {
	const limit = 40
	quoted := data
	if len(quoted) > limit {
		quoted = quoted[:limit]
	}
	return fmt.Errorf("%w, got %q", e.JSON, string(quoted)) // a copy: data must not escape
}
