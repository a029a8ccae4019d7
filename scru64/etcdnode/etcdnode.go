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
// Three guarantees:
//
//   - Uniqueness: no two live nodes hold one node ID (etcd's transaction
//     decides), and a node ID's next holder starts after every ID its
//     earlier holders issued, after a Close or a crash, even on a machine
//     whose clock is behind: a continuity record in etcd (a high-water mark
//     written ahead of the IDs, and the exact last ID on Close) is read in
//     the same transaction that takes the node ID.
//   - Failing closed: a node that cannot renew its lease stops minting
//     before the lease can expire on the server, measured on its monotonic
//     clock from the last keep-alive request that was answered, less a
//     safety margin of TTL/10 + 250 ms. From then on every generate call
//     returns [ErrLeaseLost] and [Node.Done] is closed. So two processes
//     do not mint under one node ID at the same time, whatever the network
//     does, as long as a process's clock runs within 10% of the server's
//     and a mint is not held up more than 250 ms between its clock read and
//     its return. Uniqueness does not rest on this: the record alone keeps
//     an old holder's IDs below its successor's.
//   - Speed: minting costs what [scru64.Generator.Generate] costs plus one
//     atomic load; it neither calls etcd nor allocates.
//
// # Keys
//
// Under the prefix P (default "/scru64/"), with node IDs as seven
// zero-padded decimal digits:
//
//	P + "size"           the realm's node ID size (no lease)
//	P + "node/0000042"   holder of node ID 42, attached to its lease
//	P + "last/0000042"   continuity record of node ID 42: a SCRU64 ID (no lease)
//
// All nodes under one prefix use one node ID size: the first node records
// it, and Acquire with another size returns a [*RealmError]. To run hot
// nodes with short node IDs beside cold nodes with long ones, give each
// kind its own prefix and node ID ranges whose leading bits differ
// ([WithNodeIDRange]), for example size 4 with range 0..7 and size 8 with
// range 128..255. To change a realm's size, stop its nodes, wait until the
// ticks of their records have passed (their IDs may have run up to 10 s
// ahead of the clock, and a crashed node's record 5 s more), and delete
// the prefix.
//
// # When the record is ahead of this node's clock
//
// A new holder continues after the record. If the record is ahead of its
// clock by up to [scru64.DefaultRollbackAllowance] (10 s), minting goes on
// at once, in the record's tick; that covers the next holder after a Close
// unless its clock is 10 s behind the last one's, and after a crash unless
// it is about 4.6 s behind (the record is then a high-water mark up to
// 5.4 s ahead of the old holder's clock); both shrink by however far
// counter overflows had run the old holder's IDs ahead of its clock.
// Further behind, [Node.Generate] returns [scru64.ErrClockRollback] and
// [Node.GenerateOrSleep] waits for the clock, as a plain generator does:
// IDs never go back.
//
// Testing needs a real etcd; this module's tests start one in-process with
// go.etcd.io/etcd/server/v3/embed.
package etcdnode

import (
	"context"
	"fmt"
	"strconv"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/fastid/scru128/internal/nodelease"
	"github.com/fastid/scru128/scru64"
)

// Errors returned by this package. Errors from etcd are wrapped with %w, so
// errors.Is and errors.As see through to them.
var (
	// ErrNoFreeNodeID means every node ID of the realm, or of the range
	// given to WithNodeIDRange or WithNodeID, is held by a live lease.
	ErrNoFreeNodeID = nodelease.ErrNoFreeNodeID
	// ErrLeaseLost means the node stopped minting: no keep-alive was
	// answered in time (the lease could have expired), the lease was
	// revoked, or the holder key is no longer the node's.
	ErrLeaseLost = nodelease.ErrLeaseLost
	// ErrClosed means Close was called (or the Node was not made by
	// Acquire).
	ErrClosed = nodelease.ErrClosed
	// ErrInvalidOption means an option's value was rejected; the error is
	// an [*OptionError].
	ErrInvalidOption = nodelease.ErrInvalidOption
	// ErrRealmMismatch means the realm under the prefix uses another node
	// ID size (the error is a [*RealmError]), or a continuity record there
	// is not one this package wrote.
	ErrRealmMismatch = nodelease.ErrRealmMismatch
)

// OptionError reports a rejected option: which, and why. It matches
// [ErrInvalidOption] under errors.Is.
type OptionError = nodelease.OptionError

// RealmError reports that the realm under a prefix records another node ID
// size. It matches [ErrRealmMismatch] under errors.Is.
type RealmError = nodelease.RealmError

// Default option values.
const (
	DefaultPrefix     = nodelease.DefaultPrefix     // "/scru64/"
	DefaultNodeIDSize = nodelease.DefaultNodeIDSize // 8: 256 nodes, 65,536 IDs per 256 ms each
	DefaultTTL        = nodelease.DefaultTTL        // 10 s
)

// Option configures Acquire.
type Option func(*options) error

type options struct{ cfg nodelease.Config }

// WithPrefix sets the key prefix under which node IDs are leased (default
// [DefaultPrefix]). Nodes under one prefix form one realm: one node ID size,
// node IDs unique among them. An empty prefix is an error.
func WithPrefix(prefix string) Option {
	return func(o *options) error { o.cfg.SetPrefix(prefix); return nil }
}

// WithNodeIDSize sets the node ID size in bits, 1 to 23 (default
// [DefaultNodeIDSize]): 2^size nodes can each mint 2^(24-size) IDs per
// 256-ms tick before borrowing from the next tick.
func WithNodeIDSize(size uint8) Option {
	return func(o *options) error { o.cfg.SetNodeIDSize(size); return nil }
}

// WithTTL sets the lease's time to live, a whole number of seconds, at
// least 1 (default [DefaultTTL]; etcd raises a TTL below its minimum, 2 s
// with default election settings). A crashed node's node ID is free again
// after about TTL; a node that loses contact with etcd stops minting after
// about 0.9 TTL - 250 ms.
func WithTTL(ttl time.Duration) Option {
	return func(o *options) error { o.cfg.SetTTL(ttl); return nil }
}

// WithNodeIDRange limits Acquire to node IDs min..max (inclusive), which
// must fit the node ID size; Acquire takes the lowest free one, or returns
// [ErrNoFreeNodeID].
func WithNodeIDRange(min, max uint32) Option {
	return func(o *options) error {
		o.cfg.HasRange, o.cfg.MinNodeID, o.cfg.MaxNodeID = true, min, max
		return nil
	}
}

// WithNodeID makes Acquire take exactly this node ID, or return
// [ErrNoFreeNodeID] if it is held. It is WithNodeIDRange(id, id).
func WithNodeID(id uint32) Option { return WithNodeIDRange(id, id) }

// WithClock sets the wall clock IDs are stamped from (default, or nil:
// time.Now), for tests and simulations; it is read about once a second and
// followed with the monotonic clock in between. The lease deadline always
// runs on the process's monotonic clock.
func WithClock(now func() time.Time) Option {
	return func(o *options) error { o.cfg.Wall = now; return nil }
}

// WithCounterMode sets the generator's counter mode (see
// [scru64.NewGeneratorWithCounterMode]; nil means its default).
func WithCounterMode(mode scru64.CounterMode) Option {
	return func(o *options) error { o.cfg.CounterMode = mode; return nil }
}

// optionName maps a nodelease.Config field to the option that sets it.
func optionName(field string) string {
	switch field {
	case "Prefix":
		return "WithPrefix"
	case "NodeIDSize":
		return "WithNodeIDSize"
	case "TTL":
		return "WithTTL"
	case "Range":
		return "WithNodeIDRange"
	case "Store":
		return "Acquire's client"
	}
	return field
}

// Node mints SCRU64 IDs under a node ID leased from etcd. Its methods are
// safe for concurrent use. A Node is done when its lease is lost or it is
// closed: Done is closed, and every generate call returns an error matching
// [ErrLeaseLost] or [ErrClosed]. Make one with [Acquire]; methods of a Node
// made otherwise return [ErrClosed].
type Node struct{ core *nodelease.Node }

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
// It returns an [*OptionError] for a bad option or a nil client, a
// [*RealmError] if the prefix's realm uses another node ID size,
// [ErrNoFreeNodeID] if every node ID is held, and etcd errors wrapped with
// %w. On error it revokes the lease it granted. ctx bounds Acquire only,
// not the Node's life.
func Acquire(ctx context.Context, client *clientv3.Client, opts ...Option) (*Node, error) {
	var o options
	for i, opt := range opts {
		if opt == nil {
			return nil, &OptionError{Option: "Acquire", Reason: "option " + strconv.Itoa(i) + " is nil"}
		}
		if err := opt(&o); err != nil {
			return nil, err
		}
	}
	var s nodelease.Store
	if client != nil {
		s = store{client}
	}
	core, err := nodelease.Acquire(ctx, s, o.cfg, optionName)
	if err != nil {
		return nil, err
	}
	return &Node{core}, nil
}

// Generate returns a new ID stamped with the clock. It returns an error
// matching [ErrLeaseLost] or [ErrClosed] once the node is done,
// [scru64.ErrClockRollback] if the clock is more than
// [scru64.DefaultRollbackAllowance] behind the last ID, and
// [scru64.ErrInvalidTimestamp] for a clock outside SCRU64's range. It does
// not allocate and, as long as the clock runs steadily, does not wait: the
// high-water mark in etcd is kept about 5 s ahead of the clock, and only if
// IDs outrun it (the clock stepped forward, or a burst overflowed the
// counter for seconds) does Generate wait for the next write of it.
func (n *Node) Generate() (scru64.ID, error) {
	if n == nil {
		return 0, errNotAcquired
	}
	return n.core.Generate() // nil-safe, so that this wrapper inlines
}

// GenerateOrSleep is Generate that, instead of returning
// [scru64.ErrClockRollback], waits for the clock to come back within the
// rollback allowance of the last ID. Its errors are those of Generate
// other than ErrClockRollback.
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

// Err returns nil while the node mints, and afterwards an error matching
// [ErrLeaseLost] or [ErrClosed] that says why it stopped.
func (n *Node) Err() error {
	if n == nil || n.core == nil {
		return errNotAcquired
	}
	return n.core.Err()
}

// Close stops minting, writes the last ID issued to the node ID's
// continuity record and revokes the lease, which frees the node ID; the
// next holder starts right after that ID. Afterwards every generate call
// returns [ErrClosed]. ctx bounds the two etcd requests.
//
// The node is closed whatever Close returns. It returns an error matching
// [ErrClosed] if the node was already closed, one matching [ErrLeaseLost]
// if the lease had been lost (the record then keeps the high-water mark,
// which is safe), and etcd errors wrapped with %w; a lease that could not
// be revoked expires after its TTL.
func (n *Node) Close(ctx context.Context) error {
	if n == nil || n.core == nil {
		return errNotAcquired
	}
	return n.core.Close(ctx)
}
