//go:build (unix && !aix) || windows

package cli

// gen's etcd flags: defined here, so that scru128 parses and documents
// them as scru128-etcd does, and read by package etcdcli, which leases
// the node ID (see LeaseNode).

import (
	"flag"
	"time"

	"github.com/fastid/scru128/internal/nodelease"
)

// ConnField is a setting of gen's connection to etcd, which an
// [EtcdSetting] gives; the Field constants are its values.
type ConnField int

// The settings of gen's connection to etcd.
const (
	FieldEndpoints ConnField = iota + 1
	FieldCACert
	FieldCert
	FieldKey
	FieldUser
)

// EtcdSetting is one of gen's etcd flags: its name, the etcdctl
// environment variable it falls back on, and what it sets.
type EtcdSetting struct {
	Flag  string          // without the dash
	Env   string          // read when the flag is not given; "" for none
	Conn  ConnField       // the connection setting it gives, or 0
	Lease nodelease.Field // the lease's setting it gives, or 0
}

// EtcdSettings lists gen's etcd flags, -etcd first: the one place that
// knows which flag, or which environment variable, gives each setting, so
// that a message about a setting names what the user typed.
var EtcdSettings = []EtcdSetting{
	{Flag: "etcd", Conn: FieldEndpoints},
	{Flag: "etcd-prefix", Lease: nodelease.FieldPrefix},
	{Flag: "etcd-size", Lease: nodelease.FieldNodeIDSize},
	{Flag: "etcd-ttl", Lease: nodelease.FieldTTL},
	{Flag: "etcd-cacert", Env: "ETCDCTL_CACERT", Conn: FieldCACert},
	{Flag: "etcd-cert", Env: "ETCDCTL_CERT", Conn: FieldCert},
	{Flag: "etcd-key", Env: "ETCDCTL_KEY", Conn: FieldKey},
	{Flag: "etcd-user", Env: "ETCDCTL_USER", Conn: FieldUser},
}

// etcdFlagNames returns the names of the etcd flags, -etcd first.
func etcdFlagNames() []string {
	names := make([]string, len(EtcdSettings))
	for i, s := range EtcdSettings {
		names[i] = s.Flag
	}
	return names
}

// EtcdFlags are gen's etcd flags, parsed into FlagSet: -etcd, -etcd-prefix,
// -etcd-size and -etcd-ttl, and in Text, by flag name without the dash,
// those of [EtcdSettings] with an environment variable to fall back on.
type EtcdFlags struct {
	FlagSet   *flag.FlagSet
	Endpoints *string
	Prefix    *string
	Size      *uint
	TTL       *time.Duration
	// Text are the flags with an environment variable to fall back on.
	Text map[string]*string
}

// NewEtcdFlags defines gen's etcd flags in fs, and returns them.
func NewEtcdFlags(fs *flag.FlagSet) EtcdFlags {
	f := EtcdFlags{
		FlagSet:   fs,
		Endpoints: fs.String("etcd", "", ""),
		Prefix:    fs.String("etcd-prefix", nodelease.DefaultPrefix, ""),
		Size:      fs.Uint("etcd-size", nodelease.DefaultNodeIDSize, ""),
		TTL:       fs.Duration("etcd-ttl", nodelease.DefaultTTL, ""),
		Text:      map[string]*string{},
	}
	for _, s := range EtcdSettings {
		if s.Env != "" {
			f.Text[s.Flag] = fs.String(s.Flag, "", "")
		}
	}
	return f
}
