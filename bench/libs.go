// Package bench compares fastid's ID libraries with the Go ID libraries
// people use today, operation by operation, on the same machine in the same
// run. The benchmarks are in bench_test.go; `go run ./cmd/compare` runs them
// and writes the table and chart.
package bench

import (
	crand "crypto/rand"
	"slices"
	"time"

	gofrs "github.com/gofrs/uuid/v5"
	"github.com/google/uuid"
	"github.com/oklog/ulid/v2"
	"github.com/rs/xid"
	"github.com/segmentio/ksuid"

	"github.com/fastid/scru128"
	"github.com/fastid/scru128/scru64"
	fastulid "github.com/fastid/scru128/ulid"
	"github.com/fastid/scru128/ulidflake"
)

// Lib is one library, or one way of using a library, under comparison. Each
// operation is a closure over typed values so that no library pays for
// boxing; every closure stores its result where the compiler cannot drop
// it. A nil operation is one the library cannot do; Note says why.
type Lib struct {
	Name string
	// Setup and Teardown run around each of the library's benchmarks, for
	// libraries with process-wide switches.
	Setup, Teardown func()

	Mint       func()                  // a new ID through the thread-safe call the library recommends
	MintString func() string           // a new ID as its canonical string
	MintAppend func(dst []byte) []byte // a new ID appended as text to dst
	Encode     func(dst []byte) []byte // an existing ID appended as text to dst
	String     func() string           // an existing ID's String()
	Parse      func() error            // an existing ID's canonical text back to an ID

	Note string // what the table should say about missing or unusual operations

	// Sample mints one ID as Mint does and returns its binary form and its
	// text, for the tests that check Props.
	Sample func() (bin []byte, text string)
	Props  Props
}

// Props is what tells the libraries apart besides speed, for the
// properties table beside the timings. TestProperties checks each claim
// it can from outside: the text length, the order across goroutines, the
// version bits and the sort order of bytes and text.
type Props struct {
	// Ordered: IDs are strictly increasing in real-time order across all
	// goroutines (an ID minted after another one returned is larger).
	// Otherwise IDs are ordered only to Resolution, or not at all.
	Ordered bool
	// Resolution is the unit of the time in an ID; zero for an ID without
	// one.
	Resolution time.Duration
	TextLen    int    // the length of the canonical text
	Random     string // how many bits are random, and when they are drawn
	// Version: the RFC 9562 version and variant bits are set, so the ID
	// is a UUID any UUID code recognizes.
	Version bool
	// SortBytes and SortText: IDs minted further apart than Resolution
	// sort in creation order as bytes and as text.
	SortBytes, SortText bool
}

// Typed sinks keep results alive without converting them to interfaces.
var (
	sinkSCRU128  scru128.ID
	sinkSCRU64   scru64.ID
	sinkFastULID fastulid.ULID
	sinkFlake    ulidflake.ID
	sinkULID     ulid.ULID
	sinkGoogle   uuid.UUID
	sinkGofrs    gofrs.UUID
	sinkXID      xid.ID
	sinkKSUID    ksuid.KSUID
)

// Libs lists the libraries in the order of the table; the first is ours,
// the one every ratio refers to. Built with Go 1.27 or later, the list
// includes the standard library's uuid package.
func Libs() []Lib {
	scru := scru128.MustParse("0372hg16csmsm50l8dikcvukc")
	scruText := scru.String()

	s64 := scru64.MustParse("0u375nxqh5cq")
	s64Text := s64.String()
	// A Generator of its own for every run: node spec 0/1 has the largest
	// counter (2^23 per 256 ms), and a fresh generator keeps a long run from
	// using up the 10 s a node may run ahead of the clock.
	spec, err := scru64.ParseNodeSpec("0/1")
	if err != nil {
		panic(err)
	}
	s64Gen := scru64.NewGenerator(spec)

	fu128 := fastulid.MustParse("01J9Z3CWSW4V2A2T9D3M8QY6KX")
	fu128Text := fu128.String()
	flakeGen, err := ulidflake.NewGenerator()
	if err != nil {
		panic(err)
	}
	flake := ulidflake.MustParse("00CMXB6TAK4SA")
	flakeText := flake.String()
	nextFlake := func() ulidflake.ID {
		id, err := flakeGen.GenerateOrWait()
		if err != nil {
			panic(err)
		}
		return id
	}

	ul := ulid.MustParseStrict("01J9Z3CWSW4V2A2T9D3M8QY6KX")
	ulText := ul.String()
	// The locked monotonic reader over crypto/rand that oklog/ulid's
	// documentation shows for concurrent use.
	monotonic := &ulid.LockedMonotonicReader{MonotonicReader: ulid.Monotonic(crand.Reader, 0)}
	newMonotonic := func() ulid.ULID { return ulid.MustNew(ulid.Timestamp(time.Now()), monotonic) }

	gu := uuid.MustParse("01927e3a-7b39-7c1e-8a6f-2d1b0e9c4f5a")
	guText := gu.String()
	fu := gofrs.Must(gofrs.FromString("01927e3a-7b39-7c1e-8a6f-2d1b0e9c4f5a"))
	fuText := fu.String()
	x := xid.New()
	xText := x.String()
	k := ksuid.New()
	kText := k.String()

	googleV7 := func() uuid.UUID { return uuid.Must(uuid.NewV7()) }
	googleV4 := func() uuid.UUID { return uuid.Must(uuid.NewRandom()) }
	gofrsV7 := func() gofrs.UUID { return gofrs.Must(gofrs.NewV7()) }

	ours := []Lib{
		{
			Name:       "fastid-scru128",
			Mint:       func() { sinkSCRU128 = scru128.New() },
			MintString: scru128.NewString,
			MintAppend: scru128.AppendNew,
			Encode:     func(dst []byte) []byte { dst, _ = scru.AppendText(dst); return dst },
			String:     scru.String,
			Parse:      func() (err error) { sinkSCRU128, err = scru128.Parse(scruText); return err },
			Note:       "package-level New: one monotonic stream, lock-free",
			Sample:     func() ([]byte, string) { id := scru128.New(); return id[:], id.String() },
			Props:      scru128Props(true),
		},
		{
			Name:       "fastid-scru128-pool",
			Mint:       func() { sinkSCRU128 = scru128.NewUnordered() },
			MintString: scru128.NewUnorderedString,
			MintAppend: scru128.AppendNewUnordered,
			Note:       "package-level NewUnordered: per-P shards; same codec as fastid-scru128",
			Sample:     func() ([]byte, string) { id := scru128.NewUnordered(); return id[:], id.String() },
			Props:      scru128Props(false),
		},
		{
			Name:       "fastid-scru64",
			Mint:       func() { sinkSCRU64, _ = s64Gen.GenerateOrSleep() },
			MintString: func() string { id, _ := s64Gen.GenerateOrSleep(); return id.String() },
			MintAppend: func(dst []byte) []byte { id, _ := s64Gen.GenerateOrSleep(); dst, _ = id.AppendText(dst); return dst },
			Encode:     func(dst []byte) []byte { dst, _ = s64.AppendText(dst); return dst },
			String:     s64.String,
			Parse:      func() (err error) { sinkSCRU64, err = scru64.Parse(s64Text); return err },
			Note:       "63-bit IDs for a realm of nodes: a Generator with node spec 0/1, GenerateOrSleep",
			Sample: func() ([]byte, string) {
				id, _ := s64Gen.GenerateOrSleep()
				b, _ := id.MarshalBinary()
				return b, id.String()
			},
			Props: Props{Ordered: true, Resolution: 256 * time.Millisecond, TextLen: 12,
				Random:    "none per ID: a 23-bit counter from a random start per 256-ms tick (node spec 0/1)",
				SortBytes: true, SortText: true},
		},
		{
			Name:       "fastid-ulid",
			Mint:       func() { sinkFastULID = fastulid.Make() },
			MintString: fastulid.MakeString,
			MintAppend: func(dst []byte) []byte { dst, _ = fastulid.Make().AppendText(dst); return dst },
			Encode:     func(dst []byte) []byte { dst, _ = fu128.AppendText(dst); return dst },
			String:     fu128.String,
			Parse:      func() (err error) { sinkFastULID, err = fastulid.Parse(fu128Text); return err },
			Note:       "Make: one monotonic stream, lock-free; the same bytes and text as oklog-ulid",
			Sample:     func() ([]byte, string) { id := fastulid.Make(); return id[:], id.String() },
			Props: Props{Ordered: true, Resolution: time.Millisecond, TextLen: 26,
				Random: "80 at each new ms, then +1", SortBytes: true, SortText: true},
		},
		{
			Name:       "fastid-ulidflake",
			Mint:       func() { sinkFlake = nextFlake() },
			MintString: func() string { return nextFlake().String() },
			MintAppend: func(dst []byte) []byte { dst, _ = nextFlake().AppendText(dst); return dst },
			Encode:     func(dst []byte) []byte { dst, _ = flake.AppendText(dst); return dst },
			String:     flake.String,
			Parse:      func() (err error) { sinkFlake, err = ulidflake.Parse(flakeText); return err },
			Note: "64-bit; GenerateOrWait: within a millisecond the 20 random bits grow by a random step " +
				"(1-255, as the spec's +n), so a few thousand IDs per ms fit and a tight loop mostly waits for the next ms",
			Sample: func() ([]byte, string) {
				id := nextFlake()
				b, _ := id.MarshalBinary()
				return b, id.String()
			},
			Props: Props{Ordered: true, Resolution: time.Millisecond, TextLen: 13,
				Random: "20 at each new ms, then a random step", SortBytes: true, SortText: true},
		},
	}
	peers := []Lib{
		{
			Name:       "oklog-ulid",
			Mint:       func() { sinkULID = ulid.Make() },
			MintString: func() string { return ulid.Make().String() },
			MintAppend: func(dst []byte) []byte {
				id := ulid.Make()
				n := len(dst)
				dst = append(dst, make([]byte, ulid.EncodedSize)...)
				_ = id.MarshalTextTo(dst[n:])
				return dst
			},
			Encode: func(dst []byte) []byte {
				n := len(dst)
				dst = append(dst, make([]byte, ulid.EncodedSize)...)
				_ = ul.MarshalTextTo(dst[n:])
				return dst
			},
			String: ul.String,
			Parse:  func() (err error) { sinkULID, err = ulid.ParseStrict(ulText); return err },
			Note:   "Make; MarshalTextTo; ParseStrict",
			Sample: func() ([]byte, string) { id := ulid.Make(); return id[:], id.String() },
			// Not ordered across goroutines: the time is read before the
			// entropy's lock, and a caller with an older millisecond
			// restarts the entropy at random for the next one.
			Props: Props{Resolution: time.Millisecond, TextLen: 26,
				Random: "80 at each new ms (math/rand seeded from the time), then a random step", SortBytes: true, SortText: true},
		},
		{
			Name:       "oklog-ulid-monotonic",
			Mint:       func() { sinkULID = newMonotonic() },
			MintString: func() string { return newMonotonic().String() },
			Note:       "MustNew with a LockedMonotonicReader over crypto/rand; same codec as oklog-ulid",
			Sample:     func() ([]byte, string) { id := newMonotonic(); return id[:], id.String() },
			Props: Props{Resolution: time.Millisecond, TextLen: 26, // as oklog-ulid
				Random: "80 at each new ms, then a random step", SortBytes: true, SortText: true},
		},
		{
			Name:       "google-uuidv7",
			Mint:       func() { sinkGoogle = googleV7() },
			MintString: func() string { return googleV7().String() },
			Encode: func(dst []byte) []byte {
				text, _ := gu.MarshalText() // no appending form
				return append(dst, text...)
			},
			String: gu.String,
			Parse:  func() (err error) { sinkGoogle, err = uuid.Parse(guText); return err },
			Note:   "NewV7; no appending encoder, so Encode is MarshalText and MintAppend is not possible",
			Sample: func() ([]byte, string) { id := googleV7(); return id[:], id.String() },
			Props:  uuidV7Props("62 per ID; a sub-ms time in rand_a"),
		},
		{
			Name:       "google-uuidv7-randpool",
			Setup:      uuid.EnableRandPool,
			Teardown:   uuid.DisableRandPool,
			Mint:       func() { sinkGoogle = googleV7() },
			MintString: func() string { return googleV7().String() },
			Note:       "NewV7 after EnableRandPool (process-wide, not safe to toggle while minting)",
			Sample:     func() ([]byte, string) { id := googleV7(); return id[:], id.String() },
			Props:      uuidV7Props("62 per ID; a sub-ms time in rand_a"),
		},
		{
			Name:       "google-uuidv4",
			Mint:       func() { sinkGoogle = googleV4() },
			MintString: func() string { return googleV4().String() },
			Note:       "NewRandom; same codec as google-uuidv7",
			Sample:     func() ([]byte, string) { id := googleV4(); return id[:], id.String() },
			Props:      uuidV4Props,
		},
		{
			Name:       "google-uuidv4-randpool",
			Setup:      uuid.EnableRandPool,
			Teardown:   uuid.DisableRandPool,
			Mint:       func() { sinkGoogle = googleV4() },
			MintString: func() string { return googleV4().String() },
			Note:       "NewRandom after EnableRandPool",
			Sample:     func() ([]byte, string) { id := googleV4(); return id[:], id.String() },
			Props:      uuidV4Props,
		},
		{
			Name:       "gofrs-uuidv7",
			Mint:       func() { sinkGofrs = gofrsV7() },
			MintString: func() string { return gofrsV7().String() },
			Encode: func(dst []byte) []byte {
				text, _ := fu.MarshalText() // no appending form
				return append(dst, text...)
			},
			String: fu.String,
			Parse:  func() (err error) { sinkGofrs, err = gofrs.FromString(fuText); return err },
			Note:   "NewV7; no appending encoder, so Encode is MarshalText and MintAppend is not possible",
			Sample: func() ([]byte, string) { id := gofrsV7(); return id[:], id.String() },
			Props:  uuidV7Props("62 per ID; a 12-bit counter from a random start per ms in rand_a"),
		},
		{
			Name:       "rs-xid",
			Mint:       func() { sinkXID = xid.New() },
			MintString: func() string { return xid.New().String() },
			MintAppend: func(dst []byte) []byte { return appendXID(dst, xid.New()) },
			Encode:     func(dst []byte) []byte { return appendXID(dst, x) },
			String:     x.String,
			Parse:      func() (err error) { sinkXID, err = xid.FromString(xText); return err },
			Note:       "96-bit IDs; Encode into a reused buffer",
			Sample:     func() ([]byte, string) { id := xid.New(); return id.Bytes(), id.String() },
			Props: Props{Resolution: time.Second, TextLen: 20,
				Random: "none per ID: a 24-bit counter from a random start, which wraps", SortBytes: true, SortText: true},
		},
		{
			Name:       "segmentio-ksuid",
			Mint:       func() { sinkKSUID = ksuid.New() },
			MintString: func() string { return ksuid.New().String() },
			MintAppend: func(dst []byte) []byte { return ksuid.New().Append(dst) },
			Encode:     k.Append,
			String:     k.String,
			Parse:      func() (err error) { sinkKSUID, err = ksuid.Parse(kText); return err },
			Note:       "160-bit IDs, second resolution; Append",
			Sample:     func() ([]byte, string) { id := ksuid.New(); return id.Bytes(), id.String() },
			Props:      Props{Resolution: time.Second, TextLen: 27, Random: "128 per ID", SortBytes: true, SortText: true},
		},
	}
	// The standard library's uuid (Go 1.27) right after this module's
	// rows: it is the peer users weigh first.
	return slices.Concat(ours, stdlibLibs(), peers)
}

// scru128Props are the properties of SCRU128 from a Generator (ordered)
// or a Pool.
func scru128Props(ordered bool) Props {
	return Props{Ordered: ordered, Resolution: time.Millisecond, TextLen: 25,
		Random: "80: 32 per ID, counter_lo (24) at each new ms, counter_hi (24) every second", SortBytes: true, SortText: true}
}

// uuidV7Props are the properties of a version 7 UUID from a generator
// that keeps IDs in order under a lock, with random bits as random says.
func uuidV7Props(random string) Props {
	return Props{Ordered: true, Resolution: time.Millisecond, TextLen: 36, Random: random, Version: true,
		SortBytes: true, SortText: true}
}

// uuidV4Props are the properties of a version 4 UUID: random, in no order.
var uuidV4Props = Props{TextLen: 36, Random: "122 per ID", Version: true}

// appendXID appends id's 20-character text to dst with xid's Encode, which
// writes into a slice of at least that length.
func appendXID(dst []byte, id xid.ID) []byte {
	n := len(dst)
	dst = append(dst, make([]byte, 20)...)
	id.Encode(dst[n:])
	return dst
}
