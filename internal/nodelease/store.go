package nodelease

import "context"

// Store is the part of etcd a [Node] uses: leases, three small transactions
// and a key listing. It is written as an interface so that the protocol lives
// once, here, in the root module, which may not require a store's client,
// while module scru64/etcdnode implements it over clientv3 and runs the
// protocol tests against a real etcd server, and module scru64/pgnode over
// PostgreSQL, giving a database etcd's semantics (see "Stores other than
// etcd" in the package doc).
//
// Keys and values are byte strings. Every method is one etcd request, and
// a transaction's compares and operations are applied atomically by etcd,
// which is what the proofs in this package rely on. Methods that return a
// [Header] return the header of etcd's answer, which the node uses to
// notice a server that lost or rewound its data. An implementation wraps
// transport and server errors with %w (the node escapes their text when it
// shows it), returns a [*DataError] for an answer of another shape than
// the request's, bounds the bytes it reads of an answer (a listing to what
// its limit of keys takes), and must be safe for concurrent use: the node
// sends a keep-alive beside one that is slow to answer.
type Store interface {
	// Grant creates a lease that lives ttl seconds unless renewed, and
	// returns its ID, never 0 (which stands for no lease), and the TTL
	// the server granted (etcd raises a TTL below its minimum).
	Grant(ctx context.Context, ttl int64) (lease int64, granted int64, err error)

	// KeepAliveOnce renews the lease once and returns the TTL it now has
	// from the server's receipt of the request. It returns 0 and no error
	// if the lease does not exist any more (expired or revoked), with the
	// answer's header all the same: a revision below what the node has
	// seen marks a member behind the others, which the node asks again.
	KeepAliveOnce(ctx context.Context, lease int64) (ttl int64, h Header, err error)

	// Revoke deletes the lease and every key attached to it. Revoking a
	// lease that does not exist is not an error.
	Revoke(ctx context.Context, lease int64) error

	// PutIfAbsent creates key with value, attached to no lease, unless the
	// key exists, and returns the value the key holds afterwards. One
	// transaction: if create_revision(key) = 0 then put else get.
	PutIfAbsent(ctx context.Context, key, value string) (current string, h Header, err error)

	// Acquire is the one transaction that takes a node ID:
	//
	//	if value(RealmKey) = RealmValue and create_revision(HolderKey) = 0
	//	then put HolderKey = HolderValue with lease Lease; get RecordKey; get RealmKey
	//	else get RealmKey; get HolderKey; get RecordKey
	//
	// so a node ID is taken only if nobody holds it and the realm still has
	// the node ID size the caller uses, and the continuity record is read
	// in the same revision as the take. The failure branch reads what a
	// node needs to tell a node ID held by another lease from one that an
	// earlier try of its own took, whose answer was lost.
	Acquire(ctx context.Context, req AcquireRequest) (AcquireResult, error)

	// WriteRecord is the one transaction that writes the continuity record,
	// fenced:
	//
	//	if lease(HolderKey) = Lease and mod_revision(RecordKey) = ModRevision
	//	   and create_revision(RealmKey) = RealmCreateRevision
	//	then put RecordKey = Value (attached to no lease), or delete RecordKey if Delete
	//	else get RecordKey; get HolderKey; get RealmKey
	//
	// so it applies only while the caller holds the node ID and the record
	// is exactly the one it last knew of: a write that arrives late, twice,
	// or after a newer one fails its compare. When the compare fails, the
	// result says what was found instead.
	WriteRecord(ctx context.Context, w RecordWrite) (RecordResult, error)

	// Keys returns up to limit keys (not values) in [from, end), in
	// ascending byte order.
	Keys(ctx context.Context, from, end string, limit int64) ([]string, error)
}

// Transient is what a Store may implement to say which of its failures
// are transient: refusals that come at once and pass by themselves within
// seconds, as every etcd member's "no leader" does while the cluster elects
// one. The node waits and tries such a failure again for as long as its
// attempts would last, rather than spend an attempt on it (in Acquire's
// steps, Close's, and the bound loop's rounds of writes of the record).
// Without it, every failure is an attempt.
type Transient interface {
	Transient(err error) bool
}

// Header is what a node reads from the header of an etcd answer.
type Header struct {
	// ClusterID identifies the cluster (0 if the answer had none).
	ClusterID uint64
	// Revision is the store's revision when the request was served.
	Revision int64
	// Timeline identifies the cluster's history, for a store whose
	// history forks where it may lose writes it acknowledged: PostgreSQL's
	// timeline, which a promoted replica or a recovery to a point in time
	// starts anew. 0 if the store has none (etcd) or did not say; a node
	// stops when it changes, as when ClusterID does.
	Timeline uint64
}

// Record is a continuity record as etcd holds it.
type Record struct {
	Value string
	// ModRevision is the revision of the record's last write, 0 if the key
	// does not exist.
	ModRevision int64
}

// Exists reports whether the record key exists.
func (r Record) Exists() bool { return r.ModRevision != 0 }

// AcquireRequest is the input of Store.Acquire.
type AcquireRequest struct {
	RealmKey, RealmValue   string
	HolderKey, HolderValue string
	Lease                  int64
	RecordKey              string
}

// AcquireResult is the outcome of Store.Acquire.
type AcquireResult struct {
	Header Header
	// Acquired reports whether the transaction's compares held and the
	// holder key was created.
	Acquired bool
	// Record is the continuity record read by the transaction, and
	// RealmCreateRevision the realm key's create revision, in either
	// branch.
	Record              Record
	RealmCreateRevision int64
	// RealmValue is the realm key's value ("" if absent), when not
	// Acquired: equal to the request's, the node ID was taken; different,
	// the realm's node ID size is not the caller's.
	RealmValue string
	// HolderLease is the lease the holder key is attached to (0 if it
	// does not exist), when not Acquired: the request's own lease means
	// that an earlier try of the same transaction took the node ID.
	HolderLease int64
}

// RecordWrite is the input of Store.WriteRecord.
type RecordWrite struct {
	HolderKey           string
	Lease               int64
	RecordKey           string
	ModRevision         int64 // the record's mod revision the write expects; 0: absent
	RealmKey            string
	RealmCreateRevision int64
	Value               string
	Delete              bool // delete the record instead of writing Value
}

// RecordResult is the outcome of Store.WriteRecord.
type RecordResult struct {
	Header Header
	// Written reports whether the compares held and the record was
	// written (or deleted); its new mod revision is then Header.Revision
	// (0 after a delete).
	Written bool
	// When not Written, what the failure branch read: the record, the
	// lease the holder key is attached to (0 if the key does not exist)
	// and the realm key's create revision (0 if it does not exist).
	Record              Record
	HolderLease         int64
	RealmCreateRevision int64
}
