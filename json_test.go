package scru128_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/fastid/scru128"
	"github.com/fastid/scru128/legacy"
	"github.com/fastid/scru128/scru64"
	"github.com/fastid/scru128/ulid"
	"github.com/fastid/scru128/ulidflake"
)

// The JSON behaviour of every ID, Binary and Null type under encoding/json
// and, from Go 1.27, encoding/json/v2 (json_go127_test.go adds it), pinned
// case by case. Where the two packages differ by design (null read into a
// value that is not a pointer, omitempty), an ID behaves as the standard
// library's uuid.UUID does under each, which the test measures rather than
// assumes; before Go 1.27, which has no uuid package, a type with only
// uuid.UUID's text methods stands in for it.

// jsonPackage is encoding/json or encoding/json/v2 with its defaults.
type jsonPackage struct {
	name      string
	marshal   func(v any) ([]byte, error)
	unmarshal func(data []byte, v any) error
	v2        bool
}

// jsonPackages are the packages checkJSON checks under.
var jsonPackages = []jsonPackage{
	{name: "encoding/json", marshal: json.Marshal, unmarshal: json.Unmarshal},
}

// measureReference measures what the standard library's uuid.UUID does
// under a package: uuid.UUID itself from Go 1.27, a stand-in before.
var measureReference = measureFacts[textOnly]

// semanticPath returns the JSON path of a json/v2 *SemanticError in err's
// chain; without json/v2, there is none.
var semanticPath = func(err error) (string, bool) { return "", false }

// textOnly stands in for uuid.UUID before Go 1.27: 16 bytes with text
// methods and no JSON methods, as uuid.UUID has.
type textOnly [16]byte

func (u textOnly) MarshalText() ([]byte, error) { return []byte(fmt.Sprintf("%x", u[:])), nil }

func (u *textOnly) UnmarshalText(b []byte) error {
	if len(b) != 32 {
		return errors.New("invalid uuid")
	}
	_, err := fmt.Sscanf(string(b), "%x", u)
	return err
}

// The shapes every type is put in.
type (
	plainField[T any] struct {
		V T `json:"v"`
	}
	pointerField[T any] struct {
		P *T `json:"p"`
	}
	omitemptyField[T any] struct {
		V T   `json:"v,omitempty"`
		K int `json:"k"`
	}
	omitzeroField[T any] struct {
		V T   `json:"v,omitzero"`
		K int `json:"k"`
	}
	nestedField[T any] struct {
		S []plainField[T] `json:"s"`
	}
)

// uuidFacts is what uuid.UUID does under one package, where the two
// packages differ by design.
type uuidFacts struct {
	nullKeeps          bool // null read into a uuid.UUID field leaves it as it was
	omitemptyDropsZero bool
	omitzeroDropsZero  bool
}

// measureFacts measures what U, uuid.UUID or a type like it, does under p.
func measureFacts[U ~[16]byte](t *testing.T, p jsonPackage) uuidFacts {
	t.Helper()
	u := U{0x01, 0x7f, 0xee, 0x7f, 0xef, 0x41, 0x7e, 0x2b, 0x34, 0x32, 0xac, 0x2e, 0xc5, 0x53, 0x68, 0x7c}
	v := plainField[U]{V: u}
	if err := p.unmarshal([]byte(`{"v":null}`), &v); err != nil {
		t.Fatalf("%s: uuid.UUID and null: %v", p.name, err)
	}
	var facts uuidFacts
	facts.nullKeeps = v.V == u
	out, err := p.marshal(omitemptyField[U]{})
	if err != nil {
		t.Fatal(err)
	}
	facts.omitemptyDropsZero = !bytes.Contains(out, []byte(`"v"`))
	out, err = p.marshal(omitzeroField[U]{})
	if err != nil {
		t.Fatal(err)
	}
	facts.omitzeroDropsZero = !bytes.Contains(out, []byte(`"v"`))
	// A text uuid.UUID rejects is its own error under encoding/json, and
	// under json/v2 a *SemanticError with the JSON path that wraps it.
	err = p.unmarshal([]byte(`{"v":"x"}`), &v)
	checkErrorPath(t, p, "the reference", err, "/v", func(err error) bool { return err != nil && strings.Contains(err.Error(), "invalid uuid") })
	return facts
}

// checkErrorPath checks how a package reports an error a type's method
// returned: under json/v2 as a *SemanticError at path that wraps it, and
// under encoding/json as the method's error itself, which isOurs matches.
func checkErrorPath(t *testing.T, p jsonPackage, what string, err error, path string, isOurs func(error) bool) {
	t.Helper()
	if !isOurs(err) {
		t.Errorf("%s: %s: error %v, want the type's own", p.name, what, err)
		return
	}
	got, isSemantic := semanticPath(err)
	switch {
	case p.v2 && (!isSemantic || got != path):
		t.Errorf("%s: %s: error %v, want a SemanticError at %s", p.name, what, err, path)
	case !p.v2 && isSemantic:
		t.Errorf("%s: %s: error %v, want the type's own, unwrapped as for uuid.UUID", p.name, what, err)
	}
}

// jsonCase describes one type for checkJSON.
type jsonCase[T comparable] struct {
	value    T      // a valid, non-zero value
	json     string // how value marshals
	zeroJSON string // how the zero value marshals
	// null: a Null type, which reads null and "" as NULL under both
	// packages and marshals an invalid value as null.
	null bool
	// integer: an integer type, whose zero encoding/json's omitempty
	// leaves out by its kind, before any method is asked.
	integer bool
	bad     string // a JSON string the type rejects
	isBad   func(error) bool
	// oldForms are JSON values earlier releases wrote for value, which
	// must still read as value.
	oldForms []string
}

func checkJSON[T comparable](t *testing.T, c jsonCase[T]) {
	var zero T
	for _, p := range jsonPackages {
		t.Run(strings.TrimPrefix(p.name, "encoding/"), func(t *testing.T) {
			facts := measureReference(t, p)
			marshalIs := func(v any, want string) {
				t.Helper()
				out, err := p.marshal(v)
				if err != nil || string(out) != want {
					t.Errorf("Marshal(%#v) = %s, %v; want %s", v, out, err, want)
				}
			}
			unmarshalIs := func(in string, into any, read func() any, want any) {
				t.Helper()
				if err := p.unmarshal([]byte(in), into); err != nil || read() != want {
					t.Errorf("Unmarshal(%s) = %v, %v; want %v", in, read(), err, want)
				}
			}

			// Values, pointers, slices.
			marshalIs(c.value, c.json)
			marshalIs(zero, c.zeroJSON)
			marshalIs(plainField[T]{V: c.value}, `{"v":`+c.json+`}`)
			marshalIs(pointerField[T]{P: &c.value}, `{"p":`+c.json+`}`)
			marshalIs(pointerField[T]{}, `{"p":null}`)
			marshalIs([]T{c.value, zero}, `[`+c.json+`,`+c.zeroJSON+`]`)
			var v plainField[T]
			unmarshalIs(`{"v":`+c.json+`}`, &v, func() any { return v.V }, c.value)
			var ptr pointerField[T]
			if err := p.unmarshal([]byte(`{"p":`+c.json+`}`), &ptr); err != nil || ptr.P == nil || *ptr.P != c.value {
				t.Errorf("Unmarshal into a pointer: %v, %v", ptr.P, err)
			}
			var s []T
			if err := p.unmarshal([]byte(`[`+c.json+`,`+c.zeroJSON+`]`), &s); err != nil || len(s) != 2 || s[0] != c.value || s[1] != zero {
				t.Errorf("Unmarshal of a slice: %v, %v", s, err)
			}
			for _, old := range c.oldForms {
				v = plainField[T]{}
				unmarshalIs(`{"v":`+old+`}`, &v, func() any { return v.V }, c.value)
				s = nil
				if err := p.unmarshal([]byte(`[`+old+`]`), &s); err != nil || len(s) != 1 || s[0] != c.value {
					t.Errorf("Unmarshal of [%s]: %v, %v", old, s, err)
				}
			}

			// null: into a pointer, nil under both packages; into a value,
			// what uuid.UUID does under this package, except for the Null
			// types, which read it as NULL.
			ptr = pointerField[T]{P: &c.value}
			if err := p.unmarshal([]byte(`{"p":null}`), &ptr); err != nil || ptr.P != nil {
				t.Errorf("null into a pointer: %v, %v; want nil", ptr.P, err)
			}
			wantNull := zero
			if facts.nullKeeps && !c.null {
				wantNull = c.value
			}
			v = plainField[T]{V: c.value}
			unmarshalIs(`{"v":null}`, &v, func() any { return v.V }, wantNull)
			if c.null {
				v = plainField[T]{V: c.value}
				unmarshalIs(`{"v":""}`, &v, func() any { return v.V }, zero)
			}

			// omitempty and omitzero.
			dropped := func(x any) bool {
				t.Helper()
				out, err := p.marshal(x)
				if err != nil {
					t.Fatal(err)
				}
				return !bytes.Contains(out, []byte(`"v"`))
			}
			wantDrop := facts.omitemptyDropsZero
			switch {
			case c.integer && !p.v2:
				wantDrop = true // by the integer kind, as for any integer
			case c.null && p.v2:
				wantDrop = true // json/v2 leaves out what marshals as null
			}
			if got := dropped(omitemptyField[T]{}); got != wantDrop {
				t.Errorf("omitempty leaves out the zero value: %v, want %v (uuid.UUID: %v)", got, wantDrop, facts.omitemptyDropsZero)
			}
			if dropped(omitemptyField[T]{V: c.value}) {
				t.Error("omitempty leaves out a non-zero value")
			}
			if got := dropped(omitzeroField[T]{}); got != facts.omitzeroDropsZero || !got {
				t.Errorf("omitzero leaves out the zero value: %v, want true as for uuid.UUID", got)
			}
			if dropped(omitzeroField[T]{V: c.value}) {
				t.Error("omitzero leaves out a non-zero value")
			}

			// Map keys, for the types that can be one.
			if !c.null {
				m := map[T]int{c.value: 1}
				marshalIs(m, `{`+c.json+`:1}`)
				var back map[T]int
				if err := p.unmarshal([]byte(`{`+c.json+`:1}`), &back); err != nil || back[c.value] != 1 || len(back) != 1 {
					t.Errorf("map key: %v, %v", back, err)
				}
				err := p.unmarshal([]byte(`{"`+c.bad+`":1}`), &back)
				if err == nil || !c.isBad(err) {
					t.Errorf("bad map key: %v", err)
				}
			}

			// Errors, with their JSON path under json/v2.
			v = plainField[T]{V: c.value}
			err := p.unmarshal([]byte(`{"v":"`+c.bad+`"}`), &v)
			checkErrorPath(t, p, "a bad text", err, "/v", c.isBad)
			if v.V != c.value {
				t.Errorf("a failed read changed the value to %v", v.V)
			}
			var nested nestedField[T]
			err = p.unmarshal([]byte(`{"s":[{"v":`+c.json+`},{"v":"`+c.bad+`"}]}`), &nested)
			checkErrorPath(t, p, "a bad text in a slice", err, "/s/1/v", c.isBad)
			err = p.unmarshal([]byte(`{"v":true}`), &v)
			checkErrorPath(t, p, "a boolean", err, "/v", func(err error) bool { return err != nil })

			// What one package writes the other reads.
			for _, other := range jsonPackages {
				out, err := other.marshal(plainField[T]{V: c.value})
				if err != nil {
					t.Fatal(err)
				}
				v = plainField[T]{}
				unmarshalIs(string(out), &v, func() any { return v.V }, c.value)
			}
		})
	}
}

func TestJSONUnderBothPackages(t *testing.T) {
	id := scru128.MustParse("0372hg16csmsm50l8dikcvukc")
	const idText = `"0372hg16csmsm50l8dikcvukc"`
	idBytes := byteArray(id)
	lengthError := func(err error) bool {
		var e *scru128.LengthError
		return errors.As(err, &e) && e.Got == 4
	}
	t.Run("scru128.ID", func(t *testing.T) {
		checkJSON(t, jsonCase[scru128.ID]{value: id, json: idText, zeroJSON: `"0000000000000000000000000"`, bad: "0372", isBad: lengthError})
	})
	t.Run("scru128.Binary", func(t *testing.T) {
		checkJSON(t, jsonCase[scru128.Binary]{value: scru128.Binary(id), json: idText, zeroJSON: `"0000000000000000000000000"`,
			bad: "0372", isBad: lengthError, oldForms: []string{idBytes}})
	})
	t.Run("scru128.NullID", func(t *testing.T) {
		checkJSON(t, jsonCase[scru128.NullID]{value: scru128.NullID{ID: id, Valid: true}, json: idText, zeroJSON: "null", null: true,
			bad: "0372", isBad: lengthError})
	})
	t.Run("scru128.NullBinary", func(t *testing.T) {
		checkJSON(t, jsonCase[scru128.NullBinary]{value: scru128.NullBinary{ID: id, Valid: true}, json: idText, zeroJSON: "null", null: true,
			bad: "0372", isBad: lengthError, oldForms: []string{idBytes, `{"ID":` + idText + `,"Valid":true}`}})
	})

	u := ulid.MustParse("01ARZ3NDEKTSV4RRFFQ69G5FAV")
	const uText = `"01ARZ3NDEKTSV4RRFFQ69G5FAV"`
	uBytes := byteArray(u)
	ulidLength := func(err error) bool {
		var e *ulid.LengthError
		return errors.As(err, &e) && e.Got == 4
	}
	t.Run("ulid.ULID", func(t *testing.T) {
		checkJSON(t, jsonCase[ulid.ULID]{value: u, json: uText, zeroJSON: `"00000000000000000000000000"`, bad: "01AR", isBad: ulidLength})
	})
	t.Run("ulid.Binary", func(t *testing.T) {
		checkJSON(t, jsonCase[ulid.Binary]{value: ulid.Binary(u), json: uText, zeroJSON: `"00000000000000000000000000"`,
			bad: "01AR", isBad: ulidLength, oldForms: []string{uBytes}})
	})
	t.Run("ulid.NullULID", func(t *testing.T) {
		checkJSON(t, jsonCase[ulid.NullULID]{value: ulid.NullULID{ULID: u, Valid: true}, json: uText, zeroJSON: "null", null: true,
			bad: "01AR", isBad: ulidLength})
	})
	t.Run("ulid.NullBinary", func(t *testing.T) {
		checkJSON(t, jsonCase[ulid.NullBinary]{value: ulid.NullBinary{ULID: u, Valid: true}, json: uText, zeroJSON: "null", null: true,
			bad: "01AR", isBad: ulidLength, oldForms: []string{uBytes, `{"ULID":` + uText + `,"Valid":true}`}})
	})

	l := legacy.MustParse("00PGHAJ3Q9VAJ7IU6PQBHBUAK4")
	const lText = `"00PGHAJ3Q9VAJ7IU6PQBHBUAK4"`
	lBytes := byteArray(l)
	legacyLength := func(err error) bool {
		var e *legacy.LengthError
		return errors.As(err, &e) && e.Got == 4
	}
	t.Run("legacy.ID", func(t *testing.T) {
		checkJSON(t, jsonCase[legacy.ID]{value: l, json: lText, zeroJSON: `"00000000000000000000000000"`, bad: "00PG", isBad: legacyLength})
	})
	t.Run("legacy.Binary", func(t *testing.T) {
		checkJSON(t, jsonCase[legacy.Binary]{value: legacy.Binary(l), json: lText, zeroJSON: `"00000000000000000000000000"`,
			bad: "00PG", isBad: legacyLength, oldForms: []string{lBytes}})
	})
	t.Run("legacy.NullID", func(t *testing.T) {
		checkJSON(t, jsonCase[legacy.NullID]{value: legacy.NullID{ID: l, Valid: true}, json: lText, zeroJSON: "null", null: true,
			bad: "00PG", isBad: legacyLength})
	})
	t.Run("legacy.NullBinary", func(t *testing.T) {
		checkJSON(t, jsonCase[legacy.NullBinary]{value: legacy.NullBinary{ID: l, Valid: true}, json: lText, zeroJSON: "null", null: true,
			bad: "00PG", isBad: legacyLength, oldForms: []string{lBytes, `{"ID":` + lText + `,"Valid":true}`}})
	})

	s64 := scru64.MustParse("0u375nxqh5cq")
	s64Length := func(err error) bool {
		var e *scru64.LengthError
		return errors.As(err, &e) && e.Got == 4
	}
	t.Run("scru64.ID", func(t *testing.T) {
		checkJSON(t, jsonCase[scru64.ID]{value: s64, json: `"0u375nxqh5cq"`, zeroJSON: `"000000000000"`, integer: true,
			bad: "0u37", isBad: s64Length, oldForms: []string{fmt.Sprint(uint64(s64))}})
	})
	t.Run("scru64.NullID", func(t *testing.T) {
		checkJSON(t, jsonCase[scru64.NullID]{value: scru64.NullID{ID: s64, Valid: true}, json: `"0u375nxqh5cq"`, zeroJSON: "null", null: true,
			bad: "0u37", isBad: s64Length, oldForms: []string{fmt.Sprint(uint64(s64))}})
	})

	f := ulidflake.MustParse("00CMXB6TAK4SA")
	flakeLength := func(err error) bool {
		var e *ulidflake.LengthError
		return errors.As(err, &e) && e.Got == 4
	}
	t.Run("ulidflake.ID", func(t *testing.T) {
		checkJSON(t, jsonCase[ulidflake.ID]{value: f, json: `"00CMXB6TAK4SA"`, zeroJSON: `"0000000000000"`, integer: true,
			bad: "00CM", isBad: flakeLength, oldForms: []string{fmt.Sprint(int64(f))}})
	})
	t.Run("ulidflake.NullID", func(t *testing.T) {
		checkJSON(t, jsonCase[ulidflake.NullID]{value: ulidflake.NullID{ID: f, Valid: true}, json: `"00CMXB6TAK4SA"`, zeroJSON: "null", null: true,
			bad: "00CM", isBad: flakeLength, oldForms: []string{fmt.Sprint(int64(f))}})
	})
}

// byteArray is how encoding/json wrote a Binary before it had JSON
// methods: its 16 bytes as an array of numbers.
func byteArray[T ~[16]byte](id T) string {
	out, err := json.Marshal([16]byte(id))
	if err != nil {
		panic(err)
	}
	return string(out)
}

// TestBinaryJSONOldForms pins the edges of the forms a Binary and a
// NullBinary wrote before they had JSON methods: an array that is not 16
// bytes is an error that says what a Binary takes, and leaves the value
// as it was; an old NullBinary object with Valid false is NULL.
func TestBinaryJSONOldForms(t *testing.T) {
	id := scru128.MustParse("0372hg16csmsm50l8dikcvukc")
	for _, bad := range []string{`[]`, `[1,2]`, `[` + strings.Repeat("0,", 16) + `0]`, `[` + strings.Repeat("0,", 15) + `256]`,
		`[` + strings.Repeat("0,", 15) + `-1]`, `[` + strings.Repeat("0,", 15) + `1.5]`, `[` + strings.Repeat("0,", 15) + `"1"]`} {
		b := scru128.Binary(id)
		err := b.UnmarshalJSON([]byte(bad))
		if err == nil || !strings.Contains(err.Error(), "scru128: a Binary in JSON must be a string, null or an array of 16 numbers from 0 to 255") ||
			b != scru128.Binary(id) {
			t.Errorf("Binary.UnmarshalJSON(%s) = %v, left %v", bad, err, b)
		}
		n := scru128.NullBinary{ID: id, Valid: true}
		if err := n.UnmarshalJSON([]byte(bad)); err == nil || n.ID != id || !n.Valid {
			t.Errorf("NullBinary.UnmarshalJSON(%s) = %v, left %v", bad, err, n)
		}
	}
	n := scru128.NullBinary{ID: id, Valid: true}
	if err := json.Unmarshal([]byte(`{"ID":"0372hg16csmsm50l8dikcvukc","Valid":false}`), &n); err != nil || n != (scru128.NullBinary{}) {
		t.Errorf("old object with Valid false: %v, %v", n, err)
	}
	n = scru128.NullBinary{ID: id, Valid: true}
	if err := json.Unmarshal([]byte(`{"ID":"0372","Valid":true}`), &n); err == nil || n.ID != id || !n.Valid {
		t.Errorf("old object with a bad ID: %v, left %v", err, n)
	}
}
