package etcdnode

import (
	"context"
	"errors"

	"go.etcd.io/etcd/api/v3/etcdserverpb"
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

func (s store) KeepAliveOnce(ctx context.Context, lease int64) (int64, error) {
	resp, err := s.c.KeepAliveOnce(ctx, clientv3.LeaseID(lease))
	if errors.Is(err, rpctypes.ErrLeaseNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	return resp.TTL, nil
}

func (s store) Revoke(ctx context.Context, lease int64) error {
	_, err := s.c.Revoke(ctx, clientv3.LeaseID(lease))
	if errors.Is(err, rpctypes.ErrLeaseNotFound) {
		return nil
	}
	return err
}

func (s store) PutIfAbsent(ctx context.Context, key, value string) (string, error) {
	resp, err := s.c.Txn(ctx).
		If(clientv3.Compare(clientv3.CreateRevision(key), "=", 0)).
		Then(clientv3.OpPut(key, value)).
		Else(clientv3.OpGet(key)).
		Commit()
	if err != nil {
		return "", err
	}
	if resp.Succeeded {
		return value, nil
	}
	return firstValue(resp.Responses[0].GetResponseRange()), nil
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
		).
		Else(clientv3.OpGet(req.RealmKey)).
		Commit()
	if err != nil {
		return nodelease.AcquireResult{}, err
	}
	if !resp.Succeeded {
		return nodelease.AcquireResult{RealmValue: firstValue(resp.Responses[0].GetResponseRange())}, nil
	}
	record := resp.Responses[1].GetResponseRange()
	return nodelease.AcquireResult{
		Acquired:  true,
		Record:    firstValue(record),
		HasRecord: len(record.GetKvs()) > 0,
	}, nil
}

func (s store) PutIfHolder(ctx context.Context, holderKey string, lease int64, recordKey, value string) (bool, error) {
	resp, err := s.c.Txn(ctx).
		If(clientv3.Compare(clientv3.LeaseValue(holderKey), "=", clientv3.LeaseID(lease))).
		Then(clientv3.OpPut(recordKey, value)).
		Commit()
	if err != nil {
		return false, err
	}
	return resp.Succeeded, nil
}

func (s store) DeleteIfHolder(ctx context.Context, holderKey string, lease int64, recordKey string) (bool, error) {
	resp, err := s.c.Txn(ctx).
		If(clientv3.Compare(clientv3.LeaseValue(holderKey), "=", clientv3.LeaseID(lease))).
		Then(clientv3.OpDelete(recordKey)).
		Commit()
	if err != nil {
		return false, err
	}
	return resp.Succeeded, nil
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

// firstValue returns the value of a range response's first key, or "".
func firstValue(r *etcdserverpb.RangeResponse) string {
	if kvs := r.GetKvs(); len(kvs) > 0 {
		return string(kvs[0].Value)
	}
	return ""
}
