package integration

import (
	"strconv"
	"testing"
	"time"

	"github.com/fastid/scru128"
	"github.com/fastid/scru128/legacy"
	"github.com/fastid/scru128/scru64"
	"github.com/fastid/scru128/ulid"
	"github.com/fastid/scru128/ulidflake"
)

// format describes one ID type T and its Null type N: how to mint IDs at
// chosen times, the range helpers, and how each kind of column takes
// values.
type format[T comparable, N comparable] struct {
	name string
	// unit is the timestamp's granularity: IDs minted within one unit
	// share a timestamp and fall in the same MinAtTime/MaxAtTime range.
	unit time.Duration
	// mint returns one ID for each of times (given in order), from a
	// Generator's Core method, so each ID has exactly its time's
	// timestamp and the IDs increase.
	mint                 func(t *testing.T, times []time.Time) []T
	minAtTime, maxAtTime func(time.Time) (T, error)
	null                 func(id T, valid bool) N
	nullFields           func(N) (T, bool)
	scanNull             error // the package's ErrScanNull
	columns              []column[T, N]
}

// column is a kind of column and what to pass to store a T or an N in
// it, range bounds included.
type column[T, N any] struct {
	kind     columnKind
	bind     func(T) any
	bindNull func(N) any
	// ordered reports whether the column keeps IDs in their order, so
	// that ORDER BY and BETWEEN work.
	ordered bool
}

type columnKind string

const (
	textColumn    columnKind = "text"    // TEXT, VARCHAR: the text form
	decimalColumn columnKind = "decimal" // TEXT holding a 64-bit ID's decimal digits
	binaryColumn  columnKind = "binary"  // BYTEA, BLOB: the raw bytes
	uuidColumn    columnKind = "uuid"    // PostgreSQL uuid: the 16 bytes
	bigintColumn  columnKind = "bigint"  // BIGINT, SQLite INTEGER: the integer
)

// columnType returns d's type for a kind of column, or "" if d has none.
func (d database) columnType(k columnKind) string {
	switch k {
	case textColumn, decimalColumn:
		return d.text
	case binaryColumn:
		return d.binary
	case uuidColumn:
		return d.uuid
	case bigintColumn:
		return d.bigint
	}
	return ""
}

// columns128 are the columns of a 128-bit type: the ID itself stores its
// text; the Binary conversions store the 16 bytes, in a binary or uuid
// column alike.
func columns128[T, N, B, NB any](binaryOf func(T) B, nullBinaryOf func(N) NB) []column[T, N] {
	text := column[T, N]{textColumn, func(id T) any { return id }, func(n N) any { return n }, true}
	bytes := column[T, N]{binaryColumn, func(id T) any { return binaryOf(id) }, func(n N) any { return nullBinaryOf(n) }, true}
	uuid := bytes
	uuid.kind = uuidColumn
	return []column[T, N]{text, bytes, uuid}
}

// columns64 are the columns of a 64-bit type: the ID itself stores its
// integer; a text column takes String() (which keeps the order) or the
// decimal digits (which Scan reads back, but which sort as text); a
// binary column takes the 8 bytes of AppendBinary.
func columns64[T interface {
	comparable
	String() string
	AppendBinary([]byte) ([]byte, error)
}, N any](nullFields func(N) (T, bool), decimal func(T) string) []column[T, N] {
	orNil := func(f func(T) any) func(N) any {
		return func(n N) any {
			if id, valid := nullFields(n); valid {
				return f(id)
			}
			return nil
		}
	}
	text := func(id T) any { return id.String() }
	dec := func(id T) any { return decimal(id) }
	bytes := func(id T) any { b, _ := id.AppendBinary(nil); return b }
	return []column[T, N]{
		{bigintColumn, func(id T) any { return id }, func(n N) any { return n }, true},
		{textColumn, text, orNil(text), true},
		{decimalColumn, dec, orNil(dec), false},
		{binaryColumn, bytes, orNil(bytes), true},
	}
}

var scru128Format = format[scru128.ID, scru128.NullID]{
	name: "scru128",
	unit: time.Millisecond,
	mint: func(t *testing.T, times []time.Time) []scru128.ID {
		g := scru128.NewGenerator()
		return mintAll(t, times, func(tm time.Time) (scru128.ID, error) {
			return g.GenerateOrAbortCore(uint64(tm.UnixMilli()), 0)
		})
	},
	minAtTime: scru128.MinAtTime, maxAtTime: scru128.MaxAtTime,
	null:       func(id scru128.ID, valid bool) scru128.NullID { return scru128.NullID{ID: id, Valid: valid} },
	nullFields: func(n scru128.NullID) (scru128.ID, bool) { return n.ID, n.Valid },
	scanNull:   scru128.ErrScanNull,
	columns: columns128(func(id scru128.ID) scru128.Binary { return scru128.Binary(id) },
		func(n scru128.NullID) scru128.NullBinary { return scru128.NullBinary(n) }),
}

var ulidFormat = format[ulid.ULID, ulid.NullULID]{
	name: "ulid",
	unit: time.Millisecond,
	mint: func(t *testing.T, times []time.Time) []ulid.ULID {
		g := ulid.NewGenerator()
		return mintAll(t, times, func(tm time.Time) (ulid.ULID, error) {
			return g.GenerateOrAbortCore(uint64(tm.UnixMilli()), 0)
		})
	},
	minAtTime: ulid.MinAtTime, maxAtTime: ulid.MaxAtTime,
	null:       func(id ulid.ULID, valid bool) ulid.NullULID { return ulid.NullULID{ULID: id, Valid: valid} },
	nullFields: func(n ulid.NullULID) (ulid.ULID, bool) { return n.ULID, n.Valid },
	scanNull:   ulid.ErrScanNull,
	columns: columns128(func(id ulid.ULID) ulid.Binary { return ulid.Binary(id) },
		func(n ulid.NullULID) ulid.NullBinary { return ulid.NullBinary(n) }),
}

var legacyFormat = format[legacy.ID, legacy.NullID]{
	name: "legacy",
	unit: time.Millisecond,
	mint: func(t *testing.T, times []time.Time) []legacy.ID {
		g := legacy.NewGenerator()
		return mintAll(t, times, func(tm time.Time) (legacy.ID, error) {
			return g.GenerateCore(uint64(tm.UnixMilli() - legacy.TimestampBias))
		})
	},
	minAtTime: legacy.MinAtTime, maxAtTime: legacy.MaxAtTime,
	null:       func(id legacy.ID, valid bool) legacy.NullID { return legacy.NullID{ID: id, Valid: valid} },
	nullFields: func(n legacy.NullID) (legacy.ID, bool) { return n.ID, n.Valid },
	scanNull:   legacy.ErrScanNull,
	columns: columns128(func(id legacy.ID) legacy.Binary { return legacy.Binary(id) },
		func(n legacy.NullID) legacy.NullBinary { return legacy.NullBinary(n) }),
}

var scru64Format = format[scru64.ID, scru64.NullID]{
	name: "scru64",
	unit: 256 * time.Millisecond,
	mint: func(t *testing.T, times []time.Time) []scru64.ID {
		spec, err := scru64.NewNodeSpecWithNodeID(42, 8)
		if err != nil {
			t.Fatal(err)
		}
		g := scru64.NewGenerator(spec)
		return mintAll(t, times, func(tm time.Time) (scru64.ID, error) {
			return g.GenerateOrAbortCore(uint64(tm.UnixMilli()), 0)
		})
	},
	minAtTime: scru64.MinAtTime, maxAtTime: scru64.MaxAtTime,
	null:       func(id scru64.ID, valid bool) scru64.NullID { return scru64.NullID{ID: id, Valid: valid} },
	nullFields: func(n scru64.NullID) (scru64.ID, bool) { return n.ID, n.Valid },
	scanNull:   scru64.ErrScanNull,
	columns: columns64(func(n scru64.NullID) (scru64.ID, bool) { return n.ID, n.Valid },
		func(id scru64.ID) string { return strconv.FormatUint(id.Uint64(), 10) }),
}

var ulidflakeFormat = format[ulidflake.ID, ulidflake.NullID]{
	name: "ulidflake",
	unit: time.Millisecond,
	mint: func(t *testing.T, times []time.Time) []ulidflake.ID {
		g, err := ulidflake.NewGenerator()
		if err != nil {
			t.Fatal(err)
		}
		return mintAll(t, times, func(tm time.Time) (ulidflake.ID, error) {
			return g.GenerateCore(uint64(tm.UnixMilli() - ulidflake.DefaultEpochMillis))
		})
	},
	minAtTime: ulidflake.MinAtTime, maxAtTime: ulidflake.MaxAtTime,
	null:       func(id ulidflake.ID, valid bool) ulidflake.NullID { return ulidflake.NullID{ID: id, Valid: valid} },
	nullFields: func(n ulidflake.NullID) (ulidflake.ID, bool) { return n.ID, n.Valid },
	scanNull:   ulidflake.ErrScanNull,
	columns: columns64(func(n ulidflake.NullID) (ulidflake.ID, bool) { return n.ID, n.Valid },
		func(id ulidflake.ID) string { return strconv.FormatInt(id.Int64(), 10) }),
}

// mintAll calls mint for each time and fails the test on error.
func mintAll[T any](t *testing.T, times []time.Time, mint func(time.Time) (T, error)) []T {
	t.Helper()
	ids := make([]T, len(times))
	for i, tm := range times {
		var err error
		if ids[i], err = mint(tm); err != nil {
			t.Fatalf("minting at %v: %v", tm, err)
		}
	}
	return ids
}
