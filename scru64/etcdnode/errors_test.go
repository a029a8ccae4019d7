package etcdnode_test

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/fastid/scru128/scru64"
	"github.com/fastid/scru128/scru64/etcdnode"
)

// checkPrefixed checks that err, returned by this package, reads
// "etcdnode: " once and matches each of want under errors.Is.
func checkPrefixed(t *testing.T, what string, err error, want ...error) {
	t.Helper()
	if err == nil || !strings.HasPrefix(err.Error(), "etcdnode: ") || strings.Contains(err.Error(), "etcdnode: etcdnode: ") {
		t.Errorf("%s: %v, want a text that starts with one \"etcdnode: \"", what, err)
	}
	for _, w := range want {
		if !errors.Is(err, w) {
			t.Errorf("%s: %v does not match %v", what, err, w)
		}
	}
}

// TestSentinelsCarryThePrefix: the exported errors read "etcdnode: ..." and
// the typed errors, made by a caller or returned, match them.
func TestSentinelsCarryThePrefix(t *testing.T) {
	for _, tc := range []struct {
		err  error
		text string
	}{
		{etcdnode.ErrNoFreeNodeID, "etcdnode: no free node ID"},
		{etcdnode.ErrLeaseLost, "etcdnode: lease lost"},
		{etcdnode.ErrDataLoss, "etcdnode: etcd lost or rewound data"},
		{etcdnode.ErrClosed, "etcdnode: node closed"},
		{etcdnode.ErrInvalidOption, "etcdnode: invalid option"},
		{etcdnode.ErrRealmMismatch, "etcdnode: realm mismatch"},
		{etcdnode.ErrBadData, "etcdnode: unexpected data in etcd"},
		{etcdnode.ErrStalled, "etcdnode: minting stalled"},
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
		{&etcdnode.OptionError{Option: "WithTTL", Reason: "r"}, []error{etcdnode.ErrInvalidOption}, []error{etcdnode.ErrRealmMismatch}},
		{&etcdnode.RealmError{Key: "/p/size", Found: "4", Want: 8}, []error{etcdnode.ErrRealmMismatch}, []error{etcdnode.ErrInvalidOption}},
		{&etcdnode.RecordError{Key: "/p/last/0000001", Value: "x"}, []error{etcdnode.ErrBadData}, []error{etcdnode.ErrRealmMismatch}},
		{&etcdnode.DataError{Key: "/p/size", Reason: "r"}, []error{etcdnode.ErrBadData}, []error{etcdnode.ErrRealmMismatch, etcdnode.ErrInvalidOption}},
		{&etcdnode.StallError{Err: errors.New("e")}, []error{etcdnode.ErrStalled}, []error{etcdnode.ErrLeaseLost}},
		{&etcdnode.LostError{Reason: "r"}, []error{etcdnode.ErrLeaseLost}, []error{etcdnode.ErrDataLoss}},
		{&etcdnode.LostError{Reason: "r", DataLoss: true}, []error{etcdnode.ErrLeaseLost, etcdnode.ErrDataLoss}, []error{etcdnode.ErrClosed}},
		{&etcdnode.RollbackError{Last: scru64.Max}, []error{scru64.ErrClockRollback}, []error{etcdnode.ErrLeaseLost}},
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
	if got := (&etcdnode.OptionError{Option: "WithTTL", Reason: "1.5s is not a whole number of seconds"}).Error(); got != "invalid option WithTTL: 1.5s is not a whole number of seconds" {
		t.Errorf("an OptionError of its own reads %q", got)
	}
}

// TestReturnedErrorsCarryThePrefix: what Acquire, Generate, Err and Close
// return reads "etcdnode: ..." once, and errors.Is and errors.As see the
// sentinels and the typed errors through it.
func TestReturnedErrorsCarryThePrefix(t *testing.T) {
	srv := startServer(t)
	client := newClient(t, srv.endpoint)
	ctx := context.Background()

	_, err := etcdnode.Acquire(ctx, client, etcdnode.WithTTL(1500*time.Millisecond))
	checkPrefixed(t, "a bad option", err, etcdnode.ErrInvalidOption)
	if oe := (*etcdnode.OptionError)(nil); !errors.As(err, &oe) || oe.Option != "WithTTL" {
		t.Errorf("a bad option: %v is not an *OptionError for WithTTL", err)
	}
	_, err = etcdnode.Acquire(ctx, client, nil)
	checkPrefixed(t, "a nil option", err, etcdnode.ErrInvalidOption)

	n, err := etcdnode.Acquire(ctx, client, etcdnode.WithPrefix("/errs/"), etcdnode.WithNodeIDSize(1), etcdnode.WithTTL(2*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	_, err = etcdnode.Acquire(ctx, client, etcdnode.WithPrefix("/errs/"), etcdnode.WithNodeIDSize(2))
	checkPrefixed(t, "another node ID size", err, etcdnode.ErrRealmMismatch)
	if re := (*etcdnode.RealmError)(nil); !errors.As(err, &re) || re.Found != "1" {
		t.Errorf("another node ID size: %v is not a *RealmError", err)
	}
	m, err := etcdnode.Acquire(ctx, client, etcdnode.WithPrefix("/errs/"), etcdnode.WithNodeIDSize(1))
	if err != nil {
		t.Fatal(err)
	}
	_, err = etcdnode.Acquire(ctx, client, etcdnode.WithPrefix("/errs/"), etcdnode.WithNodeIDSize(1))
	checkPrefixed(t, "every node ID held", err, etcdnode.ErrNoFreeNodeID)

	// A lease revoked under the node: Generate, Err and Close report it.
	if _, err := client.Revoke(ctx, n.LeaseID()); err != nil {
		t.Fatal(err)
	}
	select {
	case <-n.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the node did not notice its revoked lease")
	}
	_, err = n.Generate()
	checkPrefixed(t, "Generate after the lease was lost", err, etcdnode.ErrLeaseLost)
	if le := (*etcdnode.LostError)(nil); !errors.As(err, &le) || le.NodeID != n.NodeID() {
		t.Errorf("Generate after the lease was lost: %v is not a *LostError", err)
	}
	checkPrefixed(t, "Err after the lease was lost", n.Err(), etcdnode.ErrLeaseLost)
	checkPrefixed(t, "Close after the lease was lost", n.Close(ctx), etcdnode.ErrLeaseLost)

	if err := m.Close(ctx); err != nil {
		t.Fatal(err)
	}
	_, err = m.Generate()
	checkPrefixed(t, "Generate after Close", err, etcdnode.ErrClosed)
	checkPrefixed(t, "Close twice", m.Close(ctx), etcdnode.ErrClosed)
	_, err = (*etcdnode.Node)(nil).Generate()
	checkPrefixed(t, "a nil Node", err, etcdnode.ErrClosed)
}

// TestRollbackErrorCarriesThePrefix: a record a day ahead of the clock
// makes Generate return a *RollbackError, with the prefix, that matches
// scru64.ErrClockRollback.
func TestRollbackErrorCarriesThePrefix(t *testing.T) {
	srv := startServer(t)
	writeFarRecord(t, srv, "/errs-far/", 8, 24*time.Hour)
	n, err := etcdnode.Acquire(context.Background(), newClient(t, srv.endpoint), etcdnode.WithPrefix("/errs-far/"))
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close(context.Background())
	_, err = n.Generate()
	checkPrefixed(t, "Generate a day behind", err, scru64.ErrClockRollback)
	if re := (*etcdnode.RollbackError)(nil); !errors.As(err, &re) || re.Wait < 23*time.Hour {
		t.Errorf("Generate a day behind: %v is not a *RollbackError with the wait", err)
	}
	_, err = n.GenerateOrSleep()
	checkPrefixed(t, "GenerateOrSleep a day behind", err, scru64.ErrClockRollback)
}

// TestRollbackErrorOfARecordCenturiesAhead: a record 500 years ahead of
// the clock (a clock that once read the far future) is a wait past the
// largest Duration: Wait saturates, ClockWait agrees, and the text says
// the years and that it is too far to wait for, never an overflowed "0s".
func TestRollbackErrorOfARecordCenturiesAhead(t *testing.T) {
	srv := startServer(t)
	writeRecordAt(t, srv, "/errs-centuries/", 8, time.Now().AddDate(500, 0, 0))
	n, err := etcdnode.Acquire(context.Background(), newClient(t, srv.endpoint), etcdnode.WithPrefix("/errs-centuries/"))
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close(context.Background())
	_, err = n.Generate()
	re := (*etcdnode.RollbackError)(nil)
	if !errors.As(err, &re) || re.Wait != math.MaxInt64 {
		t.Fatalf("Generate 500 years behind: %v; want a *RollbackError whose Wait is the largest Duration", err)
	}
	if !strings.Contains(err.Error(), "500 years behind") || !strings.Contains(err.Error(), "too far ahead to wait for") {
		t.Errorf("Generate 500 years behind: %q", err)
	}
	if w := n.ClockWait(); w != math.MaxInt64 {
		t.Errorf("ClockWait 500 years behind: %v", w)
	}
	t.Log(err)
}
