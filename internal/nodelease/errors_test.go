package nodelease

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/fastid/scru128/scru64"
)

// TestErrorsHaveNoPrefix: the command-line tool puts its own name before
// these texts, so none carries a package's.
func TestErrorsHaveNoPrefix(t *testing.T) {
	for _, err := range []error{
		ErrNoFreeNodeID, ErrLeaseLost, ErrDataLoss, ErrClosed, ErrInvalidOption, ErrRealmMismatch,
		&OptionError{Field: FieldTTL, Reason: "r"},
		&RealmError{Key: "/p/size", Found: "4", Want: 8},
		&RecordError{Key: "/p/last/0000001", Value: "x", NodeID: 1, Size: 8},
		&LostError{NodeID: 1, Lease: 0x3f, Reason: "r", DataLoss: true},
		&StoreError{Op: "granting a lease", Err: errors.New("refused")},
		&RollbackError{NodeID: 1, Last: scru64.Max, Clock: time.Unix(0, 0)},
	} {
		if s := err.Error(); strings.Contains(s, "etcdnode") || strings.Contains(s, "nodelease") {
			t.Errorf("%T: %q names a package", err, s)
		}
	}
}

// TestPrefixedSentinelsMatch: a sentinel under another package's prefix,
// as etcdnode exports it, is matched by every error that matches the
// sentinel, bare or itself prefixed, and by nothing else.
func TestPrefixedSentinelsMatch(t *testing.T) {
	leaseLost := &PrefixedError{Prefix: "etcdnode", Err: ErrLeaseLost}
	dataLoss := &PrefixedError{Prefix: "etcdnode", Err: ErrDataLoss}
	closed := &PrefixedError{Prefix: "etcdnode", Err: ErrClosed}
	invalid := &PrefixedError{Prefix: "etcdnode", Err: ErrInvalidOption}
	if leaseLost.Error() != "etcdnode: lease lost" {
		t.Fatalf("%q", leaseLost)
	}
	lost := &LostError{Reason: "r", DataLoss: true}
	for _, tc := range []struct {
		err, target error
		want        bool
	}{
		{lost, leaseLost, true},
		{lost, dataLoss, true},
		{&LostError{Reason: "r"}, dataLoss, false},
		{withPrefix("etcdnode", lost), leaseLost, true},
		{withPrefix("etcdnode", lost), ErrDataLoss, true},
		{ErrClosed, closed, true},
		{withPrefix("etcdnode", ErrClosed), closed, true},
		{ErrClosed, leaseLost, false},
		{&OptionError{Reason: "r"}, invalid, true},
		{&OptionError{Reason: "r"}, closed, false},
		{&RealmError{}, &PrefixedError{Prefix: "x", Err: ErrRealmMismatch}, true},
	} {
		if got := errors.Is(tc.err, tc.target); got != tc.want {
			t.Errorf("errors.Is(%v, %v) = %v", tc.err, tc.target, got)
		}
	}
	if p := withPrefix("etcdnode", withPrefix("etcdnode", lost)); p.Error() != "etcdnode: "+lost.Error() {
		t.Errorf("prefixed twice: %q", p)
	}
	if withPrefix("", lost) != lost || withPrefix("etcdnode", nil) != nil {
		t.Error("withPrefix without a prefix or an error")
	}
}

// TestAcquireErrorsTakeTheConfigsPrefix: with Config.ErrorPrefix, what
// Acquire returns reads with it; without, bare.
func TestAcquireErrorsTakeTheConfigsPrefix(t *testing.T) {
	cfg := DefaultConfig()
	_, err := Acquire(context.Background(), nil, cfg)
	if oe := (*OptionError)(nil); !errors.As(err, &oe) || oe.Field != FieldStore || strings.HasPrefix(err.Error(), "etcdnode") {
		t.Fatalf("bare: %v", err)
	}
	cfg.ErrorPrefix = "etcdnode"
	_, err = Acquire(context.Background(), nil, cfg)
	if oe := (*OptionError)(nil); !errors.As(err, &oe) || !strings.HasPrefix(err.Error(), "etcdnode: invalid option Store: ") {
		t.Fatalf("with the prefix: %v", err)
	}
}

// TestErrorsNameTheirStore: a package over another store than etcd exports
// ErrDataLoss in its own words (PrefixedError.Text), and its LostErrors
// name the store (LostError.Store); both still match the sentinels, and
// etcd's texts stay as they were.
func TestErrorsNameTheirStore(t *testing.T) {
	dataLoss := &PrefixedError{Prefix: "pgnode", Err: ErrDataLoss, Text: "PostgreSQL lost or rewound data"}
	if dataLoss.Error() != "pgnode: PostgreSQL lost or rewound data" {
		t.Errorf("%q", dataLoss)
	}
	lost := &LostError{NodeID: 3, Lease: 0x3f, Reason: "r", DataLoss: true, Store: "PostgreSQL"}
	if got := lost.Error(); got != "PostgreSQL lost or rewound data: node ID 3, lease 3f: r" {
		t.Errorf("%q", got)
	}
	if !errors.Is(lost, dataLoss) || !errors.Is(withPrefix("pgnode", lost), dataLoss) || !errors.Is(lost, ErrLeaseLost) {
		t.Error("a LostError naming its store does not match the sentinels")
	}
	if got := (&LostError{NodeID: 3, Lease: 0x3f, Reason: "r", Store: "PostgreSQL"}).Error(); got != "lease lost: node ID 3, lease 3f: r" {
		t.Errorf("a lost lease: %q", got)
	}
	if got := (&LostError{NodeID: 3, Lease: 0x3f, Reason: "r", DataLoss: true}).Error(); got != "etcd lost or rewound data: node ID 3, lease 3f: r" {
		t.Errorf("etcd's: %q", got)
	}
}

// TestErrorTextsAreSafeToPrint: text from the server (an error's
// description, a key, a value) reaches a terminal without its control
// characters, and no error reads "<nil>" or panics for a field left
// empty.
func TestErrorTextsAreSafeToPrint(t *testing.T) {
	const hostile = "\x1b[31mred\x1b[0m\r\x00\u202e\xff"
	server := errors.New("etcdserver: " + hostile)
	var typedNil *OptionError
	for _, err := range []error{
		&StoreError{Op: "granting a lease", Err: server},
		&StoreError{Op: "granting a lease"},
		&StoreError{Op: "granting a lease", Err: typedNil},
		&StoreError{Op: "granting a lease", Err: errors.New("")},
		&PrefixedError{Prefix: "etcdnode"},
		&PrefixedError{Prefix: "etcdnode", Err: &StoreError{Op: "x", Err: server}},
		&RecordError{Key: "/p/last/" + hostile, Value: hostile, NodeID: 1, Size: 8},
		&RealmError{Key: "/p/size", Found: hostile, Want: 8},
		&LostError{NodeID: 1, Lease: 2, Reason: "found " + hostile},
		&DataError{Key: "/p/node/" + hostile, Value: hostile, Reason: "r"},
		&DataError{},
		&StallError{NodeID: 1, Bound: scru64.Max, Since: time.Unix(0, 0), Attempts: 2, Err: server},
		&StallError{},
		&OptionError{Field: FieldTTL},
	} {
		var text string
		func() {
			defer func() {
				if p := recover(); p != nil {
					t.Errorf("%T: Error panics: %v", err, p)
				}
			}()
			text = err.Error()
		}()
		if strings.HasSuffix(text, "<nil>") || strings.Contains(text, "%!") {
			t.Errorf("%T: %q", err, text)
		}
		for _, r := range text {
			if r < ' ' || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == '\u202e' || r == utf8.RuneError {
				t.Errorf("%T: %q carries %U", err, text, r)
				break
			}
		}
	}
}

// TestLongValuesAreCut: a megabyte from etcd makes an error of a few
// dozen bytes, which still says how long the value was.
func TestLongValuesAreCut(t *testing.T) {
	huge := strings.Repeat("\x1b", 1<<20)
	err := &DataError{Key: "/p/size", Value: huge, Reason: "r"}
	if s := err.Error(); len(s) > 400 || !strings.Contains(s, "(1048576 bytes)") {
		t.Fatalf("%d bytes: %.200q", len(s), s)
	}
}

// TestDataErrorsNameTheirStore: with a store's name, ErrBadData's typed
// errors speak of it instead of etcd, and still match ErrBadData.
func TestDataErrorsNameTheirStore(t *testing.T) {
	for _, err := range []error{
		&DataError{Key: "r/size", Value: "x", Reason: "r", Store: "PostgreSQL"},
		&DataError{Reason: "r", Store: "PostgreSQL"},
		&RecordError{Key: "r/last/0000001", Value: "x", NodeID: 1, Size: 8, Store: "PostgreSQL"},
	} {
		if s := err.Error(); !strings.HasPrefix(s, "unexpected data in PostgreSQL: ") || strings.Contains(s, "etcd") ||
			!errors.Is(err, ErrBadData) || !errors.Is(err, &PrefixedError{Prefix: "pgnode", Err: ErrBadData}) {
			t.Errorf("%T: %q", err, s)
		}
	}
	if s := (&DataError{Reason: "r"}).Error(); s != "unexpected data in etcd: r" {
		t.Errorf("without a store: %q", s)
	}
}

// TestRollbackErrorWordsLongWaits: a record centuries ahead of the clock
// gives a wait in years, or one too far to wait for, never an overflowed
// duration.
func TestRollbackErrorWordsLongWaits(t *testing.T) {
	clock := time.UnixMilli(1_700_000_000_000)
	for _, tc := range []struct {
		err  *RollbackError
		want []string
	}{
		{&RollbackError{NodeID: 5, Last: scru64.Max, Clock: clock, Wait: math.MaxInt64},
			[]string{"years behind", "too far ahead to wait for"}},
		{&RollbackError{NodeID: 5, Last: scru64.Max, Clock: clock, Wait: 100 * 366 * 24 * time.Hour},
			[]string{"years behind", "minting resumes in 100 years"}},
		{&RollbackError{NodeID: 5, Last: idAt(t, clock.Add(90*time.Second)), Clock: clock, Wait: time.Minute},
			[]string{"1m29.", "behind", "minting resumes in 1m0s"}},
	} {
		s := tc.err.Error()
		for _, w := range tc.want {
			if !strings.Contains(s, w) {
				t.Errorf("%q: want %q in it", s, w)
			}
		}
		if strings.Contains(s, "2562047h") || strings.Contains(s, " 0s") {
			t.Errorf("%q: an overflowed duration", s)
		}
	}
}

// idAt returns the smallest ID of the tick that holds t.
func idAt(t *testing.T, at time.Time) scru64.ID {
	t.Helper()
	id, err := scru64.FromParts(uint64(at.UnixMilli())>>8, 0)
	if err != nil {
		t.Fatal(err)
	}
	return id
}
