//go:build (unix && !aix) || windows

package cli

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/fastid/scru128"
	"github.com/fastid/scru128/legacy"
	"github.com/fastid/scru128/scru64"
	"github.com/fastid/scru128/ulid"
	"github.com/fastid/scru128/ulidflake"
)

// format is one ID format the tool mints, inspects and measures. What the
// commands do with a format, and what their usage texts and errors say
// about it, comes from its entry in formats: adding a format is one entry
// and the functions of its package.
type format struct {
	name    string // as -format takes it, in any case, and its package's error prefix
	title   string // what it is, for the table of formats in the usage texts
	textLen int    // inspect picks a format by the length of its input
	size    int    // bytes: 16 (a 128-bit format, which has a UUID form) or 8
	// minMillis and maxMillis bound the Unix milliseconds its IDs can hold
	// (and a generator accepts), for gen -time.
	minMillis, maxMillis int64
	// node is set for a format minted under a node ID: gen then needs
	// -node, -state or -etcd, which no other format takes.
	node bool
	// sample is a valid ID, which bench encodes and parses.
	sample string
	// mints are the ways bench mints IDs of the format.
	mints []benchMint
	// id is the format's ID type; kind128 and kind64 make it.
	id idKind
	// errs words an error of the format's package, from its values, for
	// reason; errorsOf makes it.
	errs func(error) (string, bool)
}

// formats lists the formats; the first is the default.
var formats = []*format{
	{
		name: "scru128", title: "SCRU128", textLen: 25, size: 16,
		minMillis: 1, maxMillis: scru128.MaxTimestamp,
		sample: "0372hg16csmsm50l8dikcvukc",
		mints: []benchMint{
			{"Generator.Generate", func() func() error {
				g := scru128.NewGenerator()
				return func() error { _, err := g.Generate(); return err }
			}},
			{"Pool.Generate", func() func() error {
				p := scru128.NewPool()
				return func() error { p.Generate(); return nil }
			}},
		},
		id: kind128(scru128.Parse, mintSCRU128, func(id scru128.ID) description {
			return description{own: []field{
				{"counterHi", id.CounterHi()}, {"counterLo", id.CounterLo()}, {"entropy", id.Entropy()},
			}}
		}),
		errs: errorsOf[scru128.InvalidCharacterError, scru128.RangeError](formatSentinels{scru128.ErrOutOfRange, scru128.ErrInvalidTimestamp}),
	},
	{
		name: "scru64", title: "SCRU64", textLen: 12, size: 8, node: true,
		// A generator needs a time in MinTimestamp's tick or later (its
		// IDs' decimal text has 13 digits or more), and keeps the last
		// tick, MaxTimestamp, reserved.
		minMillis: scru64.MinTimestamp << 8, maxMillis: scru64.MaxTimestamp<<8 - 1,
		sample: "0u375nxqh5cq",
		mints: []benchMint{
			{"Generator.Generate", func() func() error {
				// Node ID size 1 leaves a 23-bit counter, 8 million IDs per
				// 256-ms tick, so the stream does not run ahead of the
				// clock.
				spec, _ := scru64.NewNodeSpecWithNodeID(0, 1)
				g := scru64.NewGenerator(spec)
				return func() error { _, err := g.Generate(); return err }
			}},
		},
		id: kind64(scru64.Parse, mintSCRU64, func(id scru64.ID) description {
			return description{
				own: []field{{"nodeCtr", id.NodeCtr()}, {"int", uint64(id)}},
				hex: bigEndian(uint64(id)),
			}
		}),
		errs: errorsOf[scru64.InvalidCharacterError, scru64.RangeError](formatSentinels{scru64.ErrOutOfRange, scru64.ErrInvalidTimestamp}),
	},
	{
		name: "ulid", title: "ULID", textLen: 26, size: 16,
		minMillis: 1, maxMillis: ulid.MaxTimestamp,
		sample: "01ARZ3NDEKTSV4RRFFQ69G5FAV",
		mints: []benchMint{
			{"Generator.Generate", func() func() error {
				g := ulid.NewGenerator()
				return func() error { _, err := g.Generate(); return err }
			}},
			{"NewUnordered", func() func() error {
				return func() error { ulid.NewUnordered(); return nil }
			}},
		},
		id: kind128(ulid.Parse, mintULID, func(id ulid.ULID) description {
			entropy := id.Entropy()
			return description{own: []field{
				{"entropy", hexString(entropy[:])},
			}}
		}),
		errs: errorsOf[ulid.InvalidCharacterError, ulid.RangeError](formatSentinels{ulid.ErrOutOfRange, ulid.ErrInvalidTimestamp}),
	},
	{
		name: "ulidflake", title: "Ulid-Flake", textLen: 13, size: 8,
		minMillis: ulidflake.DefaultEpochMillis, maxMillis: ulidflake.DefaultEpochMillis + ulidflake.MaxTimestamp,
		sample: "00CMXB6TAK4SA",
		mints: []benchMint{
			// A few thousand IDs fit in a millisecond, so minting waits for
			// the next one; GenerateOrWait measures the rate that allows.
			{"Generator.GenerateOrWait", func() func() error {
				g, err := ulidflake.NewGenerator()
				if err != nil {
					return func() error { return err }
				}
				return func() error { _, err := g.GenerateOrWait(); return err }
			}},
		},
		id: kind64(ulidflake.Parse, mintULIDFlake, func(id ulidflake.ID) description {
			return description{
				lead: []field{{"int", id.Int64()}},
				own: []field{
					{"randomness", id.Randomness()},
					// The same bits read as the scalable variant.
					{"scalableRandomness", id.ScalableRandomness()},
					{"scalabilityId", id.ScalabilityID()},
				},
			}
		}),
		errs: errorsOf[ulidflake.InvalidCharacterError, ulidflake.RangeError](formatSentinels{ulidflake.ErrOutOfRange, ulidflake.ErrInvalidTimestamp}),
	},
	{
		name: "legacy", title: "SCRU128 before version 2", textLen: 26, size: 16,
		minMillis: legacy.TimestampBias, maxMillis: legacy.TimestampBias + legacy.MaxTimestamp,
		sample: "0LQKPL5UFSUA7KQRAR5KB7MO1I",
		mints: []benchMint{
			{"Generator.Generate", func() func() error {
				g := legacy.NewGenerator()
				return func() error { _, err := g.Generate(); return err }
			}},
		},
		id: kind128(legacy.Parse, mintLegacy, func(id legacy.ID) description {
			return description{own: []field{
				{"counter", id.Counter()}, {"perSecRandom", id.PerSecRandom()}, {"perGenRandom", id.PerGenRandom()},
			}}
		}),
		errs: errorsOf[legacy.InvalidCharacterError, legacy.RangeError](formatSentinels{legacy.ErrOutOfRange, legacy.ErrInvalidTimestamp}),
	},
}

// formatByName finds a format by its name in any case.
func formatByName(name string) (*format, bool) {
	for _, f := range formats {
		if strings.EqualFold(f.name, name) {
			return f, true
		}
	}
	return nil, false
}

// uuidLens are the lengths of the UUID text forms (interop.ParseUUID): 36
// with hyphens, 32 hex digits without.
var uuidLens = [...]int{36, 32}

// isIDLength reports whether n characters can be an ID of some format, or
// its bytes as a UUID or hex.
func isIDLength(n int) bool {
	for _, f := range formats {
		if f.textLen == n {
			return true
		}
	}
	return n == uuidLens[0] || n == uuidLens[1]
}

// formatsOfLength returns the formats whose text has n characters.
func formatsOfLength(n int) []*format {
	var fs []*format
	for _, f := range formats {
		if f.textLen == n {
			fs = append(fs, f)
		}
	}
	return fs
}

// defaultFormat128 is the 128-bit format a UUID or hex input is read as
// when -format does not say: the first in the table.
func defaultFormat128() *format {
	for _, f := range formats {
		if f.size == 16 {
			return f
		}
	}
	panic("no 128-bit format") // the table has three
}

// formatNames returns the names of the formats for which keep is true,
// "a, b or c" (with or as the conjunction), each with prefix.
func formatNames(prefix, conjunction string, keep func(*format) bool) string {
	var names []string
	for _, f := range formats {
		if keep(f) {
			names = append(names, prefix+f.name)
		}
	}
	return joinList(names, conjunction)
}

// joinList joins words as "a, b or c".
func joinList(words []string, conjunction string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " " + conjunction + " " + words[len(words)-1]
}

func unknownFormat(name string) string {
	names := make([]string, len(formats))
	for i, f := range formats {
		names[i] = f.name
	}
	return fmt.Sprintf("unknown format %q (want %s)", name, strings.Join(names, ", "))
}

// idLengths lists the lengths an ID can have, for messages: "12, 13, 25
// or 26 characters, or a UUID (36) or 32 hex digits".
func idLengths() string {
	var lens []int
	for _, f := range formats {
		if !slices.Contains(lens, f.textLen) {
			lens = append(lens, f.textLen)
		}
	}
	slices.Sort(lens)
	words := make([]string, len(lens))
	for i, n := range lens {
		words[i] = strconv.Itoa(n)
	}
	return joinList(words, "or") + " characters, or a UUID (36) or 32 hex digits"
}

// formatTable describes the formats, one per line, for the usage texts.
func formatTable() string {
	width := 0
	for _, f := range formats {
		width = max(width, len(f.name))
	}
	var b strings.Builder
	b.WriteString("Formats (-format, in any case):\n")
	for i, f := range formats {
		fmt.Fprintf(&b, "  %-*s  %s, %d characters, %d bits", width, f.name, f.title, f.textLen, 8*f.size)
		switch {
		case i == 0:
			b.WriteString("; the default")
		case f.node:
			b.WriteString("; minted under a node ID")
		}
		b.WriteString("\n")
	}
	return b.String()
}

// rollbackAllowance is the allowance given to the Core methods in a gen
// -time run, whose timestamps never go back.
const rollbackAllowance = 10_000

// stepOnError returns next for a -time run of a format whose generator
// reports a full millisecond as an error (ulid, ulidflake, legacy): it
// moves the run on to the next millisecond and tries once more, as the
// generator itself would when the clock moves on. A second failure is
// returned. It matches no error value, so it does not depend on how each
// package names its overflow.
func stepOnError[T any](millis int64, core func(millis int64) (T, error)) func() (T, error) {
	return func() (T, error) {
		id, err := core(millis)
		if err != nil {
			millis++
			id, err = core(millis)
		}
		return id, err
	}
}

func mintSCRU128(o mintOptions) (*idMinter[scru128.ID], error) {
	g := scru128.NewGenerator()
	if o.atMillis != 0 {
		// Within one millisecond the counters grow, and the core moves the
		// timestamp on by itself when they are used up.
		ms := uint64(o.atMillis)
		return &idMinter[scru128.ID]{
			next: func() (scru128.ID, error) { return g.GenerateOrAbortCore(ms, rollbackAllowance) },
		}, nil
	}
	// Mint in batches with Fill: one clock reading per batch of up to 256
	// (about 4 µs of IDs), then encode each straight into the output
	// buffer.
	return &idMinter[scru128.ID]{fill: g.Fill, batch: make([]scru128.ID, min(max(o.batch, 1), 256))}, nil
}

func mintULID(o mintOptions) (*idMinter[ulid.ULID], error) {
	if o.atMillis != 0 {
		g := ulid.NewGenerator()
		return &idMinter[ulid.ULID]{next: stepOnError(o.atMillis, func(ms int64) (ulid.ULID, error) {
			return g.GenerateOrAbortCore(uint64(ms), rollbackAllowance)
		})}, nil
	}
	return &idMinter[ulid.ULID]{next: func() (ulid.ULID, error) { return ulid.Make(), nil }}, nil
}

func mintULIDFlake(o mintOptions) (*idMinter[ulidflake.ID], error) {
	g, err := ulidflake.NewGenerator()
	if err != nil {
		return nil, err
	}
	if o.atMillis != 0 {
		return &idMinter[ulidflake.ID]{next: stepOnError(o.atMillis, func(ms int64) (ulidflake.ID, error) {
			return g.GenerateCore(uint64(ms - ulidflake.DefaultEpochMillis))
		})}, nil
	}
	// A few thousand IDs fit in a millisecond. Generate fails when they are
	// used up; then gen flushes its output and GenerateOrWait waits for the
	// next millisecond (or returns Generate's other errors).
	return &idMinter[ulidflake.ID]{
		next: func() (ulidflake.ID, error) {
			id, err := g.Generate()
			if err != nil {
				return id, errWouldWait
			}
			return id, nil
		},
		waitFor: func(<-chan struct{}) (ulidflake.ID, error) { return g.GenerateOrWait() },
	}, nil
}

func mintLegacy(o mintOptions) (*idMinter[legacy.ID], error) {
	if o.atMillis != 0 {
		g := legacy.NewGenerator()
		return &idMinter[legacy.ID]{next: stepOnError(o.atMillis, func(ms int64) (legacy.ID, error) {
			return g.GenerateCore(uint64(ms - legacy.TimestampBias))
		})}, nil
	}
	return &idMinter[legacy.ID]{next: func() (legacy.ID, error) { return legacy.New(), nil }}, nil
}

// rfc3339Milli is RFC 3339 with milliseconds; with UTC times it ends in Z.
const rfc3339Milli = "2006-01-02T15:04:05.000Z07:00"

func formatTime(t time.Time, loc *time.Location) string {
	return t.In(loc).Format(rfc3339Milli)
}
