package nodelease

import "context"

// Store is the part of etcd a [Node] uses: leases, four small transactions and
// a key listing. It is written as an interface so that the protocol lives
// once, here, while the etcd module implements it over clientv3 and the
// command-line tool over etcd's JSON gateway (internal/etcdhttp), which
// needs nothing but the standard library. Both run the same protocol tests
// against a real etcd server.
//
// Keys and values are byte strings. Every method is one etcd request, and
// a transaction's compares and operations are applied atomically by etcd,
// which is what the proofs in this package rely on. An implementation
// wraps transport and server errors with %w and must be safe for
// concurrent use.
type Store interface {
	// Grant creates a lease that lives ttl seconds unless renewed, and
	// returns its ID and the TTL the server granted (etcd raises a TTL
	// below its minimum).
	Grant(ctx context.Context, ttl int64) (lease int64, granted int64, err error)

	// KeepAliveOnce renews the lease once and returns the TTL it now has
	// from the server's receipt of the request. It returns 0 and no error
	// if the lease does not exist any more (expired or revoked).
	KeepAliveOnce(ctx context.Context, lease int64) (ttl int64, err error)

	// Revoke deletes the lease and every key attached to it. Revoking a
	// lease that does not exist is not an error.
	Revoke(ctx context.Context, lease int64) error

	// PutIfAbsent creates key with value, attached to no lease, unless the
	// key exists, and returns the value the key holds afterwards. One
	// transaction: if create_revision(key) = 0 then put else get.
	PutIfAbsent(ctx context.Context, key, value string) (current string, err error)

	// Acquire is the one transaction that takes a node ID:
	//
	//	if value(RealmKey) = RealmValue and create_revision(HolderKey) = 0
	//	then put HolderKey = HolderValue with lease Lease; get RecordKey
	//	else get RealmKey
	//
	// so a node ID is taken only if nobody holds it and the realm still has
	// the node ID size the caller uses, and the continuity record is read
	// in the same revision as the take.
	Acquire(ctx context.Context, req AcquireRequest) (AcquireResult, error)

	// PutIfHolder writes the continuity record (attached to no lease) only
	// if HolderKey exists and is attached to lease:
	//
	//	if lease(holderKey) = lease then put recordKey = value
	//
	// and reports whether it did. A node that lost its node ID can
	// therefore never change the record its successor relies on.
	PutIfHolder(ctx context.Context, holderKey string, lease int64, recordKey, value string) (bool, error)

	// DeleteIfHolder deletes the continuity record under the same guard as
	// PutIfHolder and reports whether the guard held.
	DeleteIfHolder(ctx context.Context, holderKey string, lease int64, recordKey string) (bool, error)

	// Keys returns up to limit keys (not values) in [from, end), in
	// ascending byte order.
	Keys(ctx context.Context, from, end string, limit int64) ([]string, error)
}

// AcquireRequest is the input of Store.Acquire.
type AcquireRequest struct {
	RealmKey, RealmValue   string
	HolderKey, HolderValue string
	Lease                  int64
	RecordKey              string
}

// AcquireResult is the outcome of Store.Acquire.
type AcquireResult struct {
	// Acquired reports whether the transaction's compares held and the
	// holder key was created.
	Acquired bool
	// Record and HasRecord are the continuity record read by the
	// transaction, when Acquired.
	Record    string
	HasRecord bool
	// RealmValue is the realm key's value ("" if absent), when not
	// Acquired: equal to the request's, the node ID was taken; different,
	// the realm's node ID size is not the caller's.
	RealmValue string
}
