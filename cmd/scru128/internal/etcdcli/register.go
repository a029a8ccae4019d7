//go:build (unix && !aix) || windows

// Package etcdcli is the scru128 tool's gen -etcd: a SCRU64 node ID leased
// from etcd with package etcdnode over etcd's Go client. It is linked into
// scru128-etcd only, which calls [Register]; scru128 hands a gen -etcd run
// over to that binary, and so starts without etcd's client, gRPC and
// crypto/tls.
package etcdcli

import (
	"io"
	"os"

	"google.golang.org/grpc/grpclog"

	"github.com/fastid/scru128/cmd/scru128/internal/cli"
)

// Register makes package cli lease gen -etcd's node ID here, and silences
// gRPC's logging unless $ETCD_CLIENT_DEBUG is set. Call it before
// cli.Main, once.
func Register() {
	if os.Getenv("ETCD_CLIENT_DEBUG") == "" {
		// gRPC, under etcd's client, logs to stderr, which is the tool's
		// own: the tool reports what fails, in its words.
		grpclog.SetLoggerV2(grpclog.NewLoggerV2(io.Discard, io.Discard, io.Discard))
	}
	cli.LeaseNode = acquireNode
}
