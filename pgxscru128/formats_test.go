package pgxscru128_test

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/fastid/scru128"
	"github.com/fastid/scru128/legacy"
	"github.com/fastid/scru128/scru64"
	"github.com/fastid/scru128/ulid"
	"github.com/fastid/scru128/ulidflake"
	"github.com/jackc/pgx/v5/pgtype"
)

// format describes one ID type T and its Null type N for the tests: how to
// mint IDs, the forms they take, and the errors their package returns.
type format[T, N comparable] struct {
	name   string
	pgType string // "uuid" or "int8"
	// unit is the timestamp's granularity: MinAtTime(t) and MaxAtTime(t)
	// bound the IDs minted within t's unit.
	unit time.Duration
	// at mints an ID of time t, with random other fields.
	at func(t time.Time) (T, error)
	// random returns an ID at a random offset from the format's epoch:
	// often within its first hours, where a 64-bit ID's integer is small.
	random               func(r *rand.Rand) T
	minAtTime, maxAtTime func(time.Time) (T, error)
	// extremes are the smallest and the largest ID; outOfRange are
	// values of T that are no ID (for 64-bit types, made by converting an
	// integer).
	extremes, outOfRange []T
	// badInt8 are int8 values that are no ID.
	badInt8    []int64
	null       func(id T, valid bool) N
	nullFields func(N) (T, bool)
	compare    func(a, b T) int
	// text is the ID's own text form; pgText the text form of pgType,
	// which PostgreSQL writes (id::text); stored the text form Register
	// gives an ID wherever it goes as text (to a text column, or where
	// pgx does not know the parameter's type): pgText for a uuid, the
	// decimal digits padded with zeros to 19 for an int8.
	text, pgText, stored func(T) string
	// native is id as the Go value pgx itself encodes to pgType the
	// same way (pgtype.UUID, int64).
	native func(id T) any
	// textLength is the length of the ID's own text form.
	textLength int
	// The package's errors (errAmbiguous nil for a 128-bit format).
	errScanNull, errLength, errRange, errChar, errAmbiguous error
	// scan is the type's Scan method.
	scan func(id *T, src any) error
}

func hyphenated(b [16]byte) string {
	h := hex.EncodeToString(b[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

var scru128Format = format[scru128.ID, scru128.NullID]{
	name: "scru128", pgType: "uuid", unit: time.Millisecond,
	at:        scru128.NewAt,
	random:    func(r *rand.Rand) scru128.ID { return random128(r) },
	minAtTime: scru128.MinAtTime, maxAtTime: scru128.MaxAtTime,
	extremes:    []scru128.ID{{}, scru128.Max},
	null:        func(id scru128.ID, valid bool) scru128.NullID { return scru128.NullID{ID: id, Valid: valid} },
	nullFields:  func(n scru128.NullID) (scru128.ID, bool) { return n.ID, n.Valid },
	compare:     scru128.ID.Compare,
	text:        scru128.ID.String,
	native:      func(id scru128.ID) any { return pgtype.UUID{Bytes: id, Valid: true} },
	pgText:      func(id scru128.ID) string { return hyphenated(id) },
	stored:      func(id scru128.ID) string { return hyphenated(id) },
	textLength:  25,
	errScanNull: scru128.ErrScanNull, errLength: scru128.ErrInvalidLength,
	errRange: scru128.ErrOutOfRange, errChar: scru128.ErrInvalidCharacter,
	scan: (*scru128.ID).Scan,
}

var ulidFormat = format[ulid.ULID, ulid.NullULID]{
	name: "ulid", pgType: "uuid", unit: time.Millisecond,
	at:        ulid.NewAt,
	random:    func(r *rand.Rand) ulid.ULID { return random128(r) },
	minAtTime: ulid.MinAtTime, maxAtTime: ulid.MaxAtTime,
	extremes:    []ulid.ULID{{}, ulid.Max},
	null:        func(id ulid.ULID, valid bool) ulid.NullULID { return ulid.NullULID{ULID: id, Valid: valid} },
	nullFields:  func(n ulid.NullULID) (ulid.ULID, bool) { return n.ULID, n.Valid },
	compare:     ulid.ULID.Compare,
	text:        ulid.ULID.String,
	native:      func(id ulid.ULID) any { return pgtype.UUID{Bytes: id, Valid: true} },
	pgText:      func(id ulid.ULID) string { return hyphenated(id) },
	stored:      func(id ulid.ULID) string { return hyphenated(id) },
	textLength:  26,
	errScanNull: ulid.ErrScanNull, errLength: ulid.ErrInvalidLength,
	errRange: ulid.ErrOutOfRange, errChar: ulid.ErrInvalidCharacter,
	scan: (*ulid.ULID).Scan,
}

var legacyFormat = format[legacy.ID, legacy.NullID]{
	name: "legacy", pgType: "uuid", unit: time.Millisecond,
	at:        legacy.NewAt,
	random:    func(r *rand.Rand) legacy.ID { return random128(r) },
	minAtTime: legacy.MinAtTime, maxAtTime: legacy.MaxAtTime,
	extremes: []legacy.ID{{}, {
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	}},
	null:        func(id legacy.ID, valid bool) legacy.NullID { return legacy.NullID{ID: id, Valid: valid} },
	nullFields:  func(n legacy.NullID) (legacy.ID, bool) { return n.ID, n.Valid },
	compare:     legacy.ID.Compare,
	text:        legacy.ID.String,
	native:      func(id legacy.ID) any { return pgtype.UUID{Bytes: id, Valid: true} },
	pgText:      func(id legacy.ID) string { return hyphenated(id) },
	stored:      func(id legacy.ID) string { return hyphenated(id) },
	textLength:  26,
	errScanNull: legacy.ErrScanNull, errLength: legacy.ErrInvalidLength,
	errRange: legacy.ErrOutOfRange, errChar: legacy.ErrInvalidCharacter,
	scan: (*legacy.ID).Scan,
}

var scru64Format = format[scru64.ID, scru64.NullID]{
	name: "scru64", pgType: "int8", unit: 256 * time.Millisecond,
	at: func(t time.Time) (scru64.ID, error) {
		lo, err := scru64.MinAtTime(t)
		return lo + scru64.ID(rand.N(scru64.MaxNodeCtr+1)), err
	},
	random: func(r *rand.Rand) scru64.ID {
		return scru64.MinTimestamp<<24 + scru64.ID(nearEpoch(r, uint64(scru64.Max-scru64.MinTimestamp<<24)))
	},
	minAtTime: scru64.MinAtTime, maxAtTime: scru64.MaxAtTime,
	extremes:    []scru64.ID{0, scru64.Max},
	outOfRange:  []scru64.ID{scru64.Max + 1, 1<<63 - 1, 1 << 63, 1<<64 - 1},
	badInt8:     []int64{int64(scru64.Max) + 1, math.MaxInt64, -1, math.MinInt64},
	null:        func(id scru64.ID, valid bool) scru64.NullID { return scru64.NullID{ID: id, Valid: valid} },
	nullFields:  func(n scru64.NullID) (scru64.ID, bool) { return n.ID, n.Valid },
	compare:     scru64.ID.Compare,
	text:        scru64.ID.String,
	native:      func(id scru64.ID) any { return int64(id) },
	pgText:      func(id scru64.ID) string { return strconv.FormatUint(uint64(id), 10) },
	stored:      func(id scru64.ID) string { return fmt.Sprintf("%019d", uint64(id)) },
	textLength:  12,
	errScanNull: scru64.ErrScanNull, errLength: scru64.ErrInvalidLength,
	errRange: scru64.ErrOutOfRange, errChar: scru64.ErrInvalidCharacter,
	errAmbiguous: scru64.ErrAmbiguous, scan: (*scru64.ID).Scan,
}

var ulidflakeFormat = format[ulidflake.ID, ulidflake.NullID]{
	name: "ulidflake", pgType: "int8", unit: time.Millisecond,
	at:        ulidflake.NewAt,
	random:    func(r *rand.Rand) ulidflake.ID { return ulidflake.ID(nearEpoch(r, uint64(ulidflake.Max))) },
	minAtTime: ulidflake.MinAtTime, maxAtTime: ulidflake.MaxAtTime,
	extremes:    []ulidflake.ID{0, ulidflake.Max},
	outOfRange:  []ulidflake.ID{-1, -1 << 63},
	badInt8:     []int64{-1, math.MinInt64},
	null:        func(id ulidflake.ID, valid bool) ulidflake.NullID { return ulidflake.NullID{ID: id, Valid: valid} },
	nullFields:  func(n ulidflake.NullID) (ulidflake.ID, bool) { return n.ID, n.Valid },
	compare:     ulidflake.ID.Compare,
	text:        ulidflake.ID.String,
	native:      func(id ulidflake.ID) any { return int64(id) },
	pgText:      func(id ulidflake.ID) string { return strconv.FormatInt(int64(id), 10) },
	stored:      func(id ulidflake.ID) string { return fmt.Sprintf("%019d", int64(id)) },
	textLength:  13,
	errScanNull: ulidflake.ErrScanNull, errLength: ulidflake.ErrInvalidLength,
	errRange: ulidflake.ErrOutOfRange, errChar: ulidflake.ErrInvalidCharacter,
	errAmbiguous: ulidflake.ErrAmbiguous, scan: (*ulidflake.ID).Scan,
}

// nearEpoch returns a random integer up to max: half of them below 2^34
// (a Ulid-Flake ID of the first 4.5 hours after its epoch, whose decimal
// digits are as many as its text's or fewer; a custom epoch changes only
// the time an ID stands for, not its integer), the rest spread over every
// order of magnitude up to max.
func nearEpoch(r *rand.Rand, max uint64) uint64 {
	if r.IntN(2) == 0 {
		return r.Uint64N(1<<34) % (max + 1)
	}
	return r.Uint64N(1<<r.IntN(64)) % (max + 1)
}

// random128 returns 16 random bytes whose leading bits, the timestamp's
// high ones, are zero in a random number: IDs from any offset from the
// epoch.
func random128(r *rand.Rand) [16]byte {
	var b [16]byte
	binary.BigEndian.PutUint64(b[:8], r.Uint64()>>r.IntN(64))
	binary.BigEndian.PutUint64(b[8:], r.Uint64())
	return b
}

// formats are the formats under test, one entry each; each generic test
// is a method of format, which hides the type parameters.
var formats = []testedFormat{&scru128Format, &ulidFormat, &legacyFormat, &scru64Format, &ulidflakeFormat}

// forEachFormat runs test for each format, as a subtest.
func forEachFormat(t *testing.T, test func(t *testing.T, f testedFormat)) {
	for _, f := range formats {
		t.Run(f.formatName(), func(t *testing.T) { test(t, f) })
	}
}

func (f *format[T, N]) formatName() string { return f.name }

// base is the time the tests mint IDs around: after every format's epoch.
var base = time.Date(2025, 3, 14, 15, 9, 26, 0, time.UTC)

// unitOffsets are the units after base at which sample mints IDs: some
// units hold several IDs, some none, so that ranges have edges to get
// wrong.
var unitOffsets = []int{0, 0, 1, 3, 3, 3, 4, 7, 8, 8}

// sample returns IDs minted at unitOffsets and f's extremes, sorted as IDs
// compare, which is the order a column keeps them in.
func (f *format[T, N]) sample(t testing.TB) []T {
	t.Helper()
	var ids []T
	for _, u := range unitOffsets {
		id, err := f.at(base.Add(time.Duration(u) * f.unit))
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	ids = append(ids, f.extremes...)
	slices.SortFunc(ids, f.compare)
	if len(slices.CompactFunc(slices.Clone(ids), func(a, b T) bool { return a == b })) != len(ids) {
		t.Fatal("sample minted the same ID twice")
	}
	return ids
}

// ranges are pairs of unit offsets, inclusive, to query with BETWEEN.
var ranges = [][2]int{{0, 0}, {0, 8}, {1, 3}, {2, 2}, {3, 3}, {4, 7}, {5, 6}, {8, 8}, {9, 20}}

// inRange returns the indexes of sample IDs whose time falls in units lo
// to hi.
func (f *format[T, N]) inRange(t testing.TB, ids []T, lo, hi int) []int {
	t.Helper()
	min, err := f.minAtTime(base.Add(time.Duration(lo) * f.unit))
	if err != nil {
		t.Fatal(err)
	}
	max, err := f.maxAtTime(base.Add(time.Duration(hi) * f.unit))
	if err != nil {
		t.Fatal(err)
	}
	var want []int
	for i, id := range ids {
		if f.compare(min, id) <= 0 && f.compare(id, max) <= 0 {
			want = append(want, i)
		}
	}
	return want
}
