package pgnode_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/fastid/scru128/scru64"
	"github.com/fastid/scru128/scru64/pgnode"
)

// checkPrefixed checks that err, returned by this package, reads
// "pgnode: " once, never speaks of etcd, and matches each of want under
// errors.Is.
func checkPrefixed(t *testing.T, what string, err error, want ...error) {
	t.Helper()
	if err == nil || !strings.HasPrefix(err.Error(), "pgnode: ") || strings.Contains(err.Error(), "pgnode: pgnode: ") ||
		strings.Contains(err.Error(), "etcd") {
		t.Errorf("%s: %v, want a text that starts with one \"pgnode: \" and does not speak of etcd", what, err)
	}
	for _, w := range want {
		if !errors.Is(err, w) {
			t.Errorf("%s: %v does not match %v", what, err, w)
		}
	}
}

// TestSentinelsCarryThePrefix: the exported errors read "pgnode: ..." and
// the typed errors, made by a caller or returned, match them.
func TestSentinelsCarryThePrefix(t *testing.T) {
	for _, tc := range []struct {
		err  error
		text string
	}{
		{pgnode.ErrNoFreeNodeID, "pgnode: no free node ID"},
		{pgnode.ErrLeaseLost, "pgnode: lease lost"},
		{pgnode.ErrDataLoss, "pgnode: PostgreSQL lost or rewound data"},
		{pgnode.ErrClosed, "pgnode: node closed"},
		{pgnode.ErrInvalidOption, "pgnode: invalid option"},
		{pgnode.ErrRealmMismatch, "pgnode: realm mismatch"},
		{pgnode.ErrBadData, "pgnode: unexpected data in PostgreSQL"},
		{pgnode.ErrStalled, "pgnode: minting stalled"},
	} {
		if tc.err.Error() != tc.text {
			t.Errorf("%q, want %q", tc.err, tc.text)
		}
	}
	for _, tc := range []struct {
		err   error
		is    []error
		isNot []error
	}{
		{&pgnode.OptionError{Option: "WithTTL", Reason: "r"}, []error{pgnode.ErrInvalidOption}, []error{pgnode.ErrRealmMismatch}},
		{&pgnode.RealmError{Key: "p/size", Found: "4", Want: 8}, []error{pgnode.ErrRealmMismatch}, []error{pgnode.ErrInvalidOption}},
		{&pgnode.RecordError{Key: "p/last/0000001", Value: "x"}, []error{pgnode.ErrBadData}, []error{pgnode.ErrRealmMismatch}},
		{&pgnode.DataError{Key: "p/size", Value: "x"}, []error{pgnode.ErrBadData}, []error{pgnode.ErrRealmMismatch, pgnode.ErrInvalidOption}},
		{&pgnode.StallError{Err: errors.New("refused")}, []error{pgnode.ErrStalled}, []error{pgnode.ErrLeaseLost, pgnode.ErrClosed}},
		{&pgnode.LostError{Reason: "r"}, []error{pgnode.ErrLeaseLost}, []error{pgnode.ErrDataLoss}},
		{&pgnode.LostError{Reason: "r", DataLoss: true}, []error{pgnode.ErrLeaseLost, pgnode.ErrDataLoss}, []error{pgnode.ErrClosed}},
		{&pgnode.RollbackError{Last: scru64.Max}, []error{scru64.ErrClockRollback}, []error{pgnode.ErrLeaseLost}},
	} {
		for _, w := range tc.is {
			if !errors.Is(tc.err, w) {
				t.Errorf("%T does not match %v", tc.err, w)
			}
		}
		for _, w := range tc.isNot {
			if errors.Is(tc.err, w) {
				t.Errorf("%T matches %v", tc.err, w)
			}
		}
	}
}

// TestReturnedErrorsCarryThePrefix: what Setup, Acquire, Generate, Err and
// Close return reads "pgnode: ..." once, and errors.Is and errors.As see
// the sentinels and the typed errors through it.
func TestReturnedErrorsCarryThePrefix(t *testing.T) {
	t.Parallel()
	r := newRealm(t, sharedServer(t))
	ctx := context.Background()
	in := func(opts ...pgnode.Option) []pgnode.Option {
		return append([]pgnode.Option{pgnode.WithSchema(r.schema)}, opts...)
	}

	_, err := pgnode.Acquire(ctx, r.db, in(pgnode.WithTTL(1500*time.Millisecond))...)
	checkPrefixed(t, "a bad option", err, pgnode.ErrInvalidOption)
	if oe := (*pgnode.OptionError)(nil); !errors.As(err, &oe) || oe.Option != "WithTTL" {
		t.Errorf("a bad option: %v is not an *OptionError for WithTTL", err)
	}
	_, err = pgnode.Acquire(ctx, r.db, nil)
	checkPrefixed(t, "a nil option", err, pgnode.ErrInvalidOption)
	checkPrefixed(t, "Setup with a nil option", pgnode.Setup(ctx, r.db, nil), pgnode.ErrInvalidOption)

	n, err := pgnode.Acquire(ctx, r.db, in(pgnode.WithRealm("errs"), pgnode.WithNodeIDSize(1), pgnode.WithTTL(2*time.Second))...)
	if err != nil {
		t.Fatal(err)
	}
	_, err = pgnode.Acquire(ctx, r.db, in(pgnode.WithRealm("errs"), pgnode.WithNodeIDSize(2))...)
	checkPrefixed(t, "another node ID size", err, pgnode.ErrRealmMismatch)
	if re := (*pgnode.RealmError)(nil); !errors.As(err, &re) || re.Found != "1" || re.Key != "errs/size" {
		t.Errorf("another node ID size: %v is not a *RealmError", err)
	}
	m, err := pgnode.Acquire(ctx, r.db, in(pgnode.WithRealm("errs"), pgnode.WithNodeIDSize(1))...)
	if err != nil {
		t.Fatal(err)
	}
	_, err = pgnode.Acquire(ctx, r.db, in(pgnode.WithRealm("errs"), pgnode.WithNodeIDSize(1))...)
	checkPrefixed(t, "every node ID held", err, pgnode.ErrNoFreeNodeID)

	// A lease revoked under the node: Generate, Err and Close report it.
	if err := pgnode.StoreOf(r.db, r.schema).Revoke(ctx, n.LeaseID()); err != nil {
		t.Fatal(err)
	}
	select {
	case <-n.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the node did not notice its revoked lease")
	}
	_, err = n.Generate()
	checkPrefixed(t, "Generate after the lease was lost", err, pgnode.ErrLeaseLost)
	if le := (*pgnode.LostError)(nil); !errors.As(err, &le) || le.NodeID != n.NodeID() {
		t.Errorf("Generate after the lease was lost: %v is not a *LostError", err)
	}
	checkPrefixed(t, "Err after the lease was lost", n.Err(), pgnode.ErrLeaseLost)
	checkPrefixed(t, "Close after the lease was lost", n.Close(ctx), pgnode.ErrLeaseLost)

	if err := m.Close(ctx); err != nil {
		t.Fatal(err)
	}
	_, err = m.Generate()
	checkPrefixed(t, "Generate after Close", err, pgnode.ErrClosed)
	checkPrefixed(t, "Close twice", m.Close(ctx), pgnode.ErrClosed)
	_, err = (*pgnode.Node)(nil).Generate()
	checkPrefixed(t, "a nil Node", err, pgnode.ErrClosed)

	// A record a day ahead: a *RollbackError, with the prefix.
	writeFarRecord(t, r, "errs-far", 24*time.Hour)
	far, err := pgnode.Acquire(ctx, r.db, in(pgnode.WithRealm("errs-far"))...)
	if err != nil {
		t.Fatal(err)
	}
	defer far.Close(ctx)
	_, err = far.Generate()
	checkPrefixed(t, "Generate a day behind", err, scru64.ErrClockRollback)
	if re := (*pgnode.RollbackError)(nil); !errors.As(err, &re) || re.Wait < 23*time.Hour {
		t.Errorf("Generate a day behind: %v is not a *RollbackError with the wait", err)
	}
	_, err = far.GenerateOrSleep()
	checkPrefixed(t, "GenerateOrSleep a day behind", err, scru64.ErrClockRollback)
}
