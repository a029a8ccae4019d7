package nodelease

import (
	"strconv"
	"time"

	"github.com/fastid/scru128/scru64"
)

// Defaults of a [Config] made by [DefaultConfig].
const (
	DefaultPrefix     = "/scru64/"
	DefaultNodeIDSize = 8
	DefaultTTL        = 10 * time.Second
)

// maxTTLSeconds is etcd's largest lease TTL in seconds (lease.MaxLeaseTTL),
// and maxTTL that as a Duration: about 285 years, which a Duration holds
// (its largest is about 292).
const (
	maxTTLSeconds = 9_000_000_000
	maxTTL        = maxTTLSeconds * time.Second
)

// Config says which node ID to lease and how. Start from [DefaultConfig]:
// every field is taken as given, and Check rejects a zero where zero is not
// a valid value.
type Config struct {
	// Prefix is put before every key; it may not be empty.
	Prefix string
	// NodeIDSize is the node ID size, 1 to 23. Every node under one prefix
	// uses the same size.
	NodeIDSize uint8
	// TTL is the lease's time to live, a whole number of seconds, at least
	// one.
	TTL time.Duration
	// HasRange limits the node IDs taken to MinNodeID..MaxNodeID.
	HasRange             bool
	MinNodeID, MaxNodeID uint32
	// Wall is the wall clock IDs are stamped from (time.Now if nil). The
	// lease deadline always runs on the process's monotonic clock.
	Wall func() time.Time
	// CounterMode is passed to scru64.NewGeneratorWithCounterMode.
	CounterMode scru64.CounterMode
	// ErrorPrefix, if set, is the name of the package whose users see the
	// errors: every error that Acquire and the Node's methods return
	// (other than the scru64 package's own) is then a [*PrefixedError]
	// with it, "etcdnode: lease lost: ...", made once where the node keeps
	// it, so that returning it allocates nothing. Empty, the errors are
	// returned bare, for a caller that puts its own words first.
	ErrorPrefix string
	// StoreName names the store in the texts of errors that speak of it,
	// for example "PostgreSQL" ("PostgreSQL lost or rewound data: ...");
	// empty means etcd.
	StoreName string
	// ClusterChanged, if set, is what else than another cluster answering
	// a change of the cluster ID an answer carries can mean in this store,
	// for the text of the error that ends the node: PostgreSQL's store
	// changes it when its tables are emptied.
	ClusterChanged string
}

// DefaultConfig returns a Config with [DefaultPrefix], [DefaultNodeIDSize]
// and [DefaultTTL], any node ID of that size, time.Now and the default
// counter mode.
func DefaultConfig() Config {
	return Config{Prefix: DefaultPrefix, NodeIDSize: DefaultNodeIDSize, TTL: DefaultTTL}
}

// Check returns an [*OptionError] for the first value that is out of
// range, or nil.
func (c *Config) Check() error {
	fail := func(field Field, reason string) error { return &OptionError{Field: field, Reason: reason} }
	if c.Prefix == "" {
		return fail(FieldPrefix, "the prefix is empty (keys would share etcd's root with everything else)")
	}
	if c.NodeIDSize < 1 || c.NodeIDSize > 23 {
		return fail(FieldNodeIDSize, "node ID size "+strconv.Itoa(int(c.NodeIDSize))+" is not in 1..23")
	}
	switch {
	case c.TTL < time.Second:
		return fail(FieldTTL, c.TTL.String()+" is below 1s")
	case c.TTL%time.Second != 0:
		return fail(FieldTTL, c.TTL.String()+" is not a whole number of seconds (etcd leases count seconds)")
	case c.TTL > maxTTL:
		return fail(FieldTTL, c.TTL.String()+" is above etcd's largest lease TTL, 9e9 seconds")
	}
	if c.HasRange {
		largest := uint32(1)<<c.NodeIDSize - 1
		switch {
		case c.MinNodeID > c.MaxNodeID:
			return fail(FieldRange, "node ID range "+rangeString(c.MinNodeID, c.MaxNodeID)+" is empty")
		case c.MaxNodeID > largest:
			return fail(FieldRange, "node ID range "+rangeString(c.MinNodeID, c.MaxNodeID)+
				" does not fit in "+strconv.Itoa(int(c.NodeIDSize))+" bits (the largest node ID is "+
				strconv.FormatUint(uint64(largest), 10)+")")
		}
	}
	return nil
}

// nodeIDRange returns the node IDs the config allows.
func (c *Config) nodeIDRange() (lo, hi uint32) {
	if c.HasRange {
		return c.MinNodeID, c.MaxNodeID
	}
	return 0, uint32(1)<<c.NodeIDSize - 1
}

func rangeString(lo, hi uint32) string {
	return strconv.FormatUint(uint64(lo), 10) + ".." + strconv.FormatUint(uint64(hi), 10)
}
