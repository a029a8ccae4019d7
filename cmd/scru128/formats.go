package main

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/fastid/scru128"
	"github.com/fastid/scru128/legacy"
	"github.com/fastid/scru128/scru64"
	"github.com/fastid/scru128/ulid"
	"github.com/fastid/scru128/ulidflake"
)

// format is one ID format the tool can mint and inspect.
type format struct {
	name    string
	textLen int // inspect picks a format by the length of its input
	// newMinter returns a function that appends one new ID's text to dst.
	// node is the -node flag, for formats that have node IDs.
	newMinter func(node string) (mint func(dst []byte) ([]byte, error), err error)
	// inspect parses text and appends a JSON object describing the ID, without
	// the closing brace, so the caller can end it.
	inspect func(dst []byte, text string) ([]byte, error)
}

// formats lists the formats; the first is the default.
var formats = []format{scru128Format, scru64Format, ulidFormat, ulidflakeFormat, legacyFormat}

func formatByName(name string) (format, bool) {
	for _, f := range formats {
		if f.name == name {
			return f, true
		}
	}
	return format{}, false
}

// formatNames lists the format names for usage messages.
func formatNames() string {
	s := ""
	for i, f := range formats {
		if i > 0 {
			s += "|"
		}
		s += f.name
	}
	return s
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

var (
	errNoFormat = errors.New("no ID format has this length")
	errNodeFlag = errors.New("-node applies to scru64 only")
)

var scru128Format = format{
	name:    "scru128",
	textLen: 25,
	newMinter: func(node string) (func([]byte) ([]byte, error), error) {
		if node != "" {
			return nil, errNodeFlag
		}
		// Mint in batches of 256 with Fill: one clock reading per batch
		// (about 4 µs of IDs), then encode each straight into dst.
		g := scru128.NewGenerator()
		var batch [256]scru128.ID
		next := len(batch)
		return func(dst []byte) ([]byte, error) {
			if next == len(batch) {
				if err := g.Fill(batch[:]); err != nil {
					return dst, err
				}
				next = 0
			}
			next++
			return batch[next-1].AppendText(dst)
		}, nil
	},
	inspect: func(b []byte, text string) ([]byte, error) {
		id, err := scru128.Parse(text)
		if err != nil {
			return b, err
		}
		b = jsonString(b, "format", "scru128")
		b = jsonString(b, "text", id.String())
		b = jsonUint(b, "timestamp", id.Timestamp())
		b = jsonString(b, "time", id.Time().Format(rfc3339Milli))
		b = jsonUint(b, "counterHi", uint64(id.CounterHi()))
		b = jsonUint(b, "counterLo", uint64(id.CounterLo()))
		b = jsonUint(b, "entropy", uint64(id.Entropy()))
		return jsonHex(b, "hex", id[:]), nil
	},
}

// rfc3339Milli is RFC 3339 with milliseconds; with UTC times it ends in Z.
const rfc3339Milli = "2006-01-02T15:04:05.000Z07:00"

// The JSON helpers append `"key":value` and a comma; jsonEnd closes the
// object. Keys and values here never need escaping beyond strconv.Quote.
func jsonKey(b []byte, key string) []byte {
	if len(b) == 0 {
		b = append(b, '{')
	} else {
		b = append(b, ',')
	}
	b = append(b, '"')
	b = append(b, key...)
	return append(b, '"', ':')
}

func jsonString(b []byte, key, value string) []byte {
	return strconv.AppendQuote(jsonKey(b, key), value)
}

func jsonUint(b []byte, key string, value uint64) []byte {
	return strconv.AppendUint(jsonKey(b, key), value, 10)
}

func jsonHex(b []byte, key string, value []byte) []byte {
	const digits = "0123456789abcdef"
	b = append(jsonKey(b, key), '"')
	for _, c := range value {
		b = append(b, digits[c>>4], digits[c&15])
	}
	return append(b, '"')
}

var scru64Format = format{
	name:    "scru64",
	textLen: 12,
	newMinter: func(node string) (func([]byte) ([]byte, error), error) {
		var g *scru64.Generator
		if node != "" {
			spec, err := scru64.ParseNodeSpec(node)
			if err != nil {
				return nil, err
			}
			g = scru64.NewGenerator(spec)
		} else {
			var err error
			if g, err = scru64.GlobalGenerator.Generator(); err != nil {
				return nil, err // names SCRU64_NODE_SPEC and shows an example
			}
		}
		// GenerateOrSleep: past the node's capacity per 256-ms tick the
		// stream slows down instead of failing.
		return func(dst []byte) ([]byte, error) {
			id, err := g.GenerateOrSleep()
			if err != nil {
				return dst, err
			}
			return id.AppendText(dst)
		}, nil
	},
	inspect: func(b []byte, text string) ([]byte, error) {
		id, err := scru64.Parse(text)
		if err != nil {
			return b, err
		}
		b = jsonString(b, "format", "scru64")
		b = jsonString(b, "text", id.String())
		b = jsonUint(b, "timestamp", id.Timestamp()) // 256-ms ticks
		b = jsonString(b, "time", id.Time().Format(rfc3339Milli))
		b = jsonUint(b, "nodeCtr", uint64(id.NodeCtr()))
		b = jsonUint(b, "int", id.Uint64()) // the BIGINT value
		bin, _ := id.MarshalBinary()
		return jsonHex(b, "hex", bin), nil
	},
}

var ulidFormat = format{
	name:    "ulid",
	textLen: 26,
	newMinter: func(node string) (func([]byte) ([]byte, error), error) {
		if node != "" {
			return nil, errNodeFlag
		}
		return func(dst []byte) ([]byte, error) { return ulid.Make().AppendText(dst) }, nil
	},
	inspect: func(b []byte, text string) ([]byte, error) {
		id, err := ulid.Parse(text)
		if err != nil {
			return b, err
		}
		u := id.UUID()
		entropy := id.Entropy()
		b = jsonString(b, "format", "ulid")
		b = jsonString(b, "text", id.String())
		b = jsonUint(b, "timestamp", id.Timestamp())
		b = jsonString(b, "time", id.Time().Format(rfc3339Milli))
		b = jsonHex(b, "entropy", entropy[:])
		b = jsonHex(b, "hex", id[:])
		uuidText := fmt.Sprintf("%x-%x-%x-%x-%x", u[0:4], u[4:6], u[6:8], u[8:10], u[10:16])
		return jsonString(b, "uuid", uuidText), nil
	},
}

var ulidflakeFormat = format{
	name:    "ulidflake",
	textLen: 13,
	newMinter: func(node string) (func([]byte) ([]byte, error), error) {
		if node != "" {
			return nil, errNodeFlag
		}
		g, err := ulidflake.NewGenerator()
		if err != nil {
			return nil, err
		}
		// GenerateOrWait: when the random part of a millisecond runs out
		// the stream waits for the next one instead of failing.
		return func(dst []byte) ([]byte, error) {
			id, err := g.GenerateOrWait()
			if err != nil {
				return dst, err
			}
			return id.AppendText(dst)
		}, nil
	},
	inspect: func(b []byte, text string) ([]byte, error) {
		id, err := ulidflake.Parse(text)
		if err != nil {
			return b, err
		}
		b = jsonString(b, "format", "ulidflake")
		b = jsonString(b, "text", id.String())
		b = jsonInt(b, "int", id.Int64())
		b = jsonUint(b, "timestamp", id.Timestamp()) // ms since the epoch
		b = jsonString(b, "time", id.Time().Format(rfc3339Milli))
		b = jsonUint(b, "randomness", uint64(id.Randomness()))
		// The same bits read as the scalable variant.
		b = jsonUint(b, "scalableRandomness", uint64(id.ScalableRandomness()))
		return jsonUint(b, "scalabilityId", uint64(id.ScalabilityID())), nil
	},
}

var legacyFormat = format{
	name:    "legacy",
	textLen: 26,
	newMinter: func(node string) (func([]byte) ([]byte, error), error) {
		if node != "" {
			return nil, errNodeFlag
		}
		return func(dst []byte) ([]byte, error) { return legacy.New().AppendText(dst) }, nil
	},
	inspect: func(b []byte, text string) ([]byte, error) {
		id, err := legacy.Parse(text)
		if err != nil {
			return b, err
		}
		b = jsonString(b, "format", "legacy")
		b = jsonString(b, "text", id.String())
		b = jsonUint(b, "timestamp", id.Timestamp()) // ms since 2020-01-01
		b = jsonString(b, "time", id.Time().Format(rfc3339Milli))
		b = jsonUint(b, "counter", uint64(id.Counter()))
		b = jsonUint(b, "perSecRandom", uint64(id.PerSecRandom()))
		b = jsonUint(b, "perGenRandom", uint64(id.PerGenRandom()))
		return jsonHex(b, "hex", id[:]), nil
	},
}

func jsonInt(b []byte, key string, value int64) []byte {
	return strconv.AppendInt(jsonKey(b, key), value, 10)
}
