package bench

import (
	"bytes"
	"cmp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
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

// sinks reads every typed sink, boxed, so that a test can see which one
// an operation wrote; stdlibSinks adds those of libs_go127.go.
func sinks() []any {
	return append([]any{sinkSCRU128, sinkSCRU64, sinkFastULID, sinkFlake, sinkULID, sinkGoogle, sinkGofrs, sinkXID, sinkKSUID},
		stdlibSinks()...)
}

// TestMintKeepsItsResult checks that every Mint stores the ID it made
// where the compiler cannot drop it, so that the benchmark times the
// minting and not an empty loop.
func TestMintKeepsItsResult(t *testing.T) {
	for _, l := range Libs() {
		t.Run(l.Name, func(t *testing.T) {
			if l.Setup != nil {
				l.Setup()
			}
			if l.Teardown != nil {
				defer l.Teardown()
			}
			before := sinks()
			l.Mint()
			after := sinks()
			for i := range before {
				if before[i] != after[i] {
					return
				}
			}
			t.Fatal("Mint stored its ID in no sink")
		})
	}
}

// TestProperties checks the claims of the properties table from outside:
// the text's length, the RFC 9562 version and variant bits where claimed
// (a format without them may still carry a UUID's bits by chance), text that
// sorts as the bytes do, IDs minted further apart than the time
// resolution in creation order as bytes and as text, and, for the
// libraries that claim it, strict order across goroutines.
func TestProperties(t *testing.T) {
	for _, l := range Libs() {
		t.Run(l.Name, func(t *testing.T) {
			if l.Setup != nil {
				l.Setup()
			}
			if l.Teardown != nil {
				defer l.Teardown()
			}
			p := l.Props
			if l.Sample == nil || p.TextLen == 0 || p.Random == "" {
				t.Fatal("every library needs a Sample and its Props")
			}
			type sample struct {
				bin  []byte
				text string
			}
			samples := make([]sample, 300)
			for i := range samples {
				bin, text := l.Sample()
				samples[i] = sample{bytes.Clone(bin), text}
				if len(text) != p.TextLen {
					t.Fatalf("text %q is %d long, Props say %d", text, len(text), p.TextLen)
				}
				if p.Version && (len(bin) != 16 || bin[8]>>6 != 0b10 || bin[6]>>4 != 4 && bin[6]>>4 != 7) {
					t.Fatalf("% x: not a version 4 or 7 UUID; Props say a UUID", bin)
				}
			}
			if p.SortText {
				for i := 1; i < len(samples); i++ {
					a, b := samples[i-1], samples[i]
					if sign(bytes.Compare(a.bin, b.bin)) != sign(strings.Compare(a.text, b.text)) {
						t.Fatalf("%q and %q sort otherwise than their bytes % x and % x", a.text, b.text, a.bin, b.bin)
					}
				}
			}
			if p.SortBytes {
				first, firstText := l.Sample()
				first = bytes.Clone(first)
				time.Sleep(p.Resolution + p.Resolution/4 + time.Millisecond)
				later, laterText := l.Sample()
				if bytes.Compare(first, later) >= 0 || p.SortText && firstText >= laterText {
					t.Errorf("%q then, %v later, %q: not in creation order", firstText, p.Resolution, laterText)
				}
			} else if slices.IsSortedFunc(samples, func(a, b sample) int { return bytes.Compare(a.bin, b.bin) }) {
				t.Error("300 IDs in a row came out sorted; Props say they are in no order")
			}
			if p.Ordered {
				checkRealTimeOrder(t, l)
			}
		})
	}
}

func sign(c int) int { return max(-1, min(1, c)) }

// checkRealTimeOrder has four goroutines mint at once and records, for
// each call, a ticket taken before it began and one taken after it
// returned. A call that began after another returned must have minted the
// larger ID: strict order in real time across goroutines.
func checkRealTimeOrder(t *testing.T, l Lib) {
	t.Helper()
	const goroutines, calls = 4, 5000
	type call struct {
		begin, end int64
		id         []byte
	}
	var tickets atomic.Int64
	results := make([][]call, goroutines)
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			mine := make([]call, calls)
			for i := range mine {
				begin := tickets.Add(1)
				id, _ := l.Sample()
				mine[i] = call{begin, tickets.Add(1), bytes.Clone(id)}
			}
			results[g] = mine
		})
	}
	wg.Wait()
	all := slices.Concat(results...)
	slices.SortFunc(all, func(a, b call) int { return cmp.Compare(a.end, b.end) })
	// largest[i] is the largest ID among the calls that returned first,
	// up to all[i].
	largest := make([][]byte, len(all))
	for i, c := range all {
		largest[i] = c.id
		if i > 0 && bytes.Compare(largest[i-1], c.id) > 0 {
			largest[i] = largest[i-1]
		}
	}
	for _, c := range all {
		// The calls that returned before c began: ends below c.begin.
		n, _ := slices.BinarySearchFunc(all, c.begin, func(a call, begin int64) int { return cmp.Compare(a.end, begin) })
		if n > 0 && bytes.Compare(c.id, largest[n-1]) <= 0 {
			t.Fatalf("% x minted after % x returned", c.id, largest[n-1])
		}
	}
}
