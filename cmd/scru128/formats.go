package main

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/fastid/scru128"
	"github.com/fastid/scru128/legacy"
	"github.com/fastid/scru128/scru64"
	"github.com/fastid/scru128/ulid"
	"github.com/fastid/scru128/ulidflake"
)

// format is one ID format the tool can mint and inspect.
type format struct {
	name    string
	textLen int  // inspect picks a format by the length of its input
	is128   bool // 16 bytes, so it has a UUID form
	// minMillis and maxMillis bound the Unix milliseconds its IDs can hold
	// (and a generator accepts), for gen -time.
	minMillis, maxMillis int64
	// newMinter returns the minter behind gen.
	newMinter func(o mintOptions) (minter, error)
	// describe returns the JSON object inspect prints for an ID of this
	// format, read from text, or from 16 bytes if text is nil.
	describe func(text string, bytes *[16]byte, loc *time.Location) (any, error)
}

// formats lists the formats; the first is the default.
var formats = []format{scru128Format, scru64Format, ulidFormat, ulidflakeFormat, legacyFormat}

// formatByName finds a format by its name in any case.
func formatByName(name string) (format, bool) {
	for _, f := range formats {
		if strings.EqualFold(f.name, name) {
			return f, true
		}
	}
	return format{}, false
}

// formatNames lists the format names, for messages.
func formatNames() string {
	names := make([]string, len(formats))
	for i, f := range formats {
		names[i] = f.name
	}
	return strings.Join(names, ", ")
}

func unknownFormat(name string) string {
	return fmt.Sprintf("unknown format %q (want %s)", name, formatNames())
}

// detect returns the formats whose text has the length of text, in order of
// preference. ULID and the legacy SCRU128 form share 26 characters; text
// made only of the digits both alphabets have parses as either, and the
// ULID reading comes first.
func detect(text string) []format {
	var fs []format
	for _, f := range formats {
		if f.textLen == len(text) {
			fs = append(fs, f)
		}
	}
	return fs
}

// mintOptions are gen's choices that shape a minter.
type mintOptions struct {
	out   outputForm
	batch int // how many IDs the run needs at most, to size batches
	// atMillis is gen -time as Unix milliseconds, or 0 for now: no format's
	// generator accepts time 0, so gen never passes it for -time.
	atMillis int64
	// scru64 is the generator of a scru64 run, made by gen from the node
	// spec so that it can save where to continue when the run ends; nil for
	// a node leased from etcd.
	scru64 *scru64.Generator
	// scru64Generate mints a scru64 ID stamped with the clock: scru64's
	// Generate, or a leased node's.
	scru64Generate func() (scru64.ID, error)
}

// rfc3339Milli is RFC 3339 with milliseconds; with UTC times it ends in Z.
const rfc3339Milli = "2006-01-02T15:04:05.000Z07:00"

func formatTime(t time.Time, loc *time.Location) string {
	return t.In(loc).Format(rfc3339Milli)
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

var scru128Format = format{
	name: "scru128", textLen: 25, is128: true,
	minMillis: 1, maxMillis: scru128.MaxTimestamp,
	newMinter: func(o mintOptions) (minter, error) {
		encode := encoder128(o.out, func(b []byte, id scru128.ID) []byte {
			b, _ = id.AppendText(b)
			return b
		})
		g := scru128.NewGenerator()
		if o.atMillis != 0 {
			// Within one millisecond the counters grow, and the core moves
			// the timestamp on by itself when they are used up.
			ms := uint64(o.atMillis)
			return &idMinter[scru128.ID]{
				next:   func() (scru128.ID, error) { return g.GenerateOrAbortCore(ms, rollbackAllowance) },
				encode: encode,
			}, nil
		}
		// Mint in batches with Fill: one clock reading per batch of up to
		// 256 (about 4 µs of IDs), then encode each straight into the
		// output buffer.
		return &idMinter[scru128.ID]{
			fill:   g.Fill,
			batch:  make([]scru128.ID, min(max(o.batch, 1), 256)),
			encode: encode,
		}, nil
	},
	describe: func(text string, raw *[16]byte, loc *time.Location) (any, error) {
		id, err := parse128(text, raw, scru128.Parse, func(b [16]byte) scru128.ID { return b })
		if err != nil {
			return nil, err
		}
		return struct {
			Format    string `json:"format"`
			Text      string `json:"text"`
			Timestamp uint64 `json:"timestamp"`
			Time      string `json:"time"`
			CounterHi uint32 `json:"counterHi"`
			CounterLo uint32 `json:"counterLo"`
			Entropy   uint32 `json:"entropy"`
			Hex       string `json:"hex"`
			UUID      string `json:"uuid"`
			UnixMs    int64  `json:"unixMs"`
		}{
			"scru128", id.String(), id.Timestamp(), formatTime(id.Time(), loc),
			id.CounterHi(), id.CounterLo(), id.Entropy(),
			hexString(id[:]), uuidString(id), id.Time().UnixMilli(),
		}, nil
	},
}

var scru64Format = format{
	name: "scru64", textLen: 12,
	// A generator needs a time of at least one tick, and keeps the last
	// tick, MaxTimestamp, reserved.
	minMillis: 256, maxMillis: scru64.MaxTimestamp<<8 - 1,
	newMinter: func(o mintOptions) (minter, error) {
		g, generate := o.scru64, o.scru64Generate
		encode := encoder64(o.out, func(b []byte, id scru64.ID) []byte {
			b, _ = id.AppendText(b)
			return b
		})
		m := &idMinter[scru64.ID]{
			encode: encode,
		}
		if o.atMillis != 0 {
			ms := uint64(o.atMillis)
			started := false
			m.next = func() (scru64.ID, error) {
				id, err := g.GenerateOrAbortCore(ms, rollbackAllowance)
				if started && errors.Is(err, scru64.ErrClockRollback) {
					// The run has overflowed so many counters that its
					// timestamps are 10 s ahead of -time: let the time it
					// is minted at follow, as a clock would.
					ms = g.NodeSpec().NodePrev().Timestamp() << 8
					id, err = g.GenerateOrAbortCore(ms, rollbackAllowance)
				}
				if errors.Is(err, scru64.ErrClockRollback) {
					err = fmt.Errorf("the node's last ID, %s, is more than 10 s after -time (%s)",
						g.NodeSpec().NodePrev(), reason(err))
				}
				started = started || err == nil
				return id, err
			}
		} else {
			// Generate fails with ErrClockRollback when the counter has run
			// so far ahead of the clock (or the clock has gone back so far)
			// that the stream has to wait; gen flushes its output first.
			m.next = func() (scru64.ID, error) {
				id, err := generate()
				if errors.Is(err, scru64.ErrClockRollback) {
					return id, errWouldWait
				}
				return id, err
			}
			m.waitFor = func(stop <-chan struct{}) (scru64.ID, error) {
				for {
					id, err := generate()
					if !errors.Is(err, scru64.ErrClockRollback) {
						return id, err
					}
					select {
					case <-stop:
						return 0, errInterrupted
					case <-time.After(16 * time.Millisecond):
					}
				}
			}
		}
		return m, nil
	},
	describe: func(text string, raw *[16]byte, loc *time.Location) (any, error) {
		if raw != nil {
			return nil, errNot128
		}
		id, err := scru64.Parse(text)
		if err != nil {
			return nil, err
		}
		var bin [8]byte
		binary.BigEndian.PutUint64(bin[:], uint64(id))
		return struct {
			Format    string `json:"format"`
			Text      string `json:"text"`
			Timestamp uint64 `json:"timestamp"` // 256-ms ticks
			Time      string `json:"time"`
			NodeCtr   uint32 `json:"nodeCtr"`
			Int       uint64 `json:"int"` // the BIGINT value
			Hex       string `json:"hex"`
			UnixMs    int64  `json:"unixMs"`
		}{
			"scru64", id.String(), id.Timestamp(), formatTime(id.Time(), loc),
			id.NodeCtr(), uint64(id), hexString(bin[:]), id.Time().UnixMilli(),
		}, nil
	},
}

var ulidFormat = format{
	name: "ulid", textLen: 26, is128: true,
	minMillis: 1, maxMillis: ulid.MaxTimestamp,
	newMinter: func(o mintOptions) (minter, error) {
		encode := encoder128(o.out, func(b []byte, id ulid.ULID) []byte {
			b, _ = id.AppendText(b)
			return b
		})
		m := &idMinter[ulid.ULID]{
			next:   func() (ulid.ULID, error) { return ulid.Make(), nil },
			encode: encode,
		}
		if o.atMillis != 0 {
			g := ulid.NewGenerator()
			m.next = stepOnError(o.atMillis, func(ms int64) (ulid.ULID, error) {
				return g.GenerateOrAbortCore(uint64(ms), rollbackAllowance)
			})
		}
		return m, nil
	},
	describe: func(text string, raw *[16]byte, loc *time.Location) (any, error) {
		id, err := parse128(text, raw, ulid.Parse, func(b [16]byte) ulid.ULID { return b })
		if err != nil {
			return nil, err
		}
		entropy := id.Entropy()
		return struct {
			Format    string `json:"format"`
			Text      string `json:"text"`
			Timestamp uint64 `json:"timestamp"`
			Time      string `json:"time"`
			Entropy   string `json:"entropy"`
			Hex       string `json:"hex"`
			UUID      string `json:"uuid"`
			UnixMs    int64  `json:"unixMs"`
		}{
			"ulid", id.String(), id.Timestamp(), formatTime(id.Time(), loc),
			hexString(entropy[:]), hexString(id[:]), uuidString(id), id.Time().UnixMilli(),
		}, nil
	},
}

var ulidflakeFormat = format{
	name: "ulidflake", textLen: 13,
	minMillis: ulidflake.DefaultEpochMillis, maxMillis: ulidflake.DefaultEpochMillis + ulidflake.MaxTimestamp,
	newMinter: func(o mintOptions) (minter, error) {
		g, err := ulidflake.NewGenerator()
		if err != nil {
			return nil, err
		}
		encode := encoder64(o.out, func(b []byte, id ulidflake.ID) []byte {
			b, _ = id.AppendText(b)
			return b
		})
		m := &idMinter[ulidflake.ID]{
			encode: encode,
		}
		if o.atMillis != 0 {
			m.next = stepOnError(o.atMillis, func(ms int64) (ulidflake.ID, error) {
				return g.GenerateCore(uint64(ms - ulidflake.DefaultEpochMillis))
			})
			return m, nil
		}
		// A few thousand IDs fit in a millisecond. Generate fails when they
		// are used up; then gen flushes its output and GenerateOrWait waits
		// for the next millisecond (or returns Generate's other errors).
		m.next = func() (ulidflake.ID, error) {
			id, err := g.Generate()
			if err != nil {
				return id, errWouldWait
			}
			return id, nil
		}
		m.waitFor = func(<-chan struct{}) (ulidflake.ID, error) { return g.GenerateOrWait() }
		return m, nil
	},
	describe: func(text string, raw *[16]byte, loc *time.Location) (any, error) {
		if raw != nil {
			return nil, errNot128
		}
		id, err := ulidflake.Parse(text)
		if err != nil {
			return nil, err
		}
		return struct {
			Format     string `json:"format"`
			Text       string `json:"text"`
			Int        int64  `json:"int"`
			Timestamp  uint64 `json:"timestamp"` // ms since the epoch
			Time       string `json:"time"`
			Randomness uint32 `json:"randomness"`
			// The same bits read as the scalable variant.
			ScalableRandomness uint32 `json:"scalableRandomness"`
			ScalabilityID      uint8  `json:"scalabilityId"`
			UnixMs             int64  `json:"unixMs"`
		}{
			"ulidflake", id.String(), id.Int64(), id.Timestamp(), formatTime(id.Time(), loc),
			id.Randomness(), id.ScalableRandomness(), id.ScalabilityID(), id.Time().UnixMilli(),
		}, nil
	},
}

var legacyFormat = format{
	name: "legacy", textLen: 26, is128: true,
	minMillis: legacy.TimestampBias, maxMillis: legacy.TimestampBias + legacy.MaxTimestamp,
	newMinter: func(o mintOptions) (minter, error) {
		encode := encoder128(o.out, func(b []byte, id legacy.ID) []byte {
			b, _ = id.AppendText(b)
			return b
		})
		m := &idMinter[legacy.ID]{
			next:   func() (legacy.ID, error) { return legacy.New(), nil },
			encode: encode,
		}
		if o.atMillis != 0 {
			g := legacy.NewGenerator()
			m.next = stepOnError(o.atMillis, func(ms int64) (legacy.ID, error) {
				return g.GenerateCore(uint64(ms - legacy.TimestampBias))
			})
		}
		return m, nil
	},
	describe: func(text string, raw *[16]byte, loc *time.Location) (any, error) {
		id, err := parse128(text, raw, legacy.Parse, func(b [16]byte) legacy.ID { return b })
		if err != nil {
			return nil, err
		}
		return struct {
			Format       string `json:"format"`
			Text         string `json:"text"`
			Timestamp    uint64 `json:"timestamp"` // ms since 2020-01-01
			Time         string `json:"time"`
			Counter      uint32 `json:"counter"`
			PerSecRandom uint32 `json:"perSecRandom"`
			PerGenRandom uint32 `json:"perGenRandom"`
			Hex          string `json:"hex"`
			UUID         string `json:"uuid"`
			UnixMs       int64  `json:"unixMs"`
		}{
			"legacy", id.String(), id.Timestamp(), formatTime(id.Time(), loc),
			id.Counter(), id.PerSecRandom(), id.PerGenRandom(),
			hexString(id[:]), uuidString(id), id.Time().UnixMilli(),
		}, nil
	},
}

// errNot128 rejects a UUID or 32 hex digits for a 64-bit format.
var errNot128 = errors.New("a UUID or 32 hex digits holds 128 bits; this format has 64")

// parse128 reads a 128-bit ID from its text, or from the bytes of a UUID
// or hex input if raw is not nil: every 16 bytes are a valid ID of the
// three 128-bit formats.
func parse128[T any](text string, raw *[16]byte, parse func(string) (T, error), fromBytes func([16]byte) T) (T, error) {
	if raw != nil {
		return fromBytes(*raw), nil
	}
	return parse(text)
}

// marshalLine returns v as one line of JSON. The field names and their
// order are those of v's struct type.
func marshalLine(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	return append(b, '\n'), err
}
