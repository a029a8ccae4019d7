package etcdnode

import (
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/fastid/scru128/internal/nodelease"
)

// StoreOf exposes the clientv3 Store to the protocol tests.
func StoreOf(c *clientv3.Client) nodelease.Store { return newStore(c) }
