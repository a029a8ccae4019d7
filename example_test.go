package scru128_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/fastid/scru128"
)

func ExampleParse() {
	id, err := scru128.Parse("0372HG16CSMSM50L8DIKCVUKC") // case does not matter
	if err != nil {
		panic(err)
	}
	fmt.Println(id)
	fmt.Println(id.Time().Format("2006-01-02 15:04:05.000"))
	fmt.Println(id.Timestamp(), id.CounterHi(), id.CounterLo(), id.Entropy())
	// Output:
	// 0372hg16csmsm50l8dikcvukc
	// 2022-04-03 08:17:16.097
	// 1648973836097 8268596 3320878 3310577788
}

func ExampleParse_errors() {
	for _, s := range []string{"0372hg16csmsm50l8dikcvuk", "0372hg16cs_sm50l8dikcvukc", "0372hg16csmsm50l8dikcvué", "zzzzzzzzzzzzzzzzzzzzzzzzz"} {
		_, err := scru128.Parse(s)
		var (
			le  *scru128.LengthError
			ice *scru128.InvalidCharacterError
			re  *scru128.RangeError
		)
		switch {
		case errors.As(err, &le):
			fmt.Println("length", le.Got, "of", le.Want, "-", err)
		case errors.As(err, &ice):
			fmt.Println("bad character at", ice.Offset, "-", err)
		case errors.As(err, &re):
			fmt.Println("above", re.Max, "-", err)
		default:
			fmt.Println(err)
		}
	}
	// Output:
	// length 24 of 25 - scru128: invalid length 24, want 25
	// bad character at 10 - scru128: invalid character '_' (0x5f) at offset 10
	// bad character at 23 - scru128: invalid character 'é' (U+00E9) at offset 23
	// above f5lxx1zz5pnorynqglhzmsp33 - scru128: value out of range (max f5lxx1zz5pnorynqglhzmsp33)
}

func ExampleFromFields() {
	id, err := scru128.FromFields(0x017fee7fef41, 0x7e2b34, 0x32ac2e, 0xc553687c)
	if err != nil {
		panic(err)
	}
	fmt.Println(id)
	// Output: 0372hg16csmsm50l8dikcvukc
}

func ExampleMinAt() {
	// All IDs minted in one millisecond sort between these two.
	lo, _ := scru128.MinAt(1648973836097)
	hi, _ := scru128.MaxAt(1648973836097)
	id := scru128.MustParse("0372hg16csmsm50l8dikcvukc")
	fmt.Println(lo)
	fmt.Println(hi)
	fmt.Println(lo.Compare(id) <= 0 && id.Compare(hi) <= 0)
	// Output:
	// 0372hg16cpxrrsugrf72fmm0w
	// 0372hg16cvemukgqtm7zp43jz
	// true
}

func ExampleID_AppendText() {
	buf := make([]byte, 0, 64)
	id := scru128.MustParse("0372hg16csmsm50l8dikcvukc")
	buf = append(buf, "id="...)
	buf, _ = id.AppendText(buf) // no allocation: buf has room
	fmt.Println(string(buf))
	// Output: id=0372hg16csmsm50l8dikcvukc
}

func ExampleGenerator() {
	g := scru128.NewGenerator()
	a, _ := g.Generate()
	b, _ := g.Generate()
	fmt.Println(a.Compare(b)) // IDs from one generator increase
	// Output: -1
}

func ExampleID_Scan() {
	// A PostgreSQL uuid column hands database/sql the hyphenated form,
	// which Scan reads as the same 16 bytes; the plain hexadecimal form
	// and the 25-digit text work as well.
	var a, b, c scru128.ID
	_ = a.Scan("017fee7f-ef41-7e2b-3432-ac2ec553687c")
	_ = b.Scan([]byte("017FEE7FEF417E2B3432AC2EC553687C"))
	_ = c.Scan("0372hg16csmsm50l8dikcvukc")
	fmt.Println(a, a == b, b == c)
	// Output: 0372hg16csmsm50l8dikcvukc true true
}

func ExampleID_UUID() {
	id := scru128.MustParse("0372hg16csmsm50l8dikcvukc")
	u := id.UUID() // uuid.UUID(id.UUID()) for github.com/google/uuid
	fmt.Printf("%x\n", u)
	fmt.Println(scru128.FromUUID(u) == id)
	// Output:
	// 017fee7fef417e2b3432ac2ec553687c
	// true
}

func ExampleNullID_json() {
	type event struct {
		ID     scru128.ID     `json:"id"`
		Parent scru128.NullID `json:"parent,omitzero"` // left out when NULL
	}
	var e event
	_ = json.Unmarshal([]byte(`{"id":"0372hg16csmsm50l8dikcvukc","parent":""}`), &e)
	fmt.Println(e.ID, e.Parent.Valid) // "" and null are NULL
	out, _ := json.Marshal(e)
	fmt.Println(string(out))
	// Output:
	// 0372hg16csmsm50l8dikcvukc false
	// {"id":"0372hg16csmsm50l8dikcvukc"}
}

func ExampleNewAt() {
	// Backfill: an ID for a record made in 2022, with fresh random fields.
	at := time.Date(2022, 4, 3, 8, 17, 16, 97_000_000, time.UTC)
	id, err := scru128.NewAt(at)
	fmt.Println(id.Timestamp(), id.Time().Equal(at), err)
	_, err = scru128.NewAt(time.Date(1969, 12, 31, 0, 0, 0, 0, time.UTC))
	fmt.Println(err)
	// Output:
	// 1648973836097 true <nil>
	// scru128: value out of range
}

func ExampleLengthError() {
	_, err := scru128.Parse("0372hg16csmsm50l8dikcvuk")
	var le *scru128.LengthError
	if errors.As(err, &le) {
		fmt.Println(le.Got, le.Want)
	}
	fmt.Println(errors.Is(err, scru128.ErrInvalidLength))
	fmt.Println(err)
	// Output:
	// 24 25
	// true
	// scru128: invalid length 24, want 25
}

func ExampleValidate() {
	fmt.Println(scru128.Validate("0372hg16csmsm50l8dikcvukc"))
	fmt.Println(scru128.Validate("0372hg16cs_sm50l8dikcvukc"))
	fmt.Println(scru128.Validate("0372hg16csmsm50l8dikcvué"))
	// Output:
	// <nil>
	// scru128: invalid character '_' (0x5f) at offset 10
	// scru128: invalid character 'é' (U+00E9) at offset 23
}

func ExampleFieldError() {
	_, err := scru128.FromFields(0x017fee7fef41, 1<<24, 0, 0)
	var fe *scru128.FieldError
	if errors.As(err, &fe) {
		fmt.Println(fe.Field, fe.Value, fe.Max)
	}
	fmt.Println(err)
	// Output:
	// counter_hi 16777216 16777215
	// scru128: counter_hi 16777216 out of range (max 16777215)
}

func ExampleID_Format() {
	id := scru128.MustParse("0372hg16csmsm50l8dikcvukc")
	fmt.Printf("%v %q\n", id, id)
	fmt.Printf("%x\n", id)
	fmt.Println(scru128.Binary(id), scru128.NullID{ID: id, Valid: true}, scru128.NullID{})
	// Output:
	// 0372hg16csmsm50l8dikcvukc "0372hg16csmsm50l8dikcvukc"
	// 017fee7fef417e2b3432ac2ec553687c
	// 0372hg16csmsm50l8dikcvukc 0372hg16csmsm50l8dikcvukc null
}

func ExampleNullID_LogValue() {
	logger := slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{ReplaceAttr: withoutTime}))
	id := scru128.MustParse("0372hg16csmsm50l8dikcvukc")
	logger.Info("row", "id", scru128.NullID{ID: id, Valid: true}, "parent", scru128.NullID{})
	// Output: level=INFO msg=row id=0372hg16csmsm50l8dikcvukc parent=null
}

// withoutTime drops the time from a log record, so that the example's
// output does not change from run to run.
func withoutTime(groups []string, a slog.Attr) slog.Attr {
	if a.Key == slog.TimeKey && len(groups) == 0 {
		return slog.Attr{}
	}
	return a
}
