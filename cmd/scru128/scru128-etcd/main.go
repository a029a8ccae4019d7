//go:build (unix && !aix) || windows

// Command scru128-etcd is the scru128 tool with etcd's Go client linked in:
// the binary that runs gen -etcd, which scru128 hands over to it. One go
// install of cmd/scru128/... installs both, side by side; scru128-etcd may
// be run itself too, as scru128. See cmd/scru128 for the commands.
package main

import (
	"os"

	"github.com/fastid/scru128/cmd/scru128/internal/cli"
	"github.com/fastid/scru128/cmd/scru128/internal/etcdcli"
)

func main() {
	etcdcli.Register()
	os.Exit(cli.Main())
}
