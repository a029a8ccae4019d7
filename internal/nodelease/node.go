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

// MaxSleep is the longest wait for the clock that [Node.GenerateOrSleep]
// sleeps through; a longer one it returns as a [*RollbackError] at once,
// which says how long, so that no caller waits hours in silence.
const MaxSleep = time.Minute

// Margin returns the safety margin subtracted from a lease's TTL to give
// the minting deadline: TTL/10 + 250 ms (see the package doc).
func Margin(ttl time.Duration) time.Duration { return ttl/10 + 250*time.Millisecond }

// renewRetry is the first wait before a failed renewal (one whose
// keep-alives all failed) is tried again; the wait doubles with each
// failure, up to the keep-alive interval.
const renewRetry = 50 * time.Millisecond

// limits is what Generate checks after each mint. A value is never changed
// once published: a new one replaces it, and closing changed tells waiters.
type limits struct {
	deadline int64  // monotonic ns (clock.Mono): mint only while the clock reads below
	bound    uint64 // the largest timestamp persisted in the record
	err      error  // nil while minting; a *LostError or ErrClosed when done, with the node's error prefix
	// stall is a *StallError, with the node's error prefix, while the
	// last round of writes of the record failed, nil once one applies:
	// what Generate returns past bound instead of waiting.
	stall   error
	changed chan struct{}
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
	timeout   time.Duration // the longest a request is first given: requestTimeout(ttl)
	nodeID    uint32
	size      uint8
	holderKey string
	recordKey string
	realm     realm

	clusterID uint64       // of Acquire's first answer; read-only afterwards
	timeline  uint64       // of Acquire's first answer; read-only afterwards
	revision  atomic.Int64 // the highest revision of a KV answer so far
	fence     fence        // see fence for who may use it when
	pace      pace         // the bound loop's, and Acquire's before it

	ctx     context.Context // cancelled by Close: ends the loops' requests
	cancel  context.CancelFunc
	loops   sync.WaitGroup
	raise   chan struct{} // asks the bound loop to raise bound now
	done    chan struct{}
	closing atomic.Bool // set by the first Close
	// renewFailure is the error of the last renewal if it failed, which
	// the error of a node that failed closed names.
	renewFailure atomic.Pointer[renewFailure]
	// writeFailure is the error of the bound loop's last write of the
	// record if it failed, nil once one applies: what Generate names when
	// it gives up waiting for a round of writes still under way (a
	// client that sends each request again until its time is up).
	writeFailure atomic.Pointer[renewFailure]
	// failingSince and failingSent count the bound loop's writes since the
	// last that applied: when the first of them was sent (Unix ns; 0 when
	// none is pending or failed) and how many were sent, the last perhaps
	// still unanswered. A stall reported by Generate before the loop
	// publishes one, and every stall the loop publishes, take both from
	// here, so that the reports of one stall agree on when it began and
	// count up.
	failingSince atomic.Int64
	failingSent  atomic.Int64

	errorPrefix string // Config.ErrorPrefix
	storeName   string // Config.StoreName
	clusterHint string // Config.ClusterChanged
	closed      error  // ErrClosed with the error prefix
}

// renewFailure is what Node.renewFailure and Node.writeFailure hold.
type renewFailure struct {
	err error
	// unanswered: a renewal sent after the one that failed with err was
	// still unanswered when the TTL ran out.
	unanswered bool
}

// renewFailed returns the failure to keep for a renewal that failed with
// err. A renewal still in flight when the lease's deadline passes fails
// with that deadline, which says nothing of why renewals were failing: if
// one failed before it, that failure is kept, and the lost lease's error
// names it (an answer with a TTL past the store's largest, say, rather than
// "context deadline exceeded").
func (n *Node) renewFailed(err error) *renewFailure {
	prev := n.renewFailure.Load()
	if prev == nil || !errors.Is(err, context.DeadlineExceeded) || n.ctx.Err() != nil ||
		clock.Mono() < n.limits.Load().deadline {
		return &renewFailure{err: err}
	}
	return &renewFailure{err: prev.err, unanswered: true}
}

// errNilNode is what the generating methods of a nil [*Node] return.
var errNilNode = fmt.Errorf("%w: the Node was not returned by Acquire", ErrClosed)

// maxRaiseWait is the longest Generate waits for a higher bound: the first
// two requests of a round of the bound loop's writes, given the request
// timeout and then twice that.
func maxRaiseWait(timeout time.Duration) time.Duration { return 3 * timeout }

// Generate returns a new ID under the node's node ID, stamped with the
// node's clock. The error is a [*LostError] or [ErrClosed] (wrapped) once
// the node is done, a [*StallError] while writes of the record fail and
// IDs have reached the bound last written, a [*RollbackError] (matching
// scru64.ErrClockRollback) if the clock is more than
// scru64.DefaultRollbackAllowance behind the last ID, or
// scru64.ErrInvalidTimestamp for a clock outside SCRU64's range. It does
// not allocate when it returns an ID and does not call etcd, except that
// it waits for the bound loop's next write when IDs have run past the
// persisted bound (see the package doc), which a steady clock and load
// never cause; it waits at most three request timeouts, and returns a
// *StallError if no write has raised the bound by then.
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
	var giveUp int64 // when a wait for a higher bound ends; 0 before the first
	for {
		switch {
		case lim.err != nil:
			return 0, lim.err
		case mono >= lim.deadline:
			n.expire(lim)
			lim = n.limits.Load() // lost, or a newer deadline to check against
			continue
		case err == scru64.ErrClockRollback:
			return 0, withPrefix(n.errorPrefix, n.rollbackError())
		case err != nil:
			return 0, err
		case id.Timestamp() <= lim.bound:
			return id, nil
		case lim.stall != nil:
			// Writes of the record fail: the ID is dropped (it is never
			// returned, so the record need not cover it), and the
			// caller hears why at once rather than waiting for a write
			// that the bound loop sends only after its backoff.
			return 0, lim.stall
		}
		// The ID is past the persisted bound: drop it and mint again once
		// the bound loop has raised bound to the generator's new last ID.
		// The wait ends with the deadline, and after a round's worth of
		// time (see boundLoop) without a raise or a failure to report (a
		// write that hangs, in a loop busy with an earlier round).
		now := clock.Mono()
		if giveUp == 0 {
			giveUp = now + int64(maxRaiseWait(n.timeout))
		}
		if now >= giveUp {
			var cause error = &StoreError{Op: "writing the continuity record " + quote(n.recordKey),
				Err: errors.New("no answer within " + maxRaiseWait(n.timeout).String())}
			if f := n.writeFailure.Load(); f != nil {
				cause = f.err // a write of this round failed: say how
			}
			since, attempts := n.failing()
			return 0, withPrefix(n.errorPrefix, &StallError{
				NodeID: n.nodeID, Bound: highWater(lim.bound, n.nodeID, n.size),
				Since: since, Attempts: max(attempts, 1), Err: cause,
			})
		}
		select {
		case n.raise <- struct{}{}:
		default:
		}
		wait := time.NewTimer(time.Duration(min(lim.deadline, giveUp) - now))
		select {
		case <-lim.changed:
		case <-wait.C:
		}
		wait.Stop()
		if lim = n.limits.Load(); lim.err != nil {
			return 0, lim.err // closed or lost while waiting: no need to mint
		}
		var millis uint64
		millis, mono = n.clock.MillisMono()
		id, err = n.gen.GenerateOrAbortCore(millis, scru64.DefaultRollbackAllowance)
		lim = n.limits.Load()
	}
}

// rollbackError describes how far the clock is behind the last ID, and
// how long until minting resumes.
func (n *Node) rollbackError() *RollbackError {
	last := n.gen.NodeSpec().NodePrev()
	now := n.clock.Millis()
	// As scru64.Generator.GenerateOrSleep: the clock is within the
	// allowance from the first millisecond of the tick that many ticks
	// before the last ID's.
	catchUp := (last.Timestamp() - scru64.DefaultRollbackAllowance>>8) << 8
	// In milliseconds first: a record centuries ahead overflows a Duration.
	ms := max(int64(catchUp)-int64(now), 0)
	wait := time.Duration(math.MaxInt64)
	if ms <= math.MaxInt64/int64(time.Millisecond) {
		wait = time.Duration(ms) * time.Millisecond
	}
	return &RollbackError{NodeID: n.nodeID, Last: last, Clock: time.UnixMilli(int64(now)), Wait: wait}
}

// ClockWait returns how long Generate would now keep returning a
// [*RollbackError] for want of a later clock: 0 if it can mint now (or the
// node is done), or how long until the clock is back within
// scru64.DefaultRollbackAllowance of the last ID. A caller about to mint
// can tell its user what it waits for.
func (n *Node) ClockWait() time.Duration {
	if n == nil || n.gen == nil || n.limits.Load().err != nil {
		return 0
	}
	last := n.gen.NodeSpec().NodePrev().Timestamp()
	if last <= n.clock.Millis()>>8+scru64.DefaultRollbackAllowance>>8 {
		return 0
	}
	return n.rollbackError().Wait
}

// GenerateOrSleep is Generate that, instead of returning a
// [*RollbackError], sleeps until the clock is back within
// scru64.DefaultRollbackAllowance of the last ID, checking at least every
// 64 ms, if that takes at most [MaxSleep]. A longer wait (a record left far
// ahead by a clock that ran fast) it returns at once as the
// *RollbackError, which says how long. Its other errors are those of
// Generate.
func (n *Node) GenerateOrSleep() (scru64.ID, error) {
	if n == nil {
		return 0, errNilNode
	}
	for {
		id, err := n.Generate()
		var behind *RollbackError
		if !errors.As(err, &behind) || behind.Wait > MaxSleep {
			return id, err
		}
		sleep := time.NewTimer(min(max(behind.Wait, time.Millisecond), 64*time.Millisecond))
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

// Err returns nil while the node mints, then a [*LostError] (matching
// [ErrLeaseLost]) or an error matching [ErrClosed] that says why it
// stopped.
func (n *Node) Err() error { return n.limits.Load().err }

// storeWord returns the store's name for the texts of errors.
func (n *Node) storeWord() string {
	if n.storeName == "" {
		return "etcd"
	}
	return n.storeName
}

// Stalled returns nil while the node's writes of its continuity record
// succeed, and a [*StallError] (matching [ErrStalled]) from the first
// failed round of writes until one applies: the node lives on, mints up
// to the bound it last wrote (about 5 s past the last successful write),
// and then Generate returns the same error, without waiting, until a
// write applies. The error says since when, how often, and why the last
// write failed (etcd's answer, for example its NOSPACE alarm). It is
// nil once the node is done: Err says why.
func (n *Node) Stalled() error {
	if lim := n.limits.Load(); lim.err == nil {
		return lim.stall
	}
	return nil
}

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
	err = withPrefix(n.errorPrefix, err)
	n.update(func(limits) *limits {
		return &limits{deadline: math.MinInt64, err: err, changed: make(chan struct{})}
	})
}

// lostError returns the error of a node that stopped for reason.
func (n *Node) lostError(reason string, dataLoss bool) *LostError {
	return &LostError{NodeID: n.nodeID, Lease: n.lease, Reason: reason, DataLoss: dataLoss, Store: n.storeName}
}

// lost ends minting for reason and returns the error that says so.
func (n *Node) lost(reason string, dataLoss bool) error {
	err := n.lostError(reason, dataLoss)
	n.finish(err)
	return err
}

// expire ends the node if lim, whose deadline has passed, is still
// current; a newer limits has a later deadline and is checked instead.
func (n *Node) expire(lim *limits) {
	reason := "no keep-alive was answered within the TTL (" + n.ttl.String() + ") minus the safety margin"
	if f := n.renewFailure.Load(); f != nil {
		reason += "; the last renewal failed: " + errorText(f.err)
		if f.unanswered {
			reason += "; the one after it was unanswered when the TTL ran out"
		}
	}
	n.publish(lim, &limits{
		deadline: math.MinInt64,
		err:      withPrefix(n.errorPrefix, n.lostError(reason, false)),
		changed:  make(chan struct{}),
	})
}

// maxHedged bounds the keep-alives one renewal has in flight.
const maxHedged = 4

// renewal is the answer to one keep-alive of a renewal.
type renewal struct {
	sent int64 // monotonic ns, just before the request
	ttl  int64
	h    Header
	err  error
}

// keepAlive renews the lease once and moves the deadline. A lease the
// server no longer has ends the node, and so does a deadline that passed
// before the renewal was answered.
//
// The renewal is hedged: if a keep-alive is not answered within the
// request timeout, another one goes out (which clientv3 hands to the next
// member), and another after twice as long, up to maxHedged, and the
// first answer counts. So a member that hangs costs one request timeout,
// not the lease, while a cluster that is merely slow still renews the
// lease with its late answer. Keep-alives are idempotent, and each answer
// is counted from the moment its own request was sent.
func (n *Node) keepAlive(ctx context.Context) error {
	lim := n.limits.Load()
	if lim.err != nil {
		return lim.err
	}
	ctx, cancel := context.WithTimeout(ctx, time.Duration(lim.deadline-clock.Mono()))
	defer cancel() // ends the keep-alives still in flight
	answers := make(chan renewal, maxHedged)
	send := func() {
		sent := clock.Mono()
		ttl, h, err := n.store.KeepAliveOnce(ctx, n.lease)
		if err == nil {
			err = n.staleGone(ttl, h)
		}
		answers <- renewal{sent, ttl, h, err}
	}
	go send()
	sent, inFlight := 1, 1
	wait := n.timeout
	hedge := time.NewTimer(wait)
	defer hedge.Stop()
	var a renewal
	for {
		select {
		case a = <-answers:
			inFlight--
		case <-hedge.C:
			if sent < maxHedged && ctx.Err() == nil {
				go send()
				sent, inFlight, wait = sent+1, inFlight+1, 2*wait
				hedge.Reset(wait)
			}
			continue
		}
		if a.err == nil || inFlight == 0 {
			break
		}
	}
	if a.err != nil {
		return &StoreError{Op: "renewing lease " + strconv.FormatInt(n.lease, 16), Err: a.err}
	}
	if err := n.observeCluster(a.h); err != nil {
		return err
	}
	if a.ttl <= 0 {
		return n.lost("the lease expired, was revoked, or "+n.storeWord()+" lost it", false)
	}
	d, err := n.renewedTTL(a.ttl)
	if err != nil {
		return err
	}
	deadline := a.sent + int64(d-Margin(d))
	n.update(func(cur limits) *limits {
		if clock.Mono() >= cur.deadline || deadline <= cur.deadline {
			return nil // too late to extend (Generate or the loop will expire it), or nothing gained
		}
		cur.deadline, cur.changed = deadline, make(chan struct{})
		return &cur
	})
	return nil
}

// staleGone returns an error for a keep-alive answered "the lease is gone"
// (ttl 0 or less) by a member behind the cluster: one whose revision is
// below the highest the node has seen in a KV answer. etcd's leader renews
// leases from its own memory, without asking the others, so a leader cut
// off from them answers so for every lease granted after the cut, until
// it steps down (an election timeout later). The request is then failed,
// and sent again, to another member, rather than believed; a lease that
// is gone is gone at every current member, and an etcd that lost its data
// (whose revision went back) is found out by the node's next write.
func (n *Node) staleGone(ttl int64, h Header) error {
	if ttl > 0 || h.Revision <= 0 {
		return nil
	}
	if seen := n.revision.Load(); h.Revision < seen {
		return errors.New("a member behind the cluster (at revision " + strconv.FormatInt(h.Revision, 10) +
			", where the node has seen " + strconv.FormatInt(seen, 10) + ") answered that the lease is gone")
	}
	return nil
}

// renewedTTL returns the TTL a keep-alive answered as the node counts on
// it: at most the TTL granted, which is what etcd renews a lease to, and
// refused past etcd's largest, which no etcd answers (and which would
// overflow the deadline's arithmetic).
func (n *Node) renewedTTL(ttl int64) (time.Duration, error) {
	if ttl > maxTTLSeconds {
		return 0, &DataError{Reason: "a renewal of lease " + strconv.FormatInt(n.lease, 16) + " was answered with a TTL of " +
			strconv.FormatInt(ttl, 10) + " s, past " + n.storeWord() + "'s largest (9000000000 s)", Store: n.storeName}
	}
	return min(time.Duration(ttl)*time.Second, n.ttl), nil
}

// leaseLoop renews the lease every TTL/4 and ends the node when the
// deadline passes without a renewal. A failed renewal is tried again
// after renewRetry, then after twice as long each time, up to TTL/4: soon,
// to another member, when the one asked answers "no leader", and not in a
// busy loop when etcd is down.
func (n *Node) leaseLoop() {
	defer n.loops.Done()
	interval := n.ttl / 4
	retry := time.Duration(0) // the wait after a failed renewal; 0 after a renewal
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
		wait := interval
		if retry > 0 {
			wait = retry
		}
		timer.Reset(min(wait, left))
		select {
		case <-n.ctx.Done():
			return
		case <-timer.C:
		}
		if clock.Mono() >= lim.deadline {
			continue // expire at the top, unless renewed meanwhile
		}
		if err := n.keepAlive(n.ctx); err != nil {
			n.renewFailure.Store(n.renewFailed(err))
			retry = min(max(2*retry, renewRetry), interval)
		} else {
			n.renewFailure.Store(nil)
			retry = 0
		}
	}
}

// Close stops minting, stores the last ID in the continuity record and
// revokes the lease, freeing the node ID. Afterwards every generate call
// returns [ErrClosed] and Done is closed. ctx bounds the two steps, each
// tried again as Acquire's steps are (see try): a caller that must end
// soon (on a signal) cancels it, and the node ID is then freed when the
// lease expires. It returns an error matching
// ErrClosed if the node was already closed, a [*LostError] if the lease had
// been lost (the record then keeps the high-water mark, which is safe) or
// is found lost by the write, and [*StoreError] values for failed requests;
// the node is closed in every case, and a lease that could not be revoked
// expires after its TTL.
//
// Why the stored ID is at least every ID ever returned: Close publishes the
// closed limits and then reads the generator's last ID; Generate
// compare-and-swaps the generator's state and then loads the limits. Go's
// atomics are sequentially consistent, so for any mint either its
// compare-and-swap comes before Close's read, and the read sees that ID or
// a later one, or it comes after, and then its load of the limits comes
// after Close's store and sees the closed limits, and the ID is dropped. The
// stored ID may be one that was dropped, which is harmless. The write is
// fenced like every other, and runs after the bound loop has ended, so no
// raise can come after it.
func (n *Node) Close(ctx context.Context) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if n.closing.Swap(true) {
		return n.closed
	}
	lost := n.limits.Load().err // with the prefix already
	for cur := n.limits.Load(); !n.publish(cur, &limits{deadline: math.MinInt64, err: n.closed, changed: make(chan struct{})}); {
		cur = n.limits.Load()
	}
	last := n.gen.NodeSpec().NodePrev()
	n.cancel()
	n.loops.Wait()

	var errs []error
	if lost != nil {
		errs = append(errs, lost)
	} else {
		// With nothing minted and no earlier record, leave the node ID
		// fresh: delete the record.
		text, _ := last.AppendText(nil)
		if err := n.try(ctx, func(ctx context.Context) error {
			return n.writeRecord(ctx, string(text), last == 0, false)
		}); err != nil {
			errs = append(errs, withPrefix(n.errorPrefix, err))
		}
	}
	if err := n.try(ctx, n.revokeOnce); err != nil {
		errs = append(errs, withPrefix(n.errorPrefix, &notRevoked{err}))
	}
	return errors.Join(errs...)
}

// notRevoked marks the error of Close's revocation, which failed or got no
// answer: see NotRevoked.
type notRevoked struct{ err error }

func (e *notRevoked) Error() string { return errorText(e.err) }
func (e *notRevoked) Unwrap() error { return e.err }

// NotRevoked reports whether err, returned by Close, says that Close could
// not revoke the lease: the node ID then stays held until the lease
// expires (unless the revocation applied and its answer was lost). When it
// reports false, the lease was revoked, or had been lost, and the node ID
// is free, whatever else err says (the record may keep the high-water
// mark instead of the last ID, which is safe).
func NotRevoked(err error) bool {
	var e *notRevoked
	return errors.As(err, &e)
}
