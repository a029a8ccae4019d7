package idtest

import (
	"bytes"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"testing"
)

// Print describes one format's ID type and the types that wrap it, for
// [CheckPrint].
type Print struct {
	ID       any    // an ID whose text has letters
	Text     string // its text, as String returns it
	Hex      string // its binary form in lower-case hexadecimal
	GoSyntax string // what fmt's %#v writes for the ID type without a Format method
	// Integer is the ID in decimal for a 64-bit format, whose %d writes
	// it, or "" for a 128-bit one, whose %d is a bad verb.
	Integer string
	// Binary is the ID as its Binary type, or nil for a format without
	// one; BinaryGoSyntax is its %#v.
	Binary         any
	BinaryGoSyntax string
	// Null and NoNull are the ID as a valid and an invalid Null value;
	// NullGoSyntax and NoNullGoSyntax are their %#v.
	Null, NoNull                 any
	NullGoSyntax, NoNullGoSyntax string
	// NullBinary and NoNullBinary are the same as the Null Binary type,
	// or nil.
	NullBinary, NoNullBinary any
}

// CheckPrint checks that an ID, its Binary and its Null types print as a
// reader expects through fmt (text for %v and %s, quoted text for %q, the
// bytes for %x and %X, null for an invalid Null, Go syntax for %#v, fmt's
// own report of a bad verb) and through log/slog's TextHandler and
// JSONHandler, whose output it compares literally.
func CheckPrint(t *testing.T, p Print) {
	t.Helper()
	typeName := func(v any) string { return fmt.Sprintf("%T", v) }
	badVerb := func(verb byte, v any, value string) string {
		return "%!" + string(verb) + "(" + typeName(v) + "=" + value + ")"
	}
	check := func(v any, format, want string) {
		t.Helper()
		if got := fmt.Sprintf(format, v); got != want {
			t.Errorf("Sprintf(%q, %s) = %q, want %q", format, typeName(v), got, want)
		}
	}
	// What the ID, its Binary and a valid Null share.
	for _, v := range []any{p.ID, p.Binary, p.Null, p.NullBinary} {
		if v == nil {
			continue
		}
		check(v, "%v", p.Text)
		check(v, "%s", p.Text)
		check(v, "%+v", p.Text)
		check(v, "%q", strconv.Quote(p.Text))
		check(v, "%#q", "`"+p.Text+"`")
		check(v, "%x", p.Hex)
		check(v, "%X", strings.ToUpper(p.Hex))
		check(v, "%#x", "0x"+p.Hex)
		check(v, "%40v|", strings.Repeat(" ", 40-len(p.Text))+p.Text+"|")
		check(v, "%-40s|", p.Text+strings.Repeat(" ", 40-len(p.Text))+"|")
		check(v, "%.4s", p.Text[:4])
		check(v, "%t", badVerb('t', v, p.Text))
		if p.Integer != "" {
			check(v, "%d", p.Integer)
			check(v, "%22d", strings.Repeat(" ", 22-len(p.Integer))+p.Integer)
		} else {
			check(v, "%d", badVerb('d', v, p.Text))
		}
		if got := fmt.Sprint(v); got != p.Text {
			t.Errorf("Sprint(%s) = %q, want %q", typeName(v), got, p.Text)
		}
	}
	check(p.ID, "%#v", p.GoSyntax)
	check(p.Null, "%#v", p.NullGoSyntax)
	check(p.NoNull, "%#v", p.NoNullGoSyntax)
	if p.Binary != nil {
		check(p.Binary, "%#v", p.BinaryGoSyntax)
	}
	// An invalid Null is null for every verb an ID takes.
	for _, v := range []any{p.NoNull, p.NoNullBinary} {
		if v == nil {
			continue
		}
		for _, format := range []string{"%v", "%s", "%q", "%x", "%X", "%+v"} {
			check(v, format, "null")
		}
		check(v, "%6v|", "  null|")
		check(v, "%-6s|", "null  |")
		check(v, "%t", badVerb('t', v, "null"))
		if p.Integer != "" {
			check(v, "%d", "null")
		} else {
			check(v, "%d", badVerb('d', v, "null"))
		}
	}
	// In a struct, as a test failure or a log line would show it.
	type row struct{ ID, Null, NoNull any }
	check(row{p.ID, p.Null, p.NoNull}, "%+v", "{ID:"+p.Text+" Null:"+p.Text+" NoNull:null}")

	checkSlog(t, p)
}

func checkSlog(t *testing.T, p Print) {
	t.Helper()
	attrs := []any{"id", p.ID, "null", p.Null, "nonull", p.NoNull}
	wantText := "level=INFO msg=m id=" + p.Text + " null=" + p.Text + " nonull=null"
	wantJSON := `{"level":"INFO","msg":"m","id":"` + p.Text + `","null":"` + p.Text + `","nonull":null`
	for _, v := range []struct {
		key string
		v   any
	}{{"bin", p.Binary}, {"nullbin", p.NullBinary}, {"nonullbin", p.NoNullBinary}} {
		if v.v == nil {
			continue
		}
		attrs = append(attrs, v.key, v.v)
		value := p.Text
		if v.key == "nonullbin" {
			value = "null"
		}
		wantText += " " + v.key + "=" + value
		if value != "null" {
			value = strconv.Quote(value)
		}
		wantJSON += `,"` + v.key + `":` + value
	}
	wantJSON += "}"
	// The time varies; drop it.
	noTime := &slog.HandlerOptions{ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
		if a.Key == slog.TimeKey && len(groups) == 0 {
			return slog.Attr{}
		}
		return a
	}}
	for _, tc := range []struct {
		name    string
		handler func(*bytes.Buffer) slog.Handler
		want    string
	}{
		{"TextHandler", func(b *bytes.Buffer) slog.Handler { return slog.NewTextHandler(b, noTime) }, wantText},
		{"JSONHandler", func(b *bytes.Buffer) slog.Handler { return slog.NewJSONHandler(b, noTime) }, wantJSON},
	} {
		var buf bytes.Buffer
		slog.New(tc.handler(&buf)).Info("m", attrs...)
		if got := strings.TrimSuffix(buf.String(), "\n"); got != tc.want {
			t.Errorf("slog %s wrote\n%s\nwant\n%s", tc.name, got, tc.want)
		}
	}
}
