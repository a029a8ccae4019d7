// Package nodelease leases SCRU64 node IDs from etcd: the protocol, the
// keep-alive loop, the fail-closed deadline and the continuity record,
// written once against a small [Store] interface. Package etcdnode (its own
// module, over clientv3) and the command-line tool (over etcd's JSON
// gateway, internal/etcdhttp) are thin layers over it.
//
// # Keys
//
// Under a prefix P (default "/scru64/"), with node IDs written as seven
// zero-padded decimal digits so that byte order is numeric order:
//
//	P + "size"             the realm's node ID size, decimal, no lease
//	P + "node/0000042"     holder key of node ID 42, attached to the holder's lease
//	P + "last/0000042"     continuity record of node ID 42: a 12-digit SCRU64 ID, no lease
//
// # Mixed node ID sizes
//
// SCRU64 allows node ID sizes to differ if the leading bits of a longer node
// ID never equal a shorter one. This package does not try to allocate such
// prefix-free codes; it records the realm's size in P+"size" when the first
// node arrives and rejects a node asking for another size with a
// [*RealmError]. The acquire transaction compares the size key's value, so a
// realm cannot change size between a node's check and its take. Hot and
// cold nodes with different sizes need different prefixes and disjoint node
// ID ranges (Config.HasRange): for example size 4 with range 0..7 under one
// prefix, size 8 with range 128..255 under another.
//
// # Acquiring
//
// [Acquire] grants a lease, lists the holder keys, and tries the lowest free
// node ID with one transaction (Store.Acquire): create the holder key if it
// does not exist, attached to the lease, and read the continuity record in
// the same revision. Two nodes racing for the same node ID cannot both see
// create_revision = 0 in a serializable transaction, so exactly one wins;
// the other tries the next free node ID it listed, and lists again when it
// runs out. A node ID is free again when its holder's lease ends (revoked by
// Close, or expired after a crash), which deletes the holder key. Before
// the first ID, Acquire renews the lease (taking a new one and listing
// again if a long race let it expire) and writes the first bound.
//
// # Continuity: the high-water mark
//
// The record lets the next holder of a node ID start after every ID any
// earlier holder issued (scru64.NewNodeSpecWithNodePrev), after a crash as
// well as after Close, and even if its clock is behind. The scheme:
//
//  1. A node mints an ID only if its timestamp is at most bound, a tick it
//     has already written to the record as the ID (bound, node ID, counter
//     all ones): the largest ID the node could mint in that tick. The check
//     is part of every Generate.
//  2. Every write of the record is PutIfHolder, guarded by "the holder key
//     is attached to my lease", and each writes a value above the bound
//     the node mints under (Close aside, below); bound only grows, and
//     only from writes that were answered. So the record is never below
//     an ID the node issued. Once the node ID has passed to another lease,
//     no write of the old holder can succeed.
//  3. The next holder reads the record in its acquire transaction, after
//     the old holder's key is gone and so after its last successful write,
//     and starts its generator after the record.
//
// Hence, after a crash, every ID the old holder issued is at most (bound,
// node ID, all ones) <= the record < every ID of the next holder. A write
// whose response was lost leaves a record higher than the node believes,
// which is still safe. Close first stops minting, then lowers the record to
// the exact last ID (the generator's NodeSpec), so that after a clean Close
// the next holder starts right after it; why no ID can slip past that read
// is explained at [Node.Close].
//
// A background loop keeps bound at least boundLead/2 ahead of both the
// clock and the generator's last ID, writing bound = that + boundLead, that
// is about every 2.5 seconds. If IDs run past bound anyway (the clock
// stepped forward, or a burst overflowed the counter for seconds), Generate
// waits for the next write rather than mint an ID the record does not cover.
//
// # When the record is ahead of the next holder's clock
//
// The next holder's generator continues after the record. A record ahead of
// its clock by up to scru64.DefaultRollbackAllowance (10 s) is a small
// rollback: minting goes on at once, in the record's tick, without waiting.
// After a clean Close the record is the last ID, so the next holder does not
// wait unless its clock is 10 s behind the old holder's; after a crash the
// record is at most boundLead + one tick (about 5.4 s) ahead of the old
// holder's clock, so the next holder does not wait unless its clock is more
// than about 4.6 s behind. Both margins shrink by however far counter
// overflows had run the old holder's IDs ahead of its clock (up to the
// allowance, under a sustained burst). Beyond that, Generate returns
// scru64.ErrClockRollback and GenerateOrSleep waits for the clock, as a
// plain scru64.Generator does: the stream never goes back.
//
// # Failing closed
//
// A node stops minting before its lease can expire on the server. etcd
// renews a lease to TTL from the moment it handles the keep-alive request,
// which is after the node sent it, so if the node read its monotonic clock
// at S just before sending a keep-alive that the server answered with TTL,
// the lease lives at least until S + TTL of the server's time. The node
// mints only while its monotonic clock reads below
//
//	deadline = S + TTL - margin,  margin = TTL/10 + 250 ms
//
// TTL/10 covers a client clock running up to 10% slower than the server's
// (NTP keeps clocks within 0.05%), and 250 ms covers scheduling: the time
// between the clock read that a mint checks and the moment the ID is
// returned. Keep-alives go out every TTL/4, so at least two in a row may
// fail before the deadline. When the deadline passes, a keep-alive finds the lease gone, or
// a guarded write fails, the node is lost for good: every generate call
// returns [ErrLeaseLost] and Done is closed.
//
// The check on the hot path is one atomic load of an immutable limits value
// (deadline and bound) after the mint, compared with the monotonic reading
// taken together with the timestamp (clock.MillisMono): no second clock
// read, no call into etcd, and no timer that must fire on time.
//
// Uniqueness does not depend on the deadline: by the high-water argument an
// old holder that ignored its deadline would still mint only IDs below its
// successor's. The deadline adds that two processes do not mint under one
// node ID at the same time.
package nodelease

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fastid/scru128/internal/clock"
	"github.com/fastid/scru128/scru64"
)

const (
	// boundLead is how far ahead of the clock (or of the last ID, if that
	// is ahead) the node keeps its persisted bound: 20 ticks, 5.12 s.
	boundLeadTicks = 20
	// boundCheckInterval is how often the bound loop looks whether bound
	// needs raising; it writes only when less than half the lead is left.
	boundCheckInterval = 256 * time.Millisecond
	// listBatch is how many free node IDs one listing collects: the
	// candidates tried, lowest first, before listing again.
	listBatch = 16
	// keysPage is how many holder keys one Keys call asks for, so that a
	// realm of a thousand nodes is listed with one request.
	keysPage = 1024
	// nodeIDDigits is the width of a node ID in keys: 2^23-1 = 8388607.
	nodeIDDigits = 7
)

// Margin returns the safety margin subtracted from a lease's TTL to give
// the minting deadline: TTL/10 + 250 ms (see the package doc).
func Margin(ttl time.Duration) time.Duration { return ttl/10 + 250*time.Millisecond }

// limits is what Generate checks after each mint. A value is never changed
// once published: a new one replaces it, and closing changed tells waiters.
type limits struct {
	deadline int64  // monotonic ns (clock.Mono): mint only while the clock reads below
	bound    uint64 // the largest timestamp persisted in the record
	err      error  // nil while minting; ErrLeaseLost or ErrClosed (wrapped) when done
	changed  chan struct{}
}

// Node mints SCRU64 IDs under a leased node ID. Its methods are safe for
// concurrent use.
type Node struct {
	gen       *scru64.Generator
	clock     *clock.Clock
	limits    atomic.Pointer[limits]
	store     Store
	lease     int64
	ttl       time.Duration // as last granted
	nodeID    uint32
	size      uint8
	holderKey string
	recordKey string

	ctx     context.Context // cancelled by Close: ends the loops' requests
	cancel  context.CancelFunc
	loops   sync.WaitGroup
	raise   chan struct{} // asks the bound loop to raise bound now
	done    chan struct{}
	closing atomic.Bool // set by the first Close
}

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
// It returns an [*OptionError] for a bad cfg, a [*RealmError] if the realm uses
// another node ID size, [ErrNoFreeNodeID] if every node ID is held, and store
// errors wrapped with %w; on error it revokes the lease it granted.
// option names the option that sets a [Config] field, for error messages.
func Acquire(ctx context.Context, store Store, cfg Config, option func(field string) string) (*Node, error) {
	if store == nil {
		return nil, &OptionError{Option: option("Store"), Reason: "no etcd client (nil)"}
	}
	if ctx == nil {
		ctx = context.Background()
	}
	if err := cfg.Check(option); err != nil {
		return nil, err
	}
	realmKey, realmValue := cfg.Prefix+"size", strconv.Itoa(int(cfg.NodeIDSize))
	current, err := store.PutIfAbsent(ctx, realmKey, realmValue)
	if err != nil {
		return nil, fmt.Errorf("etcdnode: recording the realm's node ID size: %w", err)
	}
	if current != realmValue {
		return nil, &RealmError{Key: realmKey, Found: current, Want: cfg.NodeIDSize}
	}

	lo, hi := uint32(0), uint32(1)<<cfg.NodeIDSize-1
	if cfg.HasRange {
		lo, hi = cfg.MinNodeID, cfg.MaxNodeID
	}
	n := &Node{
		store: store,
		size:  cfg.NodeIDSize,
		raise: make(chan struct{}, 1),
		done:  make(chan struct{}),
	}
	if cfg.Wall == nil {
		n.clock = clock.New()
	} else {
		n.clock = clock.NewWithWall(cfg.Wall, clock.DefaultInterval)
	}
	if err := n.grant(ctx, cfg.TTL); err != nil {
		return nil, err
	}
	if err := n.acquire(ctx, cfg, realmKey, realmValue, lo, hi); err != nil {
		n.revokeDetached()
		return nil, err
	}
	n.ctx, n.cancel = context.WithCancel(context.Background())
	n.loops.Add(2)
	go n.leaseLoop()
	go n.boundLoop()
	return n, nil
}

// grant obtains the node's lease and its first deadline.
func (n *Node) grant(ctx context.Context, ttl time.Duration) error {
	sent := clock.Mono() // before the request: the lease outlives sent + TTL
	lease, granted, err := n.store.Grant(ctx, int64(ttl/time.Second))
	if err != nil {
		return fmt.Errorf("etcdnode: granting a lease: %w", err)
	}
	n.lease = lease
	if granted < 1 {
		n.revokeDetached()
		return fmt.Errorf("etcdnode: etcd granted lease %x a TTL of %d seconds", lease, granted)
	}
	n.ttl = time.Duration(granted) * time.Second
	n.limits.Store(&limits{deadline: sent + int64(n.ttl-Margin(n.ttl)), changed: make(chan struct{})})
	return nil
}

// acquire takes a node ID, sets up the generator and persists the first
// bound. If the lease expires before a node ID is taken (a long race on a
// loaded machine), it takes a new lease and goes on.
func (n *Node) acquire(ctx context.Context, cfg Config, realmKey, realmValue string, lo, hi uint32) error {
	for {
		free, err := n.freeNodeIDs(ctx, cfg.Prefix, lo, hi)
		if err != nil {
			return fmt.Errorf("etcdnode: listing held node IDs: %w", err)
		}
		if len(free) == 0 {
			return fmt.Errorf("%w: all of %s under %q are held", ErrNoFreeNodeID, rangeString(lo, hi), cfg.Prefix)
		}
	candidates:
		for _, id := range free {
			// A long race for a node ID must not outlast the lease.
			if clock.Mono() >= n.limits.Load().deadline-int64(n.ttl/2) {
				regranted, err := n.renewBeforeMinting(ctx, cfg.TTL)
				if err != nil {
					return err
				}
				if regranted {
					break candidates
				}
			}
			res, err := n.store.Acquire(ctx, AcquireRequest{
				RealmKey: realmKey, RealmValue: realmValue,
				HolderKey: holderKey(cfg.Prefix, id), HolderValue: strconv.FormatInt(n.lease, 16),
				Lease: n.lease, RecordKey: recordKey(cfg.Prefix, id),
			})
			if err != nil {
				if regranted, rerr := n.renewBeforeMinting(ctx, cfg.TTL); rerr == nil && regranted {
					break candidates
				}
				return fmt.Errorf("etcdnode: taking node ID %d: %w", id, err)
			}
			if !res.Acquired {
				if res.RealmValue != realmValue {
					return &RealmError{Key: realmKey, Found: res.RealmValue, Want: cfg.NodeIDSize}
				}
				continue // lost the race for this one: try the next
			}
			n.nodeID, n.holderKey, n.recordKey = id, holderKey(cfg.Prefix, id), recordKey(cfg.Prefix, id)
			spec, err := n.specAfter(res)
			if err != nil {
				return err
			}
			n.gen = scru64.NewGeneratorWithCounterMode(spec, cfg.CounterMode)
			// Renew once (a long race may have used up much of the first
			// TTL) and persist the first bound, both before the first ID.
			regranted, err := n.renewBeforeMinting(ctx, cfg.TTL)
			if err != nil {
				return err
			}
			if regranted {
				break candidates // the node ID went with the old lease
			}
			if err := n.raiseBound(ctx, true); err != nil {
				return err
			}
			return n.limits.Load().err
		}
	}
}

// renewBeforeMinting renews the lease while no ID has been minted under
// it, so the deadline may be set outright; if the lease has expired it
// takes a new one (any holder key went with the old) and reports that.
func (n *Node) renewBeforeMinting(ctx context.Context, ttl time.Duration) (regranted bool, err error) {
	sent := clock.Mono()
	left, err := n.store.KeepAliveOnce(ctx, n.lease)
	if err != nil {
		return false, fmt.Errorf("etcdnode: renewing lease %x: %w", n.lease, err)
	}
	if left <= 0 {
		return true, n.grant(ctx, ttl)
	}
	d := time.Duration(left) * time.Second
	n.limits.Store(&limits{deadline: sent + int64(d-Margin(d)), changed: make(chan struct{})})
	return false, nil
}

// specAfter returns the node spec that continues after the record read by
// the acquire transaction, or a fresh one if there is none.
func (n *Node) specAfter(res AcquireResult) (scru64.NodeSpec, error) {
	if !res.HasRecord {
		return scru64.NewNodeSpecWithNodeID(n.nodeID, n.size)
	}
	prev, err := scru64.Parse(res.Record)
	if err == nil && prev.NodeCtr()>>(24-n.size) != n.nodeID {
		err = errors.New("it belongs to node ID " + strconv.Itoa(int(prev.NodeCtr()>>(24-n.size))))
	}
	if err != nil {
		return scru64.NodeSpec{}, fmt.Errorf("%w: the continuity record %q = %q is not an ID of node ID %d/%d: %v",
			ErrRealmMismatch, n.recordKey, res.Record, n.nodeID, n.size, err)
	}
	return scru64.NewNodeSpecWithNodePrev(prev, n.size)
}

// freeNodeIDs lists the holder keys in lo..hi and returns up to listBatch
// node IDs that none holds, lowest first. It pages through the held keys
// only until it has found that many.
func (n *Node) freeNodeIDs(ctx context.Context, prefix string, lo, hi uint32) ([]uint32, error) {
	var free []uint32
	next := uint64(lo) // the lowest node ID not yet known to be held or free
	from, end := holderKey(prefix, lo), holderKey(prefix, hi)+"\x00"
	keyLen := len(from)
	for len(free) < listBatch && next <= uint64(hi) {
		keys, err := n.store.Keys(ctx, from, end, keysPage)
		if err != nil {
			return nil, err
		}
		for _, key := range keys {
			held, err := strconv.ParseUint(key[len(prefix)+len("node/"):], 10, 32)
			if err != nil || held < next || len(key) != keyLen {
				continue // not a key of this package's form
			}
			for ; next < held && len(free) < listBatch; next++ {
				free = append(free, uint32(next))
			}
			next = held + 1
		}
		if len(keys) < keysPage {
			break // no more held keys in the range
		}
		from = keys[len(keys)-1] + "\x00"
	}
	for ; next <= uint64(hi) && len(free) < listBatch; next++ {
		free = append(free, uint32(next))
	}
	return free, nil
}

// errNilNode is what the generating methods of a nil [*Node] return.
var errNilNode = fmt.Errorf("%w: the Node was not returned by etcdnode.Acquire", ErrClosed)

// Generate returns a new ID under the node's node ID, stamped with the
// node's clock. The error is [ErrLeaseLost] or [ErrClosed] (wrapped) once the
// node is done, scru64.ErrClockRollback if the clock is more than
// scru64.DefaultRollbackAllowance behind the last ID, or
// scru64.ErrInvalidTimestamp for a clock outside SCRU64's range. It does not
// allocate and does not call etcd, except that it waits for the bound loop's
// next write when IDs have run past the persisted bound (see the package
// doc), which a steady clock and load never cause.
func (n *Node) Generate() (scru64.ID, error) {
	if n == nil {
		return 0, errNilNode
	}
	// One clock read gives the timestamp and the monotonic reading the
	// deadline is checked against, in two halves that inline.
	mono := clock.Mono()
	millis, ok := n.clock.TryMillisAt(mono)
	if !ok {
		millis = n.clock.MillisAt(mono)
	}
	id, err := n.gen.GenerateOrAbortCore(millis, scru64.DefaultRollbackAllowance)
	// The load comes after the mint's compare-and-swap; Close relies on
	// that order (see Close).
	lim := n.limits.Load()
	if err == nil && mono < lim.deadline && id.Timestamp() <= lim.bound {
		return id, nil
	}
	return n.generateSlow(id, err, mono, lim)
}

// generateSlow decides what Generate returns when a check failed, and
// waits for a higher bound when that is what is missing.
func (n *Node) generateSlow(id scru64.ID, err error, mono int64, lim *limits) (scru64.ID, error) {
	for {
		switch {
		case lim.err != nil:
			return 0, lim.err
		case mono >= lim.deadline:
			n.expire(lim)
			lim = n.limits.Load() // lost, or a newer deadline to check against
			continue
		case err != nil:
			return 0, err
		case id.Timestamp() <= lim.bound:
			return id, nil
		}
		// The ID is past the persisted bound: drop it (it is never
		// returned, so the record need not cover it) and mint again once
		// the bound loop has raised bound, or the deadline ends the wait.
		select {
		case n.raise <- struct{}{}:
		default:
		}
		wait := time.NewTimer(time.Duration(lim.deadline - clock.Mono()))
		select {
		case <-lim.changed:
		case <-wait.C:
		}
		wait.Stop()
		var millis uint64
		millis, mono = n.clock.MillisMono()
		id, err = n.gen.GenerateOrAbortCore(millis, scru64.DefaultRollbackAllowance)
		lim = n.limits.Load()
	}
}

// GenerateOrSleep is Generate that, instead of returning
// scru64.ErrClockRollback, sleeps until the clock is back within
// scru64.DefaultRollbackAllowance of the last ID, checking at least every
// 64 ms. It returns an error only when the node is done ([ErrLeaseLost],
// [ErrClosed]) or the clock is outside SCRU64's range.
func (n *Node) GenerateOrSleep() (scru64.ID, error) {
	if n == nil {
		return 0, errNilNode
	}
	for {
		id, err := n.Generate()
		if err != scru64.ErrClockRollback {
			return id, err
		}
		// As scru64.Generator.GenerateOrSleep: the clock is within the
		// allowance from the first millisecond of the tick that many
		// ticks before the last ID's.
		last := n.gen.NodeSpec().NodePrev().Timestamp()
		catchUp := int64(last-scru64.DefaultRollbackAllowance>>8) << 8
		wait := time.Duration(catchUp-int64(n.clock.Millis())) * time.Millisecond
		sleep := time.NewTimer(min(max(wait, time.Millisecond), 64*time.Millisecond))
		select {
		case <-sleep.C:
		case <-n.done:
			sleep.Stop()
		}
	}
}

// NodeID returns the leased node ID.
func (n *Node) NodeID() uint32 { return n.nodeID }

// NodeIDSize returns the node ID size.
func (n *Node) NodeIDSize() uint8 { return n.size }

// Lease returns the etcd lease ID the node holds its node ID with.
func (n *Node) Lease() int64 { return n.lease }

// NodeSpec returns the node spec that continues after the last ID minted
// (see scru64.Generator.NodeSpec).
func (n *Node) NodeSpec() scru64.NodeSpec { return n.gen.NodeSpec() }

// Done returns a channel closed when the node stops minting: its lease was
// lost or it was closed. Err says which.
func (n *Node) Done() <-chan struct{} { return n.done }

// Err returns nil while the node mints, then an error matching [ErrLeaseLost]
// or [ErrClosed] that says why it stopped.
func (n *Node) Err() error { return n.limits.Load().err }

// publish replaces old with next if old is still current, and wakes the
// waiters on old. It reports whether it did.
func (n *Node) publish(old, next *limits) bool {
	if !n.limits.CompareAndSwap(old, next) {
		return false
	}
	close(old.changed)
	if next.err != nil && old.err == nil {
		close(n.done) // once: only Close replaces a final limits
	}
	return true
}

// update applies f to the current limits until it publishes, unless the
// node is done or f returns nil.
func (n *Node) update(f func(cur limits) *limits) {
	for {
		cur := n.limits.Load()
		if cur.err != nil {
			return
		}
		next := f(*cur)
		if next == nil || n.publish(cur, next) {
			return
		}
	}
}

// finish ends minting for good with err, unless the node is done already
// (only Close overrides a final limits, with [ErrClosed]).
func (n *Node) finish(err error) {
	n.update(func(limits) *limits {
		return &limits{deadline: math.MinInt64, err: err, changed: make(chan struct{})}
	})
}

// expire ends the node if lim, whose deadline has passed, is still
// current; a newer limits has a later deadline and is checked instead.
func (n *Node) expire(lim *limits) {
	n.publish(lim, &limits{
		deadline: math.MinInt64,
		err:      fmt.Errorf("%w: no keep-alive was answered within the TTL (%v) minus the safety margin", ErrLeaseLost, n.ttl),
		changed:  make(chan struct{}),
	})
}

// keepAlive renews the lease once and moves the deadline. A lease the
// server no longer has ends the node, and so does a deadline that passed
// before the renewal was answered.
func (n *Node) keepAlive(ctx context.Context) error {
	lim := n.limits.Load()
	if lim.err != nil {
		return lim.err
	}
	ctx, cancel := context.WithTimeout(ctx, time.Duration(lim.deadline-clock.Mono()))
	defer cancel()
	sent := clock.Mono()
	ttl, err := n.store.KeepAliveOnce(ctx, n.lease)
	if err != nil {
		return fmt.Errorf("etcdnode: renewing lease %x: %w", n.lease, err)
	}
	if ttl <= 0 {
		n.finish(fmt.Errorf("%w: lease %x expired or was revoked", ErrLeaseLost, n.lease))
		return n.limits.Load().err
	}
	d := time.Duration(ttl) * time.Second
	deadline := sent + int64(d-Margin(d))
	n.update(func(cur limits) *limits {
		if clock.Mono() >= cur.deadline || deadline <= cur.deadline {
			return nil // too late to extend (Generate or the loop will expire it), or nothing gained
		}
		cur.deadline, cur.changed = deadline, make(chan struct{})
		return &cur
	})
	return nil
}

// leaseLoop renews the lease every TTL/4 and ends the node when the
// deadline passes without a renewal.
func (n *Node) leaseLoop() {
	defer n.loops.Done()
	interval := n.ttl / 4
	timer := time.NewTimer(interval)
	defer timer.Stop()
	for {
		lim := n.limits.Load()
		if lim.err != nil {
			return
		}
		left := time.Duration(lim.deadline - clock.Mono())
		if left <= 0 {
			n.expire(lim)
			continue
		}
		timer.Reset(min(interval, left))
		select {
		case <-n.ctx.Done():
			return
		case <-timer.C:
		}
		if clock.Mono() >= lim.deadline {
			continue // expire at the top, unless renewed meanwhile
		}
		_ = n.keepAlive(n.ctx) // a failed renewal is retried at the next interval
	}
}

// boundLoop keeps the persisted bound ahead of the clock and of the last
// ID, and raises it at once when Generate asks.
func (n *Node) boundLoop() {
	defer n.loops.Done()
	ticker := time.NewTicker(boundCheckInterval)
	defer ticker.Stop()
	for {
		select {
		case <-n.ctx.Done():
			return
		case <-ticker.C:
		case <-n.raise:
		}
		if n.raiseBound(n.ctx, false) != nil && n.limits.Load().err != nil {
			return
		}
	}
}

// raiseBound writes a new bound if less than half the lead is left (or
// always, if force), and publishes it once the write succeeded. A failed
// guard (the holder key is not this lease's any more) ends the node.
func (n *Node) raiseBound(ctx context.Context, force bool) error {
	lim := n.limits.Load()
	if lim.err != nil {
		return lim.err
	}
	base := max(n.clock.Millis()>>8, n.gen.NodeSpec().NodePrev().Timestamp())
	if !force && lim.bound >= base+boundLeadTicks/2 {
		return nil
	}
	bound := min(base+boundLeadTicks, scru64.MaxTimestamp-1)
	text, _ := highWater(bound, n.nodeID, n.size).AppendText(nil)
	ctx, cancel := context.WithTimeout(ctx, time.Duration(lim.deadline-clock.Mono()))
	defer cancel()
	ok, err := n.store.PutIfHolder(ctx, n.holderKey, n.lease, n.recordKey, string(text))
	if err != nil {
		return fmt.Errorf("etcdnode: writing the continuity record %q: %w", n.recordKey, err)
	}
	if !ok {
		n.finish(fmt.Errorf("%w: the holder key %q is no longer attached to lease %x", ErrLeaseLost, n.holderKey, n.lease))
		return n.limits.Load().err
	}
	n.update(func(cur limits) *limits {
		if bound <= cur.bound {
			return nil
		}
		cur.bound, cur.changed = bound, make(chan struct{})
		return &cur
	})
	return nil
}

// highWater returns the largest ID that node ID nodeID of size size can
// mint at timestamp bound: its counter bits all ones.
func highWater(bound uint64, nodeID uint32, size uint8) scru64.ID {
	counterBits := 24 - size
	counterMax := uint32(1)<<counterBits - 1
	id, _ := scru64.FromParts(bound, nodeID<<counterBits|counterMax)
	return id
}

// Close stops minting, stores the last ID in the continuity record and
// revokes the lease, freeing the node ID. Afterwards every generate call
// returns [ErrClosed] and Done is closed. It returns an error matching
// ErrClosed if the node was already closed, one matching [ErrLeaseLost] if
// the lease had been lost (the record then keeps the high-water mark, which
// is safe), and store errors wrapped with %w; the node is closed in every
// case, and a lease that could not be revoked expires after its TTL.
//
// Why the stored ID is at least every ID ever returned: Close publishes the
// closed limits and then reads the generator's last ID; Generate
// compare-and-swaps the generator's state and then loads the limits. Go's
// atomics are sequentially consistent, so for any mint either its
// compare-and-swap comes before Close's read, and the read sees that ID or
// a later one, or it comes after, and then its load of the limits comes
// after Close's store and sees the closed limits, and the ID is dropped. The
// stored ID may be one that was dropped, which is harmless.
func (n *Node) Close(ctx context.Context) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if n.closing.Swap(true) {
		return ErrClosed
	}
	var lost error
	if lim := n.limits.Load(); lim.err != nil {
		lost = lim.err
	}
	for cur := n.limits.Load(); !n.publish(cur, &limits{deadline: math.MinInt64, err: ErrClosed, changed: make(chan struct{})}); {
		cur = n.limits.Load()
	}
	last := n.gen.NodeSpec().NodePrev()
	n.cancel()
	n.loops.Wait()

	var errs []error
	if lost != nil {
		errs = append(errs, fmt.Errorf("etcdnode: the last ID was not stored: %w", lost))
	} else {
		var ok bool
		var err error
		if last != 0 {
			text, _ := last.AppendText(nil)
			ok, err = n.store.PutIfHolder(ctx, n.holderKey, n.lease, n.recordKey, string(text))
		} else {
			// Never minted and no earlier record: leave the node ID fresh.
			ok, err = n.store.DeleteIfHolder(ctx, n.holderKey, n.lease, n.recordKey)
		}
		switch {
		case err != nil:
			errs = append(errs, fmt.Errorf("etcdnode: storing the last ID in %q: %w", n.recordKey, err))
		case !ok:
			errs = append(errs, fmt.Errorf("%w: the last ID was not stored: the holder key %q is no longer attached to lease %x",
				ErrLeaseLost, n.holderKey, n.lease))
		}
	}
	if err := n.store.Revoke(ctx, n.lease); err != nil {
		errs = append(errs, fmt.Errorf("etcdnode: revoking lease %x: %w", n.lease, err))
	}
	return errors.Join(errs...)
}

// revokeDetached revokes the lease of a failed [Acquire], with a context of
// its own so that a cancelled Acquire still cleans up.
func (n *Node) revokeDetached() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = n.store.Revoke(ctx, n.lease)
}
