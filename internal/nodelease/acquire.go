package nodelease

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/fastid/scru128/internal/clock"
	"github.com/fastid/scru128/scru64"
)

const (
	// listBatch is how many free node IDs one listing collects: the
	// candidates tried, lowest first, before listing again.
	listBatch = 16
	// keysPage is how many holder keys one Keys call asks for, so that a
	// realm of a thousand nodes is listed with one request.
	keysPage = 1024
	// nodeIDDigits is the width of a node ID in keys: 2^23-1 = 8388607.
	nodeIDDigits = 7
	// cleanupTimeout bounds what a failed Acquire does to leave etcd as it
	// found it (put the record back, revoke the lease), whatever the
	// caller's context says: the steps are safe to skip (the record stays
	// ahead, the lease expires), so they must not hold a caller up long.
	cleanupTimeout = 2 * time.Second
	// attempts is how many times a request is sent before the step it is
	// for fails (see try): with the timeout doubling, 31 request timeouts
	// in all, 39 s with the default TTL, unless the context ends first.
	attempts = 5
)

func holderKey(prefix string, id uint32) string { return prefix + "node/" + pad(id) }
func recordKey(prefix string, id uint32) string { return prefix + "last/" + pad(id) }

func pad(id uint32) string {
	s := strconv.FormatUint(uint64(id), 10)
	const zeros = "0000000"
	return zeros[:nodeIDDigits-len(s)] + s
}

// Acquire leases the lowest free node ID that cfg allows and returns a
// [Node] minting under it, with its lease kept alive in the background until
// Close or until the lease is lost. See the package doc for the protocol.
//
// It returns an [*OptionError] for a bad cfg or a nil store, a [*RealmError]
// if the realm uses another node ID size, a [*DataError] or a
// [*RecordError] (matching [ErrBadData]) for keys, values or answers from
// etcd that this package did not write or ask for, an error matching
// [ErrNoFreeNodeID] if every node ID is held, a [*LostError] if the lease
// was lost before the first ID, and [*StoreError] values for requests that
// failed every attempt. On error it leaves etcd as it found it: it puts
// back the record if it may have written it, and revokes the lease it
// granted; if putting the record back fails too, the error says so (the
// record is then at most 5.12 s ahead of what it was, which is safe).
func Acquire(ctx context.Context, store Store, cfg Config) (*Node, error) {
	n, err := acquire(ctx, store, cfg)
	if err != nil {
		return nil, withPrefix(cfg.ErrorPrefix, err)
	}
	return n, nil
}

// acquire is Acquire with the errors bare.
func acquire(ctx context.Context, store Store, cfg Config) (*Node, error) {
	if store == nil {
		return nil, &OptionError{Field: FieldStore, Reason: "no etcd client (nil)"}
	}
	if ctx == nil {
		ctx = context.Background()
	}
	if err := cfg.Check(); err != nil {
		return nil, err
	}
	n := &Node{
		store:       store,
		timeout:     requestTimeout(cfg.TTL),
		size:        cfg.NodeIDSize,
		raise:       make(chan struct{}, 1),
		done:        make(chan struct{}),
		realm:       realm{key: cfg.Prefix + "size", value: strconv.Itoa(int(cfg.NodeIDSize))},
		errorPrefix: cfg.ErrorPrefix,
		storeName:   cfg.StoreName,
		clusterHint: cfg.ClusterChanged,
		closed:      withPrefix(cfg.ErrorPrefix, ErrClosed),
	}
	if cfg.Wall == nil {
		n.clock = clock.New()
	} else {
		n.clock = clock.NewWithWall(cfg.Wall, clock.DefaultInterval)
	}
	if err := n.try(ctx, n.joinRealm); err != nil {
		return nil, err
	}
	if err := n.try(ctx, func(ctx context.Context) error { return n.grant(ctx, cfg.TTL) }); err != nil {
		return nil, err
	}
	found, err := n.take(ctx, cfg)
	if err == nil {
		err = n.start(ctx, cfg, found)
	}
	if err != nil {
		cleanup, cancel := detached(ctx)
		defer cancel()
		if restoreErr := n.restoreRecord(cleanup, found); restoreErr != nil {
			err = fmt.Errorf("%w; and the continuity record could not be put back (it may stay up to a lead, 5.12 s, ahead, which is safe): %w", err, restoreErr)
		}
		n.revoke(cleanup)
		return nil, err
	}
	n.ctx, n.cancel = context.WithCancel(context.Background())
	n.loops.Add(2)
	go n.leaseLoop()
	go n.boundLoop()
	return n, nil
}

// maxRequestTimeout caps the request timeout of long TTLs, whose margins
// run to minutes: a request to etcd that has not been answered in 2 s is
// worth sending again to another member, and a caller of Generate that
// waits for a write hears within 6 s why it waits.
const maxRequestTimeout = 2 * time.Second

// requestTimeout is the longest the first attempt of a request to etcd is
// given: the TTL's safety margin, so that a keep-alive stuck at a member
// that hangs leaves time for another, and at most maxRequestTimeout.
func requestTimeout(ttl time.Duration) time.Duration { return min(Margin(ttl), maxRequestTimeout) }

// try runs a step that is one request to etcd up to attempts times while
// ctx lasts, the first given at most the node's request timeout and each
// next one twice as long as the one before, and returns the last attempt's
// error: tryTimes with attempts.
//
// This is the failover the protocol needs from a Store over several
// endpoints: a member that hangs, has no leader or is cut off costs an
// attempt, and the next attempt goes to another member (clientv3 balances
// its requests round robin, and retries by itself only reads, and only
// after an answer saying the member is unavailable). The doubling lets a
// cluster that is slow, not broken, answer all the same. Every step tried
// again is safe to repeat: the transactions compare before they write
// (an acquire transaction that may have applied is dealt with in
// tryTake, a record write in writeRecord), keep-alives and revocations
// are idempotent, and a lease granted twice leaves one unused lease that
// expires after its TTL.
func (n *Node) try(ctx context.Context, step func(ctx context.Context) error) error {
	return n.tryTimes(ctx, attempts, step)
}

// transient reports whether the Store calls err, its own, transient.
func (n *Node) transient(err error) bool {
	t, ok := n.store.(Transient)
	return ok && t.Transient(err)
}

// tryTimes runs step up to times attempts while ctx lasts, the first given
// at most the node's request timeout and each next one twice as long, and
// returns the last attempt's error. Only a failed request (a *StoreError)
// is tried again: the protocol's own errors (bad data, a lost lease), and
// an answer that the Store found malformed (a *DataError it wrapped), are
// final. A failure is tried again at once, but for one the Store calls
// transient.
//
// A transient failure (see [Transient]: a member with no leader says so at
// once, and while the cluster elects one every member does) does not
// count as an attempt: it is followed by a wait, renewRetry at first and
// twice as long each time up to the request timeout, and tried again for
// as long as times timed-out attempts would take (2^times - 1 request
// timeouts: 31 for Acquire's and Close's steps, 7 for a round of the
// bound loop), so that an election, an election timeout or two, does not
// use the attempts up within a second.
func (n *Node) tryTimes(ctx context.Context, times int, step func(ctx context.Context) error) error {
	end := clock.Mono() + int64(n.timeout*(1<<times-1))
	wait := renewRetry
	for attempt := 0; ; {
		rctx, cancel := context.WithTimeout(ctx, n.timeout<<attempt)
		err := step(rctx)
		timedOut := rctx.Err() != nil
		cancel()
		var failed *StoreError
		if err == nil || !errors.As(err, &failed) || errors.Is(err, ErrBadData) || ctx.Err() != nil {
			return err
		}
		left := time.Duration(end - clock.Mono())
		if timedOut || !n.transient(failed.Err) {
			if attempt++; attempt == times {
				return err
			}
			continue
		}
		if left <= 0 {
			return err
		}
		pause := time.NewTimer(min(wait, left))
		select {
		case <-ctx.Done():
			pause.Stop()
			return err
		case <-pause.C:
		}
		wait = min(2*wait, n.timeout)
	}
}

// joinRealm records the realm's node ID size if it has none, and checks
// that it is the one asked for. Its answer also gives the cluster's
// identity, which every later answer must match.
func (n *Node) joinRealm(ctx context.Context) error {
	current, h, err := n.store.PutIfAbsent(ctx, n.realm.key, n.realm.value)
	if err != nil {
		return &StoreError{Op: "recording the realm's node ID size", Err: err}
	}
	n.clusterID, n.timeline = h.ClusterID, h.Timeline
	n.revision.Store(h.Revision)
	if current != n.realm.value {
		return n.realmError(current)
	}
	return nil
}

// realmError returns the error for a realm key that holds found instead
// of this node's size: a *RealmError for another node ID size, the
// caller's to resolve with another prefix, and a *DataError for a value
// that is no node ID size, which this package never writes.
func (n *Node) realmError(found string) error {
	for size := range 23 {
		if found == strconv.Itoa(size+1) {
			return &RealmError{Key: n.realm.key, Found: found, Want: n.size}
		}
	}
	reason := "not a node ID size (1 to 23, in decimal)"
	if found == "" {
		reason = "not a node ID size (the key is empty, or absent after the node found it)"
	}
	return &DataError{Key: n.realm.key, Value: found, Reason: reason, Store: n.storeName}
}

// grant obtains the node's lease and its first deadline. A TTL that etcd
// could not have granted (below one second, or past its largest, which
// would also overflow the deadline's arithmetic) is refused and the lease
// revoked, and so is lease ID 0, which is no lease to etcd: a holder key
// put with it would hold its node ID for good. Only a broken proxy or a
// man in the middle answers either.
func (n *Node) grant(ctx context.Context, ttl time.Duration) error {
	sent := clock.Mono() // before the request: the lease outlives sent + TTL
	lease, granted, err := n.store.Grant(ctx, int64(ttl/time.Second))
	if err != nil {
		return &StoreError{Op: "granting a lease", Err: err}
	}
	if lease == 0 {
		return &DataError{Reason: n.storeWord() + " granted lease 0, which is no lease (a key put with it is attached to none)"}
	}
	n.lease = lease
	if granted < 1 || granted > maxTTLSeconds {
		cleanup, cancel := detached(ctx)
		defer cancel()
		n.revoke(cleanup)
		return &DataError{Reason: n.storeWord() + " granted lease " + strconv.FormatInt(lease, 16) + " a TTL of " +
			strconv.FormatInt(granted, 10) + " s, outside the TTLs a lease may have (1 to 9000000000 s)", Store: n.storeName}
	}
	n.ttl = time.Duration(granted) * time.Second
	n.timeout = requestTimeout(n.ttl)
	n.limits.Store(&limits{deadline: sent + int64(n.ttl-Margin(n.ttl)), changed: make(chan struct{})})
	return nil
}

// take takes the lowest free node ID in the config's range, trying the
// free ones of each listing in turn, and returns the record its acquire
// transaction read. A node ID taken by someone else between the listing
// and the transaction is skipped.
func (n *Node) take(ctx context.Context, cfg Config) (Record, error) {
	lo, hi := cfg.nodeIDRange()
	for {
		var free []uint32
		err := n.try(ctx, func(ctx context.Context) (err error) {
			free, err = n.freeNodeIDs(ctx, cfg.Prefix, lo, hi)
			return err
		})
		if err != nil {
			return Record{}, err
		}
		if len(free) == 0 {
			return Record{}, fmt.Errorf("%w: all of %s under %s are held", ErrNoFreeNodeID, rangeString(lo, hi), quote(cfg.Prefix))
		}
		for _, id := range free {
			var taken bool
			var found Record
			err := n.try(ctx, func(ctx context.Context) (err error) {
				taken, found, err = n.tryTake(ctx, cfg.Prefix, id)
				return err
			})
			if err != nil || taken {
				return found, err
			}
		}
	}
}

// tryTake runs the acquire transaction for one node ID, after renewing the
// lease if a long race has used up half of it (or taking a new one if it
// expired), so that the holder key is never attached to a lease about to
// expire.
//
// An acquire transaction without an answer may have applied. The next try
// (try sends it again at once, to the next member) then finds the holder
// key on this very lease, and takes the node ID as its own: what the
// failure branch read is what the take would have read, since nobody else
// can write the record while the holder key is on this lease.
func (n *Node) tryTake(ctx context.Context, prefix string, id uint32) (taken bool, found Record, err error) {
	if clock.Mono() >= n.limits.Load().deadline-int64(n.ttl/2) {
		left, err := n.renew(ctx)
		if err == nil && left <= 0 {
			err = n.grant(ctx, n.ttl) // no holder key went with the old one
		}
		if err != nil {
			return false, Record{}, err
		}
	}
	floor := n.revision.Load()
	res, err := n.store.Acquire(ctx, AcquireRequest{
		RealmKey: n.realm.key, RealmValue: n.realm.value,
		HolderKey: holderKey(prefix, id), HolderValue: strconv.FormatInt(n.lease, 16),
		Lease: n.lease, RecordKey: recordKey(prefix, id),
	})
	if err != nil {
		return false, Record{}, &StoreError{Op: "taking node ID " + strconv.FormatUint(uint64(id), 10), Err: err}
	}
	n.nodeID = id // for the errors below; final only if taken
	if err := n.observe(res.Header, floor); err != nil {
		return false, Record{}, err
	}
	if !res.Acquired {
		if res.RealmValue != n.realm.value {
			return false, Record{}, n.realmError(res.RealmValue)
		}
		if res.HolderLease != n.lease {
			return false, Record{}, nil // lost the race for this one
		}
	}
	n.holderKey, n.recordKey = holderKey(prefix, id), recordKey(prefix, id)
	n.realm.createRevision = res.RealmCreateRevision
	return true, res.Record, nil
}

// start sets up the generator after the record the acquire transaction
// read, renews the lease once (a long race may have used up much of the
// first TTL) and writes the first bound, both before the first ID.
func (n *Node) start(ctx context.Context, cfg Config, found Record) error {
	n.fence = fence{revision: found.ModRevision, value: found.Value}
	spec, err := n.specAfter(found)
	if err != nil {
		return err
	}
	n.gen = scru64.NewGeneratorWithCounterMode(spec, cfg.CounterMode)
	var left int64
	err = n.try(ctx, func(ctx context.Context) (err error) {
		left, err = n.renew(ctx)
		return err
	})
	if err != nil {
		return err
	}
	if left <= 0 {
		return n.lostError("the lease expired before the first ID (a long race for a node ID?)", false)
	}
	mono := clock.Mono()
	n.pace = pace{tick: n.clock.MillisAt(mono) >> 8, mono: mono}
	return n.try(ctx, func(ctx context.Context) error { return n.raiseBound(ctx, true) })
}

// renew renews the lease while no ID has been minted under it, so the
// deadline may be set outright, and returns the TTL left: 0 if the lease
// has expired, taking any holder key with it.
func (n *Node) renew(ctx context.Context) (left int64, err error) {
	sent := clock.Mono()
	left, h, err := n.store.KeepAliveOnce(ctx, n.lease)
	if err == nil {
		err = n.staleGone(left, h)
	}
	if err != nil {
		return 0, &StoreError{Op: "renewing lease " + strconv.FormatInt(n.lease, 16), Err: err}
	}
	if err := n.observeCluster(h); err != nil {
		return 0, err
	}
	if left > 0 {
		d, err := n.renewedTTL(left)
		if err != nil {
			return 0, err
		}
		n.limits.Store(&limits{deadline: sent + int64(d-Margin(d)), changed: make(chan struct{})})
	}
	return left, nil
}

// specAfter returns the node spec that continues after the record read by
// the acquire transaction, or a fresh one if there is none.
func (n *Node) specAfter(found Record) (scru64.NodeSpec, error) {
	if !found.Exists() {
		return scru64.NewNodeSpecWithNodeID(n.nodeID, n.size)
	}
	prev, err := scru64.Parse(found.Value)
	if err != nil || prev.NodeCtr()>>(24-n.size) != n.nodeID {
		return scru64.NodeSpec{}, &RecordError{Key: n.recordKey, Value: found.Value, NodeID: n.nodeID, Size: n.size, Err: err, Store: n.storeName}
	}
	return scru64.NewNodeSpecWithNodePrev(prev, n.size)
}

// restoreRecord leaves the record of a failed Acquire as the acquire
// transaction found it, if this Acquire may have written it: fenced, so
// only while it holds the node ID and the record is still its own write.
// (A record that was absent is deleted again; a copy of the first write
// that the network delivers between that delete and the revocation of the
// lease would find the fence open again and leave the record a lead ahead:
// safe, and a window of one request.)
func (n *Node) restoreRecord(ctx context.Context, found Record) error {
	if n.gen == nil || (n.fence.revision == found.ModRevision && !n.fence.pending.any()) {
		return nil // never written
	}
	return n.try(ctx, func(ctx context.Context) error { return n.writeRecord(ctx, found.Value, !found.Exists(), false) })
}

// detached returns a context for cleaning up after a failed Acquire: not
// cancelled with ctx, so that a cancelled Acquire still cleans up, and
// bounded by cleanupTimeout in all.
func detached(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
}

// revoke revokes the lease of a failed [Acquire]; if that fails, the lease
// expires after its TTL.
func (n *Node) revoke(ctx context.Context) {
	if n.lease != 0 {
		_ = n.try(ctx, n.revokeOnce)
	}
}

// revokeOnce sends one revocation of the node's lease.
func (n *Node) revokeOnce(ctx context.Context) error {
	if err := n.store.Revoke(ctx, n.lease); err != nil {
		return &StoreError{Op: "revoking lease " + strconv.FormatInt(n.lease, 16), Err: err}
	}
	return nil
}

// freeNodeIDs lists the holder keys in lo..hi and returns up to listBatch
// node IDs that none holds, lowest first. It pages through the held keys
// only until it has found that many.
//
// The listing is data from the server, checked before it is used: a key
// outside the range asked for, not after the key before it, or not of
// the form holderKey writes, and more keys than the limit, are
// *DataErrors. So every page starts past the last and every node ID
// returned is in lo..hi, whatever the server answers.
func (n *Node) freeNodeIDs(ctx context.Context, prefix string, lo, hi uint32) ([]uint32, error) {
	var free []uint32
	next := uint64(lo) // the lowest node ID not yet known to be held or free
	first, end := holderKey(prefix, lo), holderKey(prefix, hi)+"\x00"
	from := first // every key still to come is at least from
	for len(free) < listBatch && next <= uint64(hi) {
		keys, err := n.store.Keys(ctx, from, end, keysPage)
		if err != nil {
			return nil, &StoreError{Op: "listing held node IDs", Err: err}
		}
		if len(keys) > keysPage {
			return nil, &DataError{Reason: "a listing of held node IDs of at most " + strconv.Itoa(keysPage) +
				" keys was answered with " + strconv.Itoa(len(keys)) + " keys", Store: n.storeName}
		}
		for _, key := range keys {
			var reason string
			held, ok := parseHolderKey(prefix, key)
			switch {
			case key < first || key >= end:
				reason = "listed, but outside the range asked for, " + quote(first) + " up to " + quote(end)
			case key < from:
				reason = "listed out of order or twice"
			case !ok:
				reason = "listed among the holder keys, but not of their form (the prefix, \"node/\" and 7 digits)"
			}
			if reason != "" {
				return nil, &DataError{Key: key, KeyOnly: true, Reason: reason, Store: n.storeName}
			}
			for ; next < held && len(free) < listBatch; next++ {
				free = append(free, uint32(next))
			}
			next, from = held+1, key+"\x00"
		}
		if len(keys) < keysPage {
			break // no more held keys in the range
		}
	}
	for ; next <= uint64(hi) && len(free) < listBatch; next++ {
		free = append(free, uint32(next))
	}
	return free, nil
}

// parseHolderKey returns the node ID of a holder key under prefix, and
// whether key is one: the prefix, "node/" and nodeIDDigits digits.
func parseHolderKey(prefix, key string) (uint64, bool) {
	digits, ok := strings.CutPrefix(key, prefix+"node/")
	if !ok || len(digits) != nodeIDDigits {
		return 0, false
	}
	var id uint64
	for i := range len(digits) {
		c := digits[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		id = id*10 + uint64(c-'0')
	}
	return id, true
}
