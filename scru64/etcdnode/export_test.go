package etcdnode

import (
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/fastid/scru128/internal/nodelease"
)

// StoreOf exposes the clientv3 Store to the protocol tests, which run it
// beside internal/etcdhttp's.
func StoreOf(c *clientv3.Client) nodelease.Store { return newStore(c) }
