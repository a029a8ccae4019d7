//go:build (unix && !aix) || windows

// Command scru128 mints and inspects time-ordered IDs: SCRU128 by default,
// and SCRU64, ULID, Ulid-Flake and the legacy SCRU128 form. It also measures
// this module on the machine it runs on.
//
// Install it with
//
//	go install github.com/fastid/scru128/cmd/scru128/...@latest
//
// which installs two binaries side by side: scru128, and scru128-etcd
// (cmd/scru128/scru128-etcd), the same tool with etcd's Go client linked
// in. scru128 links none of it (etcd's client, gRPC, protobuf, crypto/tls),
// so no run pays for their start-up; a gen -etcd run it hands over whole,
// before it opens or writes anything, to the scru128-etcd in its own
// directory (on Unix by exec, keeping the process; never one found on
// $PATH). Without that binary, with one of another version, or with one
// that a user who cannot change scru128 could change, gen -etcd fails
// with status 2 and says why; for a missing one or one of another
// version, with the command that installs both.
//
// Its commands:
//
//	scru128          print one new SCRU128 ID (scru128 gen)
//	scru128 ID ...   print the fields of IDs as JSON (scru128 inspect ID ...)
//	scru128 gen      print new IDs, one per line, or their UUID or hex forms
//	scru128 inspect  print the fields of IDs, UUIDs or hex as JSON
//	scru128 bench    measure minting, encoding and parsing on this machine
//	scru128 version  print the version and how the binary was built (also -V)
//
// scru128 help, and scru128 help <command>, describe every flag.
//
// inspect reads an ID by its length, or as the format -format names. It
// never picks one of two formats for an ID valid in both (ULID and the
// legacy form share 26 characters): it reports the ID on stderr with each
// reading instead, and -format chooses. It warns on stderr when the bytes
// of a UUID or hex input read as an ID dated more than a year ahead, as a
// random UUID's nearly always do.
//
// gen -state keeps its file ahead of every ID printed, so that a rerun
// after SIGKILL repeats none. gen ends within a second of SIGINT,
// SIGTERM, SIGHUP or another signal that ends a program (see endingSignals
// in internal/cli), whatever it is waiting for; started with SIGHUP ignored
// (by nohup), it leaves it ignored.
//
// The exit status is 0 on success; 1 when something failed, which stderr
// reports (an input that is not one valid ID, or is valid in two formats;
// output, a state file or etcd that could not be written or reached; etcd
// refusing the TLS handshake, the user or the keys; a lost etcd lease; data
// under the etcd prefix that no node wrote); 2 for a usage error (an etcd
// certificate file that cannot be read, and credentials inside an -etcd
// URL, included, and a gen -etcd run without a scru128-etcd of the same
// version beside scru128, or with one another user could change); and 128 plus the signal number (129, 130, 131,
// 143, ...) when SIGHUP, SIGINT, SIGQUIT, SIGTERM or another such signal
// ended gen.
package main

import (
	"os"

	"github.com/fastid/scru128/cmd/scru128/internal/cli"
)

func main() {
	os.Exit(cli.Main())
}
