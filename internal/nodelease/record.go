package nodelease

import (
	"context"
	"slices"
	"strconv"
	"time"

	"github.com/fastid/scru128/internal/clock"
	"github.com/fastid/scru128/scru64"
)

const (
	// boundLeadTicks is how far ahead of what the node may mint next it
	// keeps its persisted bound: 20 ticks, 5.12 s.
	boundLeadTicks = 20
	// boundCheckInterval is how often the bound loop looks whether bound
	// needs raising; it writes only when less than half the lead is left.
	boundCheckInterval = 256 * time.Millisecond
	// roundAttempts is how many attempts one round of the bound loop
	// makes before it reports a stall: the next goes to another member
	// when one hangs, with twice the time; a failure the Store calls
	// transient is sent again after a wait and is no attempt (see
	// tryTimes).
	roundAttempts = 3
	// maxWriteBackoff is the longest wait between two rounds of writes
	// that fail: the wait starts at boundCheckInterval and doubles, so
	// that a node whose writes etcd refuses for an hour (NOSPACE, say)
	// sends three requests every two seconds, not four a second.
	maxWriteBackoff = 2 * time.Second
	// tickNs is one SCRU64 timestamp tick in nanoseconds.
	tickNs = int64(256 * time.Millisecond)
)

// realm is the realm key: the node ID size of every node under the prefix.
type realm struct {
	key, value     string
	createRevision int64 // as the acquire transaction read it
}

// fence is what the node knows of the record, so that each write applies
// only to the record it last knew (see WriteRecord). Acquire, then the
// bound loop, then Close use it, one after another, never at once: the
// loop starts after Acquire's last write, and Close writes after the loop
// has ended.
type fence struct {
	revision int64  // the record's mod revision as last known; 0: absent
	value    string // its value then
	// pending are writes sent since then whose answers were lost: one of
	// them may have been applied (at most one, since all compare the same
	// revision), which the next write finds out.
	pending pendingWrites
}

// pendingWrites are a fence's writes whose answers were lost. The bounds,
// of which a node whose writes fail sends a few every few seconds for as
// long as that lasts, are kept as the range of their values, so that an
// outage of a day costs no memory; the other writes (Close's, a failed
// Acquire's putting back), a handful at most, one by one.
type pendingWrites struct {
	lo, hi string // the lowest and highest bound sent; "" if none
	others []pendingWrite
}

type pendingWrite struct {
	value  string
	delete bool
}

// any reports whether a write is pending.
func (p *pendingWrites) any() bool { return p.lo != "" || len(p.others) > 0 }

// add notes a write whose answer was lost.
func (p *pendingWrites) add(w pendingWrite, bound bool) {
	switch {
	case bound:
		if p.lo == "" || w.value < p.lo {
			p.lo = w.value
		}
		p.hi = max(p.hi, w.value)
	case !slices.Contains(p.others, w):
		p.others = append(p.others, w)
	}
}

// pace is the node's estimate of the true tick, on the monotonic clock: the
// wall clock at Acquire, plus monotonic time since. The background raise
// of the bound follows it rather than the wall clock alone, so that a wall
// clock that jumps ahead while nothing is minted does not drag the record
// with it.
type pace struct {
	tick uint64
	mono int64
}

// writeRecord writes value to the record (or deletes it), fenced on the
// record the node last knew; bound says that value is a bound (a
// high-water ID) written by raiseBound. If that compare fails and the
// record holds a write of this node whose answer was lost, the node takes
// it as known: if it is this write (sent twice, by the Store or the
// network), the write is done; if an earlier one, it tries once more.
// Anything else it finds ends the node: the holder key gone or another
// lease's (lost), or the realm key or the record changed by someone else
// (data loss).
func (n *Node) writeRecord(ctx context.Context, value string, del, bound bool) error {
	for range 2 {
		floor := n.revision.Load()
		// The write is pending from before it is sent, not only once its
		// answer is lost: a Store (or something between it and the server)
		// may send it again by itself after a timeout, and the second
		// send then finds the first one's record. A write that applied
		// replaces the fence, pending writes and all.
		n.fence.pending.add(pendingWrite{value, del}, bound)
		res, err := n.store.WriteRecord(ctx, RecordWrite{
			HolderKey: n.holderKey, Lease: n.lease,
			RecordKey: n.recordKey, ModRevision: n.fence.revision,
			RealmKey: n.realm.key, RealmCreateRevision: n.realm.createRevision,
			Value: value, Delete: del,
		})
		if err != nil {
			return &StoreError{Op: "writing the continuity record " + quote(n.recordKey), Err: err}
		}
		// A revision that went back ends the node, but a record found
		// rewound below is repaired first: the node ends only after that,
		// so that whoever stops on its error (a process that exits, say)
		// cannot stop before the repair.
		rewound := n.checkHeader(res.Header, floor)
		if res.Written {
			if rewound != nil {
				n.finish(rewound)
				return rewound
			}
			n.fence = fence{revision: res.Header.Revision, value: value}
			if del {
				n.fence = fence{}
			}
			return nil
		}
		found := "absent"
		if res.Record.Exists() {
			found = strconv.Quote(res.Record.Value)
		}
		// The node ends with what it found, or with the revision that
		// went back if it did: that says the store lost data, which a
		// holder key gone with its lease alone does not.
		var lost *LostError
		switch {
		case res.HolderLease != n.lease:
			lost = n.lostError("the holder key "+strconv.Quote(n.holderKey)+" is no longer attached to the lease", false)
		case res.RealmCreateRevision != n.realm.createRevision:
			lost = n.lostError("the realm key "+strconv.Quote(n.realm.key)+" was deleted or made anew (create revision "+
				strconv.FormatInt(n.realm.createRevision, 10)+", now "+strconv.FormatInt(res.RealmCreateRevision, 10)+")", true)
		case rewound == nil && n.adopt(res.Record):
			if res.Record.Exists() != del && (del || res.Record.Value == value) {
				return nil // this very write had applied, sent twice: it is done
			}
			continue // an earlier write had applied: write again on top of it
		case !res.Record.Exists() || res.Record.Value < n.fence.value:
			// The record went back below this node's own last write: etcd
			// rewound it. Put it back up, so that the node ID's next
			// holder starts after this node's IDs, and stop.
			n.repair(ctx, res.Record)
			lost = n.lostError("the continuity record "+strconv.Quote(n.recordKey)+" went back from "+
				strconv.Quote(n.fence.value)+" to "+found, true)
		default:
			lost = n.lostError("the continuity record "+strconv.Quote(n.recordKey)+" was changed to "+found+
				" by someone else (this node last wrote "+strconv.Quote(n.fence.value)+")", true)
		}
		if rewound != nil && !lost.DataLoss {
			lost = rewound
		}
		n.finish(lost) // the node's error, unless one came first
		return lost
	}
	return n.lost("the continuity record "+strconv.Quote(n.recordKey)+" changed twice under one write", true)
}

// adopt takes found as the node's own last write if it is one of the
// writes whose answers were lost. A bound counts as one if it lies in the
// range of the bounds sent and is a high-water ID of the node's node ID:
// while the node holds its node ID nobody else writes its record (the
// fence), and a record that etcd took back lies below the range, since
// every bound the node sends is at least the last one it knows applied.
// Text IDs have one length, so comparing values compares IDs.
func (n *Node) adopt(found Record) bool {
	p := &n.fence.pending
	mine := found.Exists() && p.lo != "" && p.lo <= found.Value && found.Value <= p.hi && n.isHighWater(found.Value)
	for _, w := range p.others {
		mine = mine || w.delete && !found.Exists() || !w.delete && found.Exists() && w.value == found.Value
	}
	if mine {
		n.fence = fence{revision: found.ModRevision, value: found.Value}
	}
	return mine
}

// isHighWater reports whether value is the text of a high-water ID of the
// node's node ID: a bound that this node, or an earlier holder, wrote.
func (n *Node) isHighWater(value string) bool {
	id, err := scru64.Parse(value)
	return err == nil && id == highWater(id.Timestamp(), n.nodeID, n.size)
}

// repair writes the node's last known value over a record that went back
// below it, fenced on what was found. It is one attempt: the node stops
// either way.
func (n *Node) repair(ctx context.Context, found Record) {
	if n.fence.value == "" {
		return
	}
	floor := n.revision.Load()
	res, err := n.store.WriteRecord(ctx, RecordWrite{
		HolderKey: n.holderKey, Lease: n.lease,
		RecordKey: n.recordKey, ModRevision: found.ModRevision,
		RealmKey: n.realm.key, RealmCreateRevision: n.realm.createRevision,
		Value: n.fence.value,
	})
	if err == nil && res.Written && n.observe(res.Header, floor) == nil {
		n.fence.revision = res.Header.Revision
	}
}

// observe checks the header of an answer to a KV request (checkHeader),
// and ends the node if the check fails.
func (n *Node) observe(h Header, floor int64) error {
	if err := n.checkHeader(h, floor); err != nil {
		n.finish(err)
		return err
	}
	return nil
}

// checkHeader checks the header of an answer to a KV request: the cluster
// must be the one Acquire talked to, and the revision at least floor, the
// highest revision of answers received before the request was sent (etcd's
// KV requests are linearizable, so a later request never sees an older
// revision unless etcd lost data). It returns the error that is to end the
// node, without ending it, or nil after noting the revision.
func (n *Node) checkHeader(h Header, floor int64) *LostError {
	if err := n.checkCluster(h); err != nil {
		return err
	}
	if h.Revision < floor {
		hint := " (restored from a backup, or a member that lost its data?)"
		if n.storeName != "" {
			hint = " (restored from a backup, or failed over to a replica that lacked the last writes?)"
		}
		return n.lostError(n.storeWord()+"'s revision went back from "+strconv.FormatInt(floor, 10)+" to "+
			strconv.FormatInt(h.Revision, 10)+hint, true)
	}
	for {
		seen := n.revision.Load()
		if h.Revision <= seen || n.revision.CompareAndSwap(seen, h.Revision) {
			return nil
		}
	}
}

// observeCluster checks that an answer comes from the cluster Acquire
// talked to (checkCluster), and ends the node if it does not.
func (n *Node) observeCluster(h Header) error {
	if err := n.checkCluster(h); err != nil {
		n.finish(err)
		return err
	}
	return nil
}

// checkCluster returns the error that is to end the node if h comes from
// another cluster than the one Acquire talked to, or from another timeline
// of it. Answers without a cluster ID or a timeline are not checked for it.
func (n *Node) checkCluster(h Header) *LostError {
	if n.clusterID != 0 && h.ClusterID != 0 && h.ClusterID != n.clusterID {
		what := "another " + n.storeWord() + " cluster answered"
		if n.clusterHint != "" {
			what += ", or " + n.clusterHint
		}
		return n.lostError(what+" (cluster ID "+strconv.FormatUint(h.ClusterID, 16)+
			", was "+strconv.FormatUint(n.clusterID, 16)+")", true)
	}
	if n.timeline != 0 && h.Timeline != 0 && h.Timeline != n.timeline {
		return n.lostError(n.storeWord()+"'s timeline changed from "+strconv.FormatUint(n.timeline, 10)+" to "+
			strconv.FormatUint(h.Timeline, 10)+" (a failover or a recovery to a point in time, which can lose writes it acknowledged)", true)
	}
	return nil
}

// boundLoop keeps the persisted bound ahead of what the node may mint, and
// raises it at once when Generate asks.
//
// It writes in rounds of up to roundAttempts requests. A round that fails
// while the lease holds makes the node stalled: the loop publishes a
// *StallError (Stalled returns it, and Generate past the bound), waits
// before the next round (boundCheckInterval, doubling up to
// maxWriteBackoff, whatever Generate asks), and writes then whether or
// not the bound needs raising, so that the first write that applies
// clears the stall.
func (n *Node) boundLoop() {
	defer n.loops.Done()
	ticker := time.NewTicker(boundCheckInterval)
	defer ticker.Stop()
	var stall StallError // of the failed rounds in a row; Attempts 0: none
	var backoff time.Duration
	var nextRound int64 // monotonic ns: no round before, while stalled
	for {
		select {
		case <-n.ctx.Done():
			return
		case <-ticker.C:
		case <-n.raise:
		}
		if stall.Attempts > 0 && clock.Mono() < nextRound {
			continue
		}
		err := n.tryTimes(n.ctx, roundAttempts, func(ctx context.Context) error {
			n.failingSince.CompareAndSwap(0, time.Now().UnixNano())
			n.failingSent.Add(1)
			err := n.raiseBound(ctx, stall.Attempts > 0)
			if err != nil {
				n.writeFailure.Store(&renewFailure{err: err})
			} else {
				n.writeFailure.Store(nil)
				n.failingSince.Store(0)
				n.failingSent.Store(0)
			}
			return err
		})
		switch {
		case err == nil:
			stall, backoff = StallError{}, 0 // raiseBound cleared the stall
			continue
		case n.limits.Load().err != nil || n.ctx.Err() != nil:
			return // lost, or closed
		}
		stall.Since, stall.Attempts = n.failing()
		stall.Err = err
		backoff = min(max(2*backoff, boundCheckInterval), maxWriteBackoff)
		nextRound = clock.Mono() + int64(backoff)
		n.publishStall(stall)
	}
}

// failing returns when the first of the bound loop's writes since the
// last that applied was sent, and how many were sent; with none, now less
// the longest a raise may take (the write Generate gave up waiting for was
// sent at least that long ago) and 0.
func (n *Node) failing() (since time.Time, sent int) {
	ns, count := n.failingSince.Load(), n.failingSent.Load()
	if ns == 0 {
		return time.Now().Add(-maxRaiseWait(n.timeout)), 0
	}
	return time.Unix(0, ns), int(count)
}

// publishStall publishes s, of the node's failing writes, with the bound
// minting stops at.
func (n *Node) publishStall(s StallError) {
	n.update(func(cur limits) *limits {
		s.NodeID, s.Bound = n.nodeID, highWater(cur.bound, n.nodeID, n.size)
		stall := s
		cur.stall, cur.changed = withPrefix(n.errorPrefix, &stall), make(chan struct{})
		return &cur
	})
}

// raiseBound writes a new bound if less than half the lead is left (or
// always, if force), and publishes it once the write is known to have
// applied: only then may IDs up to it be minted.
func (n *Node) raiseBound(ctx context.Context, force bool) error {
	lim := n.limits.Load()
	if lim.err != nil {
		return lim.err
	}
	bound, ok := n.nextBound(lim.bound, force)
	if !ok {
		return nil
	}
	text, _ := highWater(bound, n.nodeID, n.size).AppendText(nil)
	ctx, cancel := context.WithTimeout(ctx, time.Duration(lim.deadline-clock.Mono()))
	defer cancel()
	if err := n.writeRecord(ctx, string(text), false, true); err != nil {
		return err
	}
	n.update(func(cur limits) *limits {
		if bound <= cur.bound && cur.stall == nil {
			return nil
		}
		cur.bound, cur.stall, cur.changed = max(cur.bound, bound), nil, make(chan struct{})
		return &cur
	})
	return nil
}

// nextBound returns the bound to write, and whether to write it now. The
// bound is boundLeadTicks past the larger of the last ID's tick (what the
// node has minted, or the record it continues) and the wall clock's tick,
// but the clock counts only as far as the pace allows: a wall clock that
// runs ahead of the monotonic estimate is believed once IDs have been
// minted at it, which is when the node needs it. A mint past the bound
// moves the last ID there first, so the raise it asks for covers it.
func (n *Node) nextBound(current uint64, force bool) (uint64, bool) {
	mono := clock.Mono()
	clockTick := n.clock.MillisAt(mono) >> 8
	lastTick := n.gen.NodeSpec().NodePrev().Timestamp()
	trusted := n.pace.tick + uint64(max(mono-n.pace.mono, 0)/tickNs)
	if lastTick > trusted && clockTick > trusted {
		n.pace = pace{tick: min(lastTick, clockTick), mono: mono}
		trusted = n.pace.tick
	}
	base := max(lastTick, min(clockTick, trusted))
	if !force && current >= base+boundLeadTicks/2 {
		return 0, false
	}
	return min(max(base+boundLeadTicks, current), scru64.MaxTimestamp-1), true
}

// highWater returns the largest ID that node ID nodeID of size size can
// mint at timestamp bound: its counter bits all ones.
func highWater(bound uint64, nodeID uint32, size uint8) scru64.ID {
	counterBits := 24 - size
	counterMax := uint32(1)<<counterBits - 1
	id, _ := scru64.FromParts(bound, nodeID<<counterBits|counterMax)
	return id
}
