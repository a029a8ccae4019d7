//go:build (unix && !aix) || windows

package cli

import (
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/fastid/scru128"
	"github.com/fastid/scru128/legacy"
	"github.com/fastid/scru128/scru64"
	"github.com/fastid/scru128/ulid"
	"github.com/fastid/scru128/ulidflake"
)

// reader is what the format packages' ID types read IDs with.
type reader[T any] interface {
	*T
	Scan(src any) error
	UnmarshalText(b []byte) error
	UnmarshalJSON(b []byte) error
}

// TestGenFormsReadBack sends random IDs, at every offset from their
// format's epoch (the first hours after it most densely, where a 64-bit
// ID's integer is small), through every form gen prints (text, -upper,
// -hex, -uuid, each with and without -upper) and reads each output back
// with Scan (as a string and as a []byte), UnmarshalText and
// UnmarshalJSON (of the output and of the output as a JSON string): each
// must give the same ID or an error, never another ID. A 64-bit ID's
// -hex, whose 16 digits are often all decimal digits, is the form this
// guards.
func TestGenFormsReadBack(t *testing.T) {
	r := rand.New(rand.NewPCG(24, 5))
	n := 20_000
	if testing.Short() {
		n = 2_000
	}
	random16 := func() (b [16]byte) {
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		return b
	}
	for _, f := range formats {
		t.Run(f.name, func(t *testing.T) {
			switch k := f.id.(type) {
			case *kind[scru128.ID]:
				checkGenForms(t, k, n, func() scru128.ID { return random16() })
			case *kind[ulid.ULID]:
				checkGenForms(t, k, n, func() ulid.ULID { return random16() })
			case *kind[legacy.ID]:
				checkGenForms(t, k, n, func() legacy.ID { return random16() })
			case *kind[scru64.ID]:
				checkGenForms(t, k, n, func() scru64.ID { return scru64.ID(nearZero(r, uint64(scru64.Max))) })
			case *kind[ulidflake.ID]:
				checkGenForms(t, k, n, func() ulidflake.ID { return ulidflake.ID(nearZero(r, uint64(ulidflake.Max))) })
			default:
				t.Fatalf("no test for the ID type of %s", f.name)
			}
		})
	}
}

// nearZero returns a random integer up to max: a third of them below
// 2^33 (a Ulid-Flake ID of the first 2.3 hours after its epoch, whose
// decimal has 13 digits or fewer), the rest spread over every order of
// magnitude up to max.
func nearZero(r *rand.Rand, max uint64) uint64 {
	if r.IntN(3) == 0 {
		return r.Uint64N(1 << 33)
	}
	bits := 1 + r.IntN(64)
	return r.Uint64N(1<<(bits-1)) % (max + 1)
}

func checkGenForms[T textID, PT reader[T]](t *testing.T, k *kind[T], n int, random func() T) {
	forms := []outputForm{{asText, false}, {asText, true}, {asHex, false}, {asHex, true}}
	if k.toUUID != nil {
		forms = append(forms, outputForm{asUUID, false}, outputForm{asUUID, true})
	}
	readers := map[string]func(out []byte) (T, error){
		"Scan(string)": func(out []byte) (id T, err error) { err = PT(&id).Scan(string(out)); return id, err },
		"Scan([]byte)": func(out []byte) (id T, err error) { err = PT(&id).Scan(out); return id, err },
		"UnmarshalText": func(out []byte) (id T, err error) {
			err = PT(&id).UnmarshalText(out)
			return id, err
		},
		"UnmarshalJSON": func(out []byte) (id T, err error) { err = PT(&id).UnmarshalJSON(out); return id, err },
		"UnmarshalJSON of a string": func(out []byte) (id T, err error) {
			err = PT(&id).UnmarshalJSON(strconv.AppendQuote(nil, string(out)))
			return id, err
		},
	}
	read := 0
	for range n {
		id := random()
		for _, form := range forms {
			out := k.encoder(form)(nil, id)
			for name, reader := range readers {
				got, err := reader(out)
				switch {
				case err == nil && got != id:
					t.Fatalf("%s printed as %+v, %q: %s gives %s", id, form, out, name, got)
				case err == nil:
					read++
				}
			}
		}
	}
	if read == 0 {
		t.Fatal("no form read back at all")
	}
}
