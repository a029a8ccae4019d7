package etcdnode

import (
	"context"
	"errors"

	"go.etcd.io/etcd/api/v3/etcdserverpb"
	"go.etcd.io/etcd/api/v3/mvccpb"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/fastid/scru128/internal/nodelease"
)

// store is the nodelease.Store over clientv3: each method is one request,
// each transaction the one its Store method documents.
type store struct{ c *clientv3.Client }

var _ nodelease.Store = store{}

func (s store) Grant(ctx context.Context, ttl int64) (int64, int64, error) {
	resp, err := s.c.Grant(ctx, ttl)
	if err != nil {
		return 0, 0, err
	}
	return int64(resp.ID), resp.TTL, nil
}

func (s store) KeepAliveOnce(ctx context.Context, lease int64) (int64, nodelease.Header, error) {
	resp, err := s.c.KeepAliveOnce(ctx, clientv3.LeaseID(lease))
	if errors.Is(err, rpctypes.ErrLeaseNotFound) {
		return 0, nodelease.Header{}, nil
	}
	if err != nil {
		return 0, nodelease.Header{}, err
	}
	return resp.TTL, header(resp.ResponseHeader), nil
}

func (s store) Revoke(ctx context.Context, lease int64) error {
	_, err := s.c.Revoke(ctx, clientv3.LeaseID(lease))
	if errors.Is(err, rpctypes.ErrLeaseNotFound) {
		return nil
	}
	return err
}

func (s store) PutIfAbsent(ctx context.Context, key, value string) (string, nodelease.Header, error) {
	resp, err := s.c.Txn(ctx).
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
	return string(first(resp.Responses[0].GetResponseRange()).GetValue()), header(resp.Header), nil
}

func (s store) Acquire(ctx context.Context, req nodelease.AcquireRequest) (nodelease.AcquireResult, error) {
	resp, err := s.c.Txn(ctx).
		If(
			clientv3.Compare(clientv3.Value(req.RealmKey), "=", req.RealmValue),
			clientv3.Compare(clientv3.CreateRevision(req.HolderKey), "=", 0),
		).
		Then(
			clientv3.OpPut(req.HolderKey, req.HolderValue, clientv3.WithLease(clientv3.LeaseID(req.Lease))),
			clientv3.OpGet(req.RecordKey),
			clientv3.OpGet(req.RealmKey, clientv3.WithKeysOnly()),
		).
		Else(clientv3.OpGet(req.RealmKey)).
		Commit()
	if err != nil {
		return nodelease.AcquireResult{}, err
	}
	if !resp.Succeeded {
		realm := first(resp.Responses[0].GetResponseRange())
		return nodelease.AcquireResult{Header: header(resp.Header), RealmValue: string(realm.GetValue())}, nil
	}
	return nodelease.AcquireResult{
		Header:              header(resp.Header),
		Acquired:            true,
		Record:              record(first(resp.Responses[1].GetResponseRange())),
		RealmCreateRevision: first(resp.Responses[2].GetResponseRange()).GetCreateRevision(),
	}, nil
}

func (s store) WriteRecord(ctx context.Context, w nodelease.RecordWrite) (nodelease.RecordResult, error) {
	write := clientv3.OpPut(w.RecordKey, w.Value)
	if w.Delete {
		write = clientv3.OpDelete(w.RecordKey)
	}
	resp, err := s.c.Txn(ctx).
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
	return nodelease.RecordResult{
		Header:              header(resp.Header),
		Record:              record(first(resp.Responses[0].GetResponseRange())),
		HolderLease:         first(resp.Responses[1].GetResponseRange()).GetLease(),
		RealmCreateRevision: first(resp.Responses[2].GetResponseRange()).GetCreateRevision(),
	}, nil
}

func (s store) Keys(ctx context.Context, from, end string, limit int64) ([]string, error) {
	resp, err := s.c.Get(ctx, from, clientv3.WithRange(end), clientv3.WithKeysOnly(), clientv3.WithLimit(limit))
	if err != nil {
		return nil, err
	}
	keys := make([]string, len(resp.Kvs))
	for i, kv := range resp.Kvs {
		keys[i] = string(kv.Key)
	}
	return keys, nil
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
