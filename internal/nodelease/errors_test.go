package nodelease

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

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
