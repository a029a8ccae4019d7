package interop

import (
	"encoding/binary"
	"fmt"
	"io"
	"log/slog"
	"reflect"
	"strconv"
)

// How IDs print through fmt and log/slog. Without a Format method fmt
// prints a Stringer's text for %v and %s, but %x of that text, and a type
// without String (a Binary, a Null struct) as its bytes or fields. Every ID
// type, its Binary type and its Null type share one set of rules instead:
//
//	%v %s   the text, as String returns it (an invalid Null: null)
//	%q      the text in double quotes (an invalid Null: null, as in JSON)
//	%x %X   the binary form in hexadecimal: 16 bytes, or 8 for a 64-bit ID
//	%d      the integer, for a 64-bit ID only
//	%#v     Go syntax, as fmt prints the type without a Format method
//
// Width, precision and flags apply as fmt applies them to a string (%v,
// %s, %q) or a byte slice (%x, %X). Any other verb is reported as fmt
// reports a verb a type does not take: %!d(scru128.ID=0372hg16csmsm50l8dikcvukc).

// FormatID is the Format method of the ID type S, or of a Binary type S
// given the ID it converts to. id's String returns the text; its kind
// (a byte array, uint64 or int64) decides the binary form and %d.
func FormatID[S any, T fmt.Stringer](f fmt.State, verb rune, id T) {
	switch verb {
	case 'v', 's':
		if verb == 'v' && f.Flag('#') {
			goSyntax[S](f, id)
			return
		}
		writeString(f, verb, id.String())
	case 'q':
		fmt.Fprintf(f, fmt.FormatString(f, verb), id.String())
	case 'x', 'X':
		fmt.Fprintf(f, fmt.FormatString(f, verb), bytesOf(id))
	case 'd':
		if isInteger[T]() {
			fmt.Fprintf(f, fmt.FormatString(f, verb), integerOf(id))
			return
		}
		badVerb(f, verb, reflect.TypeFor[S]().String(), id.String())
	default:
		badVerb(f, verb, reflect.TypeFor[S]().String(), id.String())
	}
}

// FormatNull is the Format method of the Null type N, a struct of an ID
// and a Valid flag: the ID as [FormatID] prints it when valid, and null
// otherwise; %#v shows both fields in Go syntax.
func FormatNull[N any, T fmt.Stringer](f fmt.State, verb rune, id T, valid bool) {
	if verb == 'v' && f.Flag('#') {
		t := reflect.TypeFor[N]()
		io.WriteString(f, t.String()+"{"+t.Field(0).Name+":")
		goSyntax[T](f, id)
		io.WriteString(f, ", "+t.Field(1).Name+":"+strconv.FormatBool(valid)+"}")
		return
	}
	if valid {
		FormatID[N](f, verb, id)
		return
	}
	switch verb {
	case 'v', 's', 'q', 'x', 'X':
	case 'd':
		if !isInteger[T]() {
			badVerb(f, verb, reflect.TypeFor[N]().String(), "null")
			return
		}
	default:
		badVerb(f, verb, reflect.TypeFor[N]().String(), "null")
		return
	}
	writeString(f, 's', "null")
}

// writeString writes s as fmt writes a string for verb, straight when no
// width or precision asks for more.
func writeString(f fmt.State, verb rune, s string) {
	_, hasWidth := f.Width()
	_, hasPrecision := f.Precision()
	if !hasWidth && !hasPrecision {
		io.WriteString(f, s)
		return
	}
	fmt.Fprintf(f, fmt.FormatString(f, verb), s)
}

// goSyntax writes id as fmt's %#v writes a value of type S that has no
// Format method: S{0x1, 0x7f, ...} for a byte array, the number for an
// integer.
func goSyntax[S any, T any](f fmt.State, id T) {
	if isInteger[T]() {
		fmt.Fprintf(f, "%#v", integerOf(id))
		return
	}
	b := []byte(reflect.TypeFor[S]().String() + "{")
	for i, c := range bytesOf(id) {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = strconv.AppendUint(append(b, "0x"...), uint64(c), 16)
	}
	f.Write(append(b, '}'))
}

// badVerb writes what fmt writes for a verb the type does not take.
func badVerb(f fmt.State, verb rune, typeName, value string) {
	io.WriteString(f, "%!"+string(verb)+"("+typeName+"="+value+")")
}

// bytesOf returns the binary form of id: the bytes of an array, the
// big-endian bytes of an integer.
func bytesOf[T any](id T) []byte {
	switch v := reflect.ValueOf(id); v.Kind() {
	case reflect.Uint64:
		return binary.BigEndian.AppendUint64(nil, v.Uint())
	case reflect.Int64:
		return binary.BigEndian.AppendUint64(nil, uint64(v.Int()))
	default:
		b := make([]byte, v.Len())
		reflect.Copy(reflect.ValueOf(b), v)
		return b
	}
}

// isInteger reports whether T is a 64-bit integer type, whose %d and %#v
// are those of the number.
func isInteger[T any]() bool {
	k := reflect.TypeFor[T]().Kind()
	return k == reflect.Uint64 || k == reflect.Int64
}

// integerOf returns id, of a type [isInteger] accepts, as a plain uint64
// or int64, which fmt prints without calling a method.
func integerOf[T any](id T) any {
	v := reflect.ValueOf(id)
	if v.Kind() == reflect.Uint64 {
		return v.Uint()
	}
	return v.Int()
}

// NullLogValue is the slog.LogValuer of a Null type: the ID's text as a
// string when valid, and otherwise a value that log/slog's TextHandler
// prints as null and its JSONHandler as the JSON null.
func NullLogValue[T fmt.Stringer](id T, valid bool) slog.Value {
	if !valid {
		return slog.AnyValue(nullValue{})
	}
	return slog.StringValue(id.String())
}

// nullValue is what an invalid Null type logs as: null in text, JSON and
// fmt.
type nullValue struct{}

func (nullValue) String() string               { return "null" }
func (nullValue) MarshalText() ([]byte, error) { return []byte("null"), nil }
func (nullValue) MarshalJSON() ([]byte, error) { return []byte("null"), nil }
