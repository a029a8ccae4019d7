// Package etcdnode leases SCRU64 node IDs from etcd, so that a fleet of
// processes (autoscaled pods, say) each mints under a node ID of its own
// without anyone assigning them by hand.
//
// [Acquire] takes the lowest free node ID under a key prefix with one etcd
// transaction, attaches it to a lease that it keeps alive in the
// background, and returns a [Node] that mints [scru64.ID] values under it:
//
//	node, err := etcdnode.Acquire(ctx, client, etcdnode.WithNodeIDSize(10))
//	if err != nil { ... }
//	defer node.Close(context.Background())
//	id, err := node.Generate()
//
// What it promises, given an etcd that keeps what it acknowledged:
//
//   - Uniqueness: no two live nodes hold one node ID, and a node ID's next
//     holder starts after every ID its earlier holders issued, after a
//     Close or a crash, even on a machine whose clock is behind, through
//     partitions and requests that a network delays, repeats or reorders.
//   - Failing closed: a node that cannot renew its lease stops minting
//     before the lease can expire on the server. From then on every
//     generate call returns an error matching [ErrLeaseLost] and
//     [Node.Done] is closed.
//   - Never silent: a node whose writes etcd refuses while its lease holds
//     (its NOSPACE alarm, say) says so at once through [Node.Stalled],
//     mints on up to the high-water mark it last wrote, then returns an
//     error matching [ErrStalled] without blocking, and mints again once
//     a write applies.
//   - Failover: with every member's endpoint in the client, a member that
//     hangs, has no leader or is partitioned costs a request now and
//     then, not the lease, while a majority is reachable.
//   - Speed: minting an ID costs what [scru64.Generator.Generate] costs plus
//     one atomic load; it neither calls etcd nor allocates.
//
// What voids uniqueness is etcd losing or rewinding data (a member restarted
// on an empty data directory, a restore from an old backup): between the
// loss and a node's next request to etcd, another node may take its node
// ID. A node stops at that request: with an error matching [ErrLeaseLost]
// when etcd has forgotten its lease, and matching [ErrDataLoss] too where it
// can tell that etcd went back (its record or the revision went back). So
// does a man in the middle that answers in etcd's name: use TLS to etcd
// where the network is not trusted. (One that forges only keep-alives
// makes a node mint for at most 5.12 s past its lease, still without
// repeating an ID.) The guide at
// https://github.com/fastid/scru128/blob/main/docs/fleet.md says which
// failures are safe and which are not; the protocol, with the proofs and
// its figures (keys, deadlines, margins, the lead of the high-water mark),
// is told once, in the documentation of the internal package that
// implements it for this package and for the command-line tool:
// https://pkg.go.dev/github.com/fastid/scru128/internal/nodelease.
//
// Testing needs a real etcd; this module's tests start one in-process with
// go.etcd.io/etcd/server/v3/embed and inject faults through a proxy.
package etcdnode

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/fastid/scru128/internal/nodelease"
	"github.com/fastid/scru128/scru64"
)

// Errors returned by this package. Each reads "etcdnode: " and what it
// means, for example "etcdnode: lease lost", and so does every error this
// package's functions and methods return, other than the scru64 package's
// own (a clock outside SCRU64's range): "etcdnode: lease lost: node ID 3,
// ...". Under errors.Is those errors match these sentinels, and under
// errors.As they are the typed errors below; errors from etcd are wrapped
// with %w, so errors.Is and errors.As see through to them too.
//
// The typed errors are the protocol's, shared with the command-line tool,
// which words its messages itself: their own Error methods leave the
// prefix out ("lease lost: node ID 3, ..."), and what this package returns
// carries it around them.
var (
	// ErrNoFreeNodeID means every node ID of the realm, or of the range
	// given to WithNodeIDRange or WithNodeID, is held by a live lease.
	ErrNoFreeNodeID = prefixed(nodelease.ErrNoFreeNodeID)
	// ErrLeaseLost means the node stopped minting before Close: no
	// keep-alive was answered in time (the lease could have expired), the
	// lease was revoked or vanished, the holder key is no longer the
	// node's, or etcd lost data. The error is a [*LostError].
	ErrLeaseLost = prefixed(nodelease.ErrLeaseLost)
	// ErrDataLoss means the node saw etcd lose or rewind data: IDs may
	// have been issued twice around the loss. Such an error is a
	// [*LostError] and matches ErrLeaseLost too.
	ErrDataLoss = prefixed(nodelease.ErrDataLoss)
	// ErrClosed means Close was called (or the Node was not made by
	// Acquire).
	ErrClosed = prefixed(nodelease.ErrClosed)
	// ErrInvalidOption means an option's value was rejected; the error is
	// an [*OptionError].
	ErrInvalidOption = prefixed(nodelease.ErrInvalidOption)
	// ErrRealmMismatch means the realm under the prefix uses another node
	// ID size than the one asked for (the error is a [*RealmError]):
	// another prefix, or the realm's size, resolves it.
	ErrRealmMismatch = prefixed(nodelease.ErrRealmMismatch)
	// ErrBadData means etcd answered data this package did not write and
	// cannot use: a key or value under the prefix of another form (a realm
	// key that holds no node ID size, a continuity record that is not an
	// ID of its node ID), or an answer outside what was asked (a listing
	// with keys outside its range, a TTL no etcd grants). The error is a
	// [*DataError] or a [*RecordError], which names the key and the value;
	// no option resolves it.
	ErrBadData = prefixed(nodelease.ErrBadData)
	// ErrStalled means the node cannot write its continuity record while
	// its lease holds (etcd out of space, say), so that it mints no ID
	// past the bound it last wrote. The error is a [*StallError]; see
	// [Node.Stalled].
	ErrStalled = prefixed(nodelease.ErrStalled)
)

// errorPrefix is the package name that starts every error text.
const errorPrefix = "etcdnode"

// prefixed returns err with this package's prefix. Around one of the
// protocol's sentinels it is this package's sentinel: every error that
// matches the protocol's matches it too.
func prefixed(err error) error { return &nodelease.PrefixedError{Prefix: errorPrefix, Err: err} }

// OptionError reports a rejected option: which, and why. It matches
// [ErrInvalidOption] under errors.Is. Its Error method words it without
// the package prefix: `invalid option WithTTL: 1.5s is not a whole number
// of seconds`; Acquire returns it with the prefix around it.
type OptionError = nodelease.OptionError

// RealmError reports that the realm under a prefix records another node ID
// size. It matches [ErrRealmMismatch] under errors.Is.
type RealmError = nodelease.RealmError

// RecordError reports a continuity record that is not an ID of its node
// ID. It matches [ErrBadData] under errors.Is.
type RecordError = nodelease.RecordError

// DataError reports a key, a value or an answer from etcd that this
// package did not write or ask for, and names it. It matches [ErrBadData]
// under errors.Is.
type DataError = nodelease.DataError

// StallError reports that a node's writes of its continuity record fail:
// since when, how often, the bound minting stops at, and the last write's
// error, through which errors.Is and errors.As see etcd's answer (for
// example rpctypes.ErrNoSpace). It matches [ErrStalled] under errors.Is.
type StallError = nodelease.StallError

// LostError reports why a node stopped minting before Close. It matches
// [ErrLeaseLost], and [ErrDataLoss] when its DataLoss field is set.
type LostError = nodelease.LostError

// StoreError reports an etcd request that failed, and what it was for.
type StoreError = nodelease.StoreError

// RollbackError reports that the clock is too far behind the last ID
// minted under the node ID to mint now, and how long until it is not. It
// matches [scru64.ErrClockRollback].
type RollbackError = nodelease.RollbackError

// MaxSleep is the longest wait for the clock that [Node.GenerateOrSleep]
// sleeps through (a minute); it returns a longer one as a [*RollbackError].
const MaxSleep = nodelease.MaxSleep

// Default option values.
const (
	DefaultPrefix     = nodelease.DefaultPrefix     // "/scru64/"
	DefaultNodeIDSize = nodelease.DefaultNodeIDSize // 8: 256 nodes, 65,536 IDs per 256 ms each
	DefaultTTL        = nodelease.DefaultTTL        // 10 s
)

// Option configures Acquire.
type Option func(*options)

// options is what the options set: the protocol's config.
type options struct{ cfg nodelease.Config }

// WithPrefix sets the key prefix under which node IDs are leased (default
// [DefaultPrefix]). Nodes under one prefix form one realm: one node ID size,
// node IDs unique among them. An empty prefix is an error.
func WithPrefix(prefix string) Option {
	return func(o *options) { o.cfg.Prefix = prefix }
}

// WithNodeIDSize sets the node ID size in bits, 1 to 23 (default
// [DefaultNodeIDSize]): 2^size nodes can each mint 2^(24-size) IDs per
// 256-ms tick before borrowing from the next tick.
func WithNodeIDSize(size uint8) Option {
	return func(o *options) { o.cfg.NodeIDSize = size }
}

// WithTTL sets the lease's time to live, a whole number of seconds, at
// least 1 (default [DefaultTTL]; etcd raises a TTL below its minimum, 2 s
// with default election settings). A crashed node's node ID is free again
// after about TTL; a node that loses contact with etcd stops minting after
// about 0.9 TTL - 250 ms.
func WithTTL(ttl time.Duration) Option {
	return func(o *options) { o.cfg.TTL = ttl }
}

// WithNodeIDRange limits Acquire to node IDs min..max (inclusive), which
// must fit the node ID size; Acquire takes the lowest free one, or returns
// [ErrNoFreeNodeID].
func WithNodeIDRange(min, max uint32) Option {
	return func(o *options) { o.cfg.HasRange, o.cfg.MinNodeID, o.cfg.MaxNodeID = true, min, max }
}

// WithNodeID makes Acquire take exactly this node ID, or return
// [ErrNoFreeNodeID] if it is held. It is WithNodeIDRange(id, id).
func WithNodeID(id uint32) Option { return WithNodeIDRange(id, id) }

// WithClock sets the wall clock IDs are stamped from (default, or nil:
// time.Now), for tests and simulations; it is read about once a second and
// followed with the monotonic clock in between. The lease deadline always
// runs on the process's monotonic clock.
func WithClock(now func() time.Time) Option {
	return func(o *options) { o.cfg.Wall = now }
}

// WithCounterMode sets the generator's counter mode (see
// [scru64.NewGeneratorWithCounterMode]; nil means its default).
func WithCounterMode(mode scru64.CounterMode) Option {
	return func(o *options) { o.cfg.CounterMode = mode }
}

// optionNames is the one place that names a rejected value as this
// package's user knows it.
var optionNames = map[nodelease.Field]string{
	nodelease.FieldStore:      "Acquire's client",
	nodelease.FieldPrefix:     "WithPrefix",
	nodelease.FieldNodeIDSize: "WithNodeIDSize",
	nodelease.FieldTTL:        "WithTTL",
	nodelease.FieldRange:      "WithNodeIDRange",
}

// Node mints SCRU64 IDs under a node ID leased from etcd. Its methods are
// safe for concurrent use. A Node is done when its lease is lost or it is
// closed: Done is closed, and every generate call returns an error matching
// [ErrLeaseLost] or [ErrClosed]. Make one with [Acquire]; methods of a Node
// made otherwise return [ErrClosed].
type Node struct {
	core  *nodelease.Node
	renew *keepAlives // its keep-alive stream, closed by Close
}

var errNotAcquired = fmt.Errorf("%w: the Node was not returned by etcdnode.Acquire", ErrClosed)

// Acquire leases the lowest free node ID under the prefix and returns a
// Node minting under it, its lease kept alive in the background until
// [Node.Close] or until the lease is lost. It takes the node ID with one
// etcd transaction that creates the node ID's holder key if absent,
// attached to a new lease with the TTL, and reads the node ID's continuity
// record; concurrent Acquires each get another node ID. Before returning
// it renews the lease once and writes the first high-water mark: six etcd
// requests when no other node races for the same node ID.
//
// With a client of several endpoints, a member that hangs, has no leader
// or is cut off costs Acquire one attempt of the step that met it: a
// request is given at most the TTL's safety margin (TTL/10 + 250 ms, up
// to 2 s), and a step that fails is tried again, up to five times while
// ctx lasts, each time with twice as long as before (so that a slow
// cluster answers all the same); clientv3 sends the attempts to the
// members in turn. A "no leader" is not an attempt: every member answers
// so at once while the cluster elects a leader, so the step is sent again
// after a wait, 50 ms at first and doubling up to the request timeout, for
// as long as the five attempts would last, and an election is ridden out.
//
// It returns an [*OptionError] for a bad option or a nil client, a
// [*RealmError] if the prefix's realm uses another node ID size, a
// [*DataError] or [*RecordError] (matching [ErrBadData]) for a key, value
// or answer from etcd that this package did not write or ask for, an error
// matching [ErrNoFreeNodeID] if every node ID is held, a [*LostError] if
// the lease was lost before the first ID, and a [*StoreError] wrapping
// etcd's error for a step that failed every attempt. On error it leaves
// etcd as it found it: it puts the record back if it may have written it,
// and revokes the lease it granted, spending at most 2 s on that whatever
// ctx says (if the record cannot be put back, the error says so). ctx
// bounds Acquire only, not the Node's life.
func Acquire(ctx context.Context, client *clientv3.Client, opts ...Option) (*Node, error) {
	o := options{cfg: nodelease.DefaultConfig()}
	for i, opt := range opts {
		if opt == nil {
			return nil, prefixed(&OptionError{Option: "Acquire", Reason: "option " + strconv.Itoa(i) + " is nil"})
		}
		opt(&o)
	}
	o.cfg.ErrorPrefix = errorPrefix
	var s nodelease.Store
	var renew *keepAlives
	if client != nil {
		st := newStore(client)
		s, renew = st, st.renew
	}
	core, err := nodelease.Acquire(ctx, s, o.cfg)
	if oe := (*OptionError)(nil); errors.As(err, &oe) {
		oe.Option = optionNames[oe.Field]
	}
	if err != nil {
		renew.close()
		return nil, err
	}
	return &Node{core, renew}, nil
}

// Generate returns a new ID stamped with the clock. It returns a
// [*LostError] (matching [ErrLeaseLost]) or an error matching [ErrClosed]
// once the node is done, a [*StallError] (matching [ErrStalled]) while
// writes of the high-water mark fail and IDs have reached the last one
// written, a [*RollbackError] (matching [scru64.ErrClockRollback]) if the
// clock is more than [scru64.DefaultRollbackAllowance] behind the last ID,
// and [scru64.ErrInvalidTimestamp] for a clock outside SCRU64's range. It
// does not allocate when it returns an ID and, as long as the clock runs
// steadily, does not wait: the high-water mark in etcd is kept about 5 s
// ahead of what the node mints, and only if IDs outrun it (the clock
// stepped forward, or a burst overflowed the counter for seconds) does
// Generate wait for the next write of it, for at most three times the
// TTL's safety margin, up to 6 s (3.75 s with the default TTL); if no
// write has raised it by then, it returns a [*StallError].
func (n *Node) Generate() (scru64.ID, error) {
	if n == nil {
		return 0, errNotAcquired
	}
	return n.core.Generate() // nil-safe, so that this wrapper inlines
}

// GenerateOrSleep is Generate that, instead of returning a
// [*RollbackError], sleeps until the clock is back within the rollback
// allowance of the last ID, if that takes at most [MaxSleep] (a minute). A
// longer wait, which only a record left far ahead by a clock that ran fast
// causes, it returns at once as the *RollbackError, which says how long;
// [Node.ClockWait] tells the same before minting. Its other errors are
// those of Generate: it does not sleep through a [*StallError].
func (n *Node) GenerateOrSleep() (scru64.ID, error) {
	if n == nil {
		return 0, errNotAcquired
	}
	return n.core.GenerateOrSleep()
}

// NewString returns the 12-digit text of an ID from GenerateOrSleep,
// with its errors. It makes one allocation, the string.
func (n *Node) NewString() (string, error) {
	id, err := n.GenerateOrSleep()
	if err != nil {
		return "", err
	}
	return id.String(), nil
}

// ClockWait returns how long Generate would now keep failing for want of a
// later clock (see [RollbackError]): 0 if it can mint now, for a Node not
// made by Acquire, and for a node that is done.
func (n *Node) ClockWait() time.Duration {
	if n == nil || n.core == nil {
		return 0
	}
	return n.core.ClockWait()
}

// NodeID returns the leased node ID (0 for a Node not made by Acquire).
func (n *Node) NodeID() uint32 {
	if n == nil || n.core == nil {
		return 0
	}
	return n.core.NodeID()
}

// NodeIDSize returns the node ID size (0 for a Node not made by Acquire).
func (n *Node) NodeIDSize() uint8 {
	if n == nil || n.core == nil {
		return 0
	}
	return n.core.NodeIDSize()
}

// NodeSpec returns a node spec that continues after the last ID minted
// (see [scru64.Generator.NodeSpec]), or the zero NodeSpec for a Node not
// made by Acquire.
func (n *Node) NodeSpec() scru64.NodeSpec {
	if n == nil || n.core == nil {
		return scru64.NodeSpec{}
	}
	return n.core.NodeSpec()
}

// LeaseID returns the etcd lease that holds the node ID (0 for a Node not
// made by Acquire).
func (n *Node) LeaseID() clientv3.LeaseID {
	if n == nil || n.core == nil {
		return 0
	}
	return clientv3.LeaseID(n.core.Lease())
}

// closedChan is what Done returns for a Node not made by Acquire.
var closedChan = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// Done returns a channel that is closed when the node stops minting,
// because its lease was lost or it was closed; [Node.Err] says which.
func (n *Node) Done() <-chan struct{} {
	if n == nil || n.core == nil {
		return closedChan
	}
	return n.core.Done()
}

// Err returns nil while the node mints, and afterwards a [*LostError]
// (matching [ErrLeaseLost]) or an error matching [ErrClosed] that says why
// it stopped.
func (n *Node) Err() error {
	if n == nil || n.core == nil {
		return errNotAcquired
	}
	return n.core.Err()
}

// Stalled returns nil while the node's writes of its high-water mark to
// etcd succeed, and a [*StallError] (matching [ErrStalled]) from the
// first failed round of writes until a write applies, while the node
// lives: etcd refuses the writes (its NOSPACE alarm, say) or they get no
// answer, while keep-alives may still succeed. The node mints on up to the
// mark it last wrote, about 5 s past its last successful write; then
// Generate returns the same error, at once, until a write applies. The
// node keeps trying, up to three requests at a time, at first every
// quarter of a second and then every 2 s. The error names etcd's answer to
// the last write, for a log line or an alert; it is nil for a node that is
// done (see [Node.Err]) or not made by Acquire.
func (n *Node) Stalled() error {
	if n == nil || n.core == nil {
		return nil
	}
	return n.core.Stalled()
}

// Close stops minting, writes the last ID issued to the node ID's
// continuity record and revokes the lease, which frees the node ID; the
// next holder starts right after that ID. Afterwards every generate call
// returns [ErrClosed]. ctx bounds the two steps (each tried again as
// Acquire's are): a caller that must end soon cancels it, and the node ID
// is then free when the lease expires.
// The write is fenced like every write of the record: it applies only
// while this node holds the node ID and the record is its own last write.
//
// The node is closed whatever Close returns. It returns an error matching
// [ErrClosed] if the node was already closed, a [*LostError] if the lease
// had been lost (the record then keeps the high-water mark, which is safe),
// and a [*StoreError] wrapping etcd's error for a failed request; a lease
// that could not be revoked expires after its TTL.
func (n *Node) Close(ctx context.Context) error {
	if n == nil || n.core == nil {
		return errNotAcquired
	}
	err := n.core.Close(ctx)
	n.renew.close() // no keep-alive is sent once Close has stopped the node
	return err
}
