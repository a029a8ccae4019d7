package etcdnode

import (
	"cmp"
	"context"
	"errors"
	"strconv"
	"time"

	"go.etcd.io/etcd/api/v3/etcdserverpb"
	"go.etcd.io/etcd/api/v3/mvccpb"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"google.golang.org/grpc"
	"google.golang.org/grpc/connectivity"

	"github.com/fastid/scru128/internal/nodelease"
)

// store is the nodelease.Store over clientv3: each method is one request,
// each transaction the one its Store method documents.
//
// Every request requires a leader (clientv3.WithRequireLeader): a member
// cut off from the others answers "etcdserver: no leader" at once instead
// of holding the request until its own timeout, and the protocol sends it
// again, which clientv3's round robin gives to another member. (clientv3
// sends a read or a lease request again by itself after such an answer; a
// transaction never, nor a request that has hung: the protocol does.)
//
// Every answer is capped in bytes, far below clientv3's default (2 GiB),
// so that a broken proxy or a man in the middle cannot make the node
// allocate what it claims to send: a listing to what its limit of keys can
// take, anything else to maxAnswer.
type store struct {
	c     *clientv3.Client
	keys  etcdserverpb.KVClient // clientv3's, which sends reads again after "unavailable"
	kv    clientv3.KV           // over keys, its answers capped at maxAnswer
	lease clientv3.Lease        // over clientv3's, its answers capped at maxAnswer
	renew *keepAlives           // the node's keep-alives, on one stream
}

// maxAnswer caps an answer other than a listing: a transaction reads three
// small keys, a lease answer is a few numbers. It leaves room for values
// up to etcd's largest request (1.5 MiB by default), which a key of the
// prefix holds only if something else wrote it.
const maxAnswer = 4 << 20

func newStore(c *clientv3.Client) store {
	keys := clientv3.RetryKVClient(c)
	leases := cappedLease{clientv3.RetryLeaseClient(c)}
	return store{
		c:     c,
		keys:  keys,
		kv:    clientv3.NewKVFromKVClient(cappedKV{keys, maxAnswer}, c),
		lease: clientv3.NewLeaseFromLeaseClient(leases, c, 5*time.Second),
		renew: &keepAlives{client: leases, conn: c.ActiveConnection(), turn: make(chan struct{}, 1)},
	}
}

var _ nodelease.Store = store{}

func (s store) Grant(ctx context.Context, ttl int64) (int64, int64, error) {
	resp, err := s.lease.Grant(clientv3.WithRequireLeader(ctx), ttl)
	if err != nil {
		return 0, 0, err
	}
	return int64(resp.ID), resp.TTL, nil
}

func (s store) KeepAliveOnce(ctx context.Context, lease int64) (int64, nodelease.Header, error) {
	resp, err := s.renew.once(ctx, lease)
	if err != nil {
		return 0, nodelease.Header{}, err
	}
	if resp.TTL <= 0 {
		// The lease is gone. The answer's header tells whether the member
		// that answered is behind the cluster.
		return 0, header(resp.Header), nil
	}
	return resp.TTL, header(resp.Header), nil
}

// keepAlives sends a node's keep-alives on one LeaseKeepAlive stream, kept
// open from one renewal to the next. clientv3's KeepAliveOnce opens a
// stream for each, and clientv3 authenticates every stream it opens: with
// a user and password, each keep-alive cost etcd an Authenticate (a
// password hash, a linearizable read, a raft entry, and a token kept for
// minutes). Kept open, the stream authenticates once. It is opened again
// only after it failed, or after a renewal on it ended before its answer
// came (whose answer the next renewal must not take for its own). A
// renewal sent while the kept stream is busy (the node hedges a keep-alive
// that a slow member holds up) goes on a stream of its own, as before, so
// that it is never held up behind the slow one.
type keepAlives struct {
	client etcdserverpb.LeaseClient
	conn   *grpc.ClientConn // the client's, watched while a stream is kept
	turn   chan struct{}    // held by the renewal on the kept stream

	stream etcdserverpb.Lease_LeaseKeepAliveClient // the kept stream; nil: none open
	cancel context.CancelFunc                      // ends stream
}

// once renews lease within ctx, on the kept stream if no other renewal
// holds it, else on a stream of its own.
func (k *keepAlives) once(ctx context.Context, lease int64) (*etcdserverpb.LeaseKeepAliveResponse, error) {
	select {
	case k.turn <- struct{}{}:
		defer func() { <-k.turn }()
		return k.onKept(ctx, lease)
	default:
		sctx, cancel := context.WithCancel(clientv3.WithRequireLeader(ctx))
		defer cancel()
		stream, err := k.client.LeaseKeepAlive(sctx)
		if err != nil {
			return nil, clientv3.ContextError(ctx, err)
		}
		resp, err := keepAlive(stream, lease)
		return resp, clientv3.ContextError(ctx, err)
	}
}

// onKept renews lease on the kept stream, opening one if none is open. An
// error, or ctx ending before the answer, closes the stream.
func (k *keepAlives) onKept(ctx context.Context, lease int64) (*etcdserverpb.LeaseKeepAliveResponse, error) {
	if k.stream == nil {
		// The stream outlives this call, so its context is not ctx; while
		// the call lasts, ctx ending ends the stream.
		sctx, cancel := context.WithCancel(clientv3.WithRequireLeader(context.Background()))
		stop := context.AfterFunc(ctx, cancel)
		stream, err := k.client.LeaseKeepAlive(sctx)
		if !stop() || err != nil {
			cancel()
			return nil, clientv3.ContextError(ctx, cmp.Or(err, ctx.Err()))
		}
		k.stream, k.cancel = stream, cancel
		go k.closeWhenDraining(sctx, cancel)
	}
	stop := context.AfterFunc(ctx, k.cancel)
	resp, err := keepAlive(k.stream, lease)
	if !stop() && err == nil {
		err = ctx.Err() // the answer came as ctx ended, which closed the stream
	}
	if err != nil {
		k.cancel()
		k.stream, k.cancel = nil, nil
		return nil, clientv3.ContextError(ctx, err)
	}
	return resp, nil
}

// close closes the kept stream, if one is open; k may be nil. A renewal
// after it opens a new one.
func (k *keepAlives) close() {
	if k == nil {
		return
	}
	k.turn <- struct{}{}
	defer func() { <-k.turn }()
	if k.stream != nil {
		k.cancel()
		k.stream, k.cancel = nil, nil
	}
}

// closeWhenDraining ends a kept stream (cancel ends sctx) as soon as the
// client's connection leaves the ready state: a member that stops (a
// restart, a rolling upgrade) sends GOAWAY and then waits, up to its
// request timeout (5 s and more), for open streams to end before it lets
// go of its port and starts again. A stream kept open through that would
// hold up the restart, and every request meanwhile.
func (k *keepAlives) closeWhenDraining(sctx context.Context, cancel context.CancelFunc) {
	if k.conn == nil {
		return
	}
	for state := k.conn.GetState(); state == connectivity.Ready; state = k.conn.GetState() {
		if !k.conn.WaitForStateChange(sctx, state) {
			return // the stream ended first
		}
	}
	cancel()
}

// keepAlive sends one keep-alive of lease on stream and returns the answer,
// which must be for lease.
func keepAlive(stream etcdserverpb.Lease_LeaseKeepAliveClient, lease int64) (*etcdserverpb.LeaseKeepAliveResponse, error) {
	if err := stream.Send(&etcdserverpb.LeaseKeepAliveRequest{ID: lease}); err != nil {
		return nil, err
	}
	resp, err := stream.Recv()
	if err == nil && resp.ID != lease {
		return nil, &nodelease.DataError{Reason: "a keep-alive of lease " + strconv.FormatInt(lease, 16) +
			" was answered for lease " + strconv.FormatInt(resp.ID, 16)}
	}
	return resp, err
}

// Transient reports whether err is a member's "no leader": every member
// answers so at once while the cluster elects a leader (an election
// timeout or two), and a member cut off from the others until it can
// reach them again, which the next request, to another member, avoids.
func (store) Transient(err error) bool {
	return errors.Is(err, rpctypes.ErrNoLeader) || rpctypes.ErrorDesc(err) == rpctypes.ErrorDesc(rpctypes.ErrGRPCNoLeader)
}

func (s store) Revoke(ctx context.Context, lease int64) error {
	_, err := s.lease.Revoke(clientv3.WithRequireLeader(ctx), clientv3.LeaseID(lease))
	if errors.Is(err, rpctypes.ErrLeaseNotFound) {
		return nil
	}
	return err
}

func (s store) PutIfAbsent(ctx context.Context, key, value string) (string, nodelease.Header, error) {
	resp, err := s.kv.Txn(clientv3.WithRequireLeader(ctx)).
		If(clientv3.Compare(clientv3.CreateRevision(key), "=", 0)).
		Then(clientv3.OpPut(key, value)).
		Else(clientv3.OpGet(key)).
		Commit()
	if err != nil {
		return "", nodelease.Header{}, err
	}
	if resp.Succeeded {
		return value, header(resp.Header), nil
	}
	got, err := reads(resp, 1, 0)
	if err != nil {
		return "", nodelease.Header{}, err
	}
	return string(first(got[0]).GetValue()), header(resp.Header), nil
}

func (s store) Acquire(ctx context.Context, req nodelease.AcquireRequest) (nodelease.AcquireResult, error) {
	resp, err := s.kv.Txn(clientv3.WithRequireLeader(ctx)).
		If(
			clientv3.Compare(clientv3.Value(req.RealmKey), "=", req.RealmValue),
			clientv3.Compare(clientv3.CreateRevision(req.HolderKey), "=", 0),
		).
		Then(
			clientv3.OpPut(req.HolderKey, req.HolderValue, clientv3.WithLease(clientv3.LeaseID(req.Lease))),
			clientv3.OpGet(req.RecordKey),
			clientv3.OpGet(req.RealmKey, clientv3.WithKeysOnly()),
		).
		Else(
			clientv3.OpGet(req.RealmKey),
			clientv3.OpGet(req.HolderKey), // not keys-only, for the lease
			clientv3.OpGet(req.RecordKey),
		).
		Commit()
	if err != nil {
		return nodelease.AcquireResult{}, err
	}
	if !resp.Succeeded {
		got, err := reads(resp, 3, 0, 1, 2)
		if err != nil {
			return nodelease.AcquireResult{}, err
		}
		realm := first(got[0])
		return nodelease.AcquireResult{
			Header:              header(resp.Header),
			RealmValue:          string(realm.GetValue()),
			RealmCreateRevision: realm.GetCreateRevision(),
			HolderLease:         first(got[1]).GetLease(),
			Record:              record(first(got[2])),
		}, nil
	}
	got, err := reads(resp, 3, 1, 2) // after the put's answer
	if err != nil {
		return nodelease.AcquireResult{}, err
	}
	return nodelease.AcquireResult{
		Header:              header(resp.Header),
		Acquired:            true,
		Record:              record(first(got[0])),
		RealmCreateRevision: first(got[1]).GetCreateRevision(),
	}, nil
}

func (s store) WriteRecord(ctx context.Context, w nodelease.RecordWrite) (nodelease.RecordResult, error) {
	write := clientv3.OpPut(w.RecordKey, w.Value)
	if w.Delete {
		write = clientv3.OpDelete(w.RecordKey)
	}
	resp, err := s.kv.Txn(clientv3.WithRequireLeader(ctx)).
		If(
			clientv3.Compare(clientv3.LeaseValue(w.HolderKey), "=", clientv3.LeaseID(w.Lease)),
			clientv3.Compare(clientv3.ModRevision(w.RecordKey), "=", w.ModRevision),
			clientv3.Compare(clientv3.CreateRevision(w.RealmKey), "=", w.RealmCreateRevision),
		).
		Then(write).
		Else(
			clientv3.OpGet(w.RecordKey),
			clientv3.OpGet(w.HolderKey), // not keys-only: etcd's fast keys-only range leaves out the lease
			clientv3.OpGet(w.RealmKey, clientv3.WithKeysOnly()),
		).
		Commit()
	if err != nil {
		return nodelease.RecordResult{}, err
	}
	if resp.Succeeded {
		return nodelease.RecordResult{Header: header(resp.Header), Written: true}, nil
	}
	got, err := reads(resp, 3, 0, 1, 2)
	if err != nil {
		return nodelease.RecordResult{}, err
	}
	return nodelease.RecordResult{
		Header:              header(resp.Header),
		Record:              record(first(got[0])),
		HolderLease:         first(got[1]).GetLease(),
		RealmCreateRevision: first(got[2]).GetCreateRevision(),
	}, nil
}

// Keys lists with an answer capped to what limit keys of the form asked
// for take, so that an answer of many small (or empty) entries is refused
// by its length: the protocol checks each key it gets, and their number.
func (s store) Keys(ctx context.Context, from, end string, limit int64) ([]string, error) {
	kv := clientv3.NewKVFromKVClient(cappedKV{s.keys, keysAnswer(end, limit)}, s.c)
	resp, err := kv.Get(clientv3.WithRequireLeader(ctx), from,
		clientv3.WithRange(end), clientv3.WithKeysOnly(), clientv3.WithLimit(limit))
	if err != nil {
		return nil, err
	}
	keys := make([]string, len(resp.Kvs))
	for i, kv := range resp.Kvs {
		keys[i] = string(kv.GetKey())
	}
	return keys, nil
}

// keysAnswer returns the largest answer to a listing of up to limit keys
// about as long as end: each key-value pair of a keys-only listing is its
// key and four numbers of up to ten bytes each, with a few bytes of
// framing; the header is a few numbers more.
func keysAnswer(end string, limit int64) int {
	const perKey, header = 64, 1024
	return int(min(min(limit, 1<<20)*int64(len(end)+perKey)+header, 1<<30)) // an int on 32-bit platforms too
}

// cappedKV is clientv3's KV client with its answers capped at max bytes.
type cappedKV struct {
	etcdserverpb.KVClient
	max int
}

func (c cappedKV) Range(ctx context.Context, in *etcdserverpb.RangeRequest, opts ...grpc.CallOption) (*etcdserverpb.RangeResponse, error) {
	return c.KVClient.Range(ctx, in, append(opts, grpc.MaxCallRecvMsgSize(c.max))...)
}

func (c cappedKV) Txn(ctx context.Context, in *etcdserverpb.TxnRequest, opts ...grpc.CallOption) (*etcdserverpb.TxnResponse, error) {
	return c.KVClient.Txn(ctx, in, append(opts, grpc.MaxCallRecvMsgSize(c.max))...)
}

// cappedLease is clientv3's lease client with its answers capped at
// maxAnswer bytes.
type cappedLease struct{ etcdserverpb.LeaseClient }

func (c cappedLease) LeaseGrant(ctx context.Context, in *etcdserverpb.LeaseGrantRequest, opts ...grpc.CallOption) (*etcdserverpb.LeaseGrantResponse, error) {
	return c.LeaseClient.LeaseGrant(ctx, in, append(opts, grpc.MaxCallRecvMsgSize(maxAnswer))...)
}

func (c cappedLease) LeaseRevoke(ctx context.Context, in *etcdserverpb.LeaseRevokeRequest, opts ...grpc.CallOption) (*etcdserverpb.LeaseRevokeResponse, error) {
	return c.LeaseClient.LeaseRevoke(ctx, in, append(opts, grpc.MaxCallRecvMsgSize(maxAnswer))...)
}

func (c cappedLease) LeaseKeepAlive(ctx context.Context, opts ...grpc.CallOption) (etcdserverpb.Lease_LeaseKeepAliveClient, error) {
	return c.LeaseClient.LeaseKeepAlive(ctx, append(opts, grpc.MaxCallRecvMsgSize(maxAnswer))...)
}

// reads returns the answers to the gets of a transaction's branch of ops
// operations, the gets at the indexes given. An answer of another shape is
// one etcd never gives (a broken proxy's), and an error, not an index out
// of range.
func reads(resp *clientv3.TxnResponse, ops int, gets ...int) ([]*etcdserverpb.RangeResponse, error) {
	got := make([]*etcdserverpb.RangeResponse, len(gets))
	for i, at := range gets {
		if len(resp.Responses) == ops {
			got[i] = resp.Responses[at].GetResponseRange()
		}
		if got[i] == nil {
			return nil, &nodelease.DataError{Reason: "a transaction of " + strconv.Itoa(ops) + " operations was answered with " +
				strconv.Itoa(len(resp.Responses)) + " responses, or without a read where it asked for one"}
		}
	}
	return got, nil
}

// first returns a range response's first key-value pair, or nil (whose
// getters return zero values).
func first(r *etcdserverpb.RangeResponse) *mvccpb.KeyValue {
	if kvs := r.GetKvs(); len(kvs) > 0 {
		return kvs[0]
	}
	return nil
}

// record returns kv as a continuity record.
func record(kv *mvccpb.KeyValue) nodelease.Record {
	return nodelease.Record{Value: string(kv.GetValue()), ModRevision: kv.GetModRevision()}
}

// header returns what a node checks of an answer's header.
func header(h *etcdserverpb.ResponseHeader) nodelease.Header {
	return nodelease.Header{ClusterID: h.GetClusterId(), Revision: h.GetRevision()}
}
