package bench

import (
	"bytes"
	"testing"
)

// TestLibsDoRealWork checks that every operation the benchmarks time does
// what its name says, so that no cell of the table measures a shortcut:
// minting gives a new value each time, encoding gives the library's text,
// and the text parses.
func TestLibsDoRealWork(t *testing.T) {
	for _, l := range Libs() {
		t.Run(l.Name, func(t *testing.T) {
			if l.Setup != nil {
				l.Setup()
			}
			if l.Teardown != nil {
				defer l.Teardown()
			}
			if l.Mint == nil || l.MintString == nil {
				t.Fatal("every library must mint")
			}
			l.Mint()
			a, b := l.MintString(), l.MintString()
			if a == b || a == "" {
				t.Fatalf("MintString gave %q twice", a)
			}
			if l.MintAppend != nil {
				out := l.MintAppend([]byte("x:"))
				again := l.MintAppend([]byte("x:"))
				if !bytes.HasPrefix(out, []byte("x:")) || len(out) != len(a)+2 || bytes.Equal(out, again) {
					t.Fatalf("MintAppend = %q then %q, want a new %d-byte ID after the prefix", out, again, len(a))
				}
			}
			if l.String != nil {
				s := l.String()
				if l.Encode != nil {
					if got := l.Encode([]byte("y")); string(got) != "y"+s {
						t.Fatalf("Encode = %q, String = %q", got, s)
					}
				}
				if len(s) != len(a) {
					t.Fatalf("String %q and MintString %q differ in length", s, a)
				}
			}
			if l.Parse != nil {
				if err := l.Parse(); err != nil {
					t.Fatal(err)
				}
			}
			if (l.Encode == nil || l.MintAppend == nil || l.Parse == nil) && l.Note == "" {
				t.Fatal("a missing operation needs a note saying why")
			}
		})
	}
}
