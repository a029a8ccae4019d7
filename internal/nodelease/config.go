package nodelease

import (
	"strconv"
	"time"

	"github.com/fastid/scru128/scru64"
)

// Defaults of a [Config]'s zero fields.
const (
	DefaultPrefix     = "/scru64/"
	DefaultNodeIDSize = 8
	DefaultTTL        = 10 * time.Second
)

// maxTTL is etcd's largest lease TTL (lease.MaxLeaseTTL).
const maxTTL = 9_000_000_000 * time.Second

// Config says which node ID to lease and how. Zero fields take the
// defaults; Check reports what is wrong with the others.
type Config struct {
	// Prefix is put before every key ([DefaultPrefix] if "").
	Prefix string
	// NodeIDSize is the node ID size, 1 to 23 ([DefaultNodeIDSize] if 0).
	// Every node under one prefix uses the same size.
	NodeIDSize uint8
	// TTL is the lease's time to live, a whole number of seconds, at least
	// one ([DefaultTTL] if 0).
	TTL time.Duration
	// HasRange limits the node IDs taken to MinNodeID..MaxNodeID.
	HasRange             bool
	MinNodeID, MaxNodeID uint32
	// Wall is the wall clock IDs are stamped from (time.Now if nil). The
	// lease deadline always runs on the process's monotonic clock.
	Wall func() time.Time
	// CounterMode is passed to scru64.NewGeneratorWithCounterMode.
	CounterMode scru64.CounterMode

	// set records which fields were given explicitly, so that a zero given
	// on purpose is an error rather than a default.
	setSize, setTTL, setPrefix bool
}

// SetPrefix, SetNodeIDSize and SetTTL set a field and record that it was
// given, so that Check rejects a zero instead of taking the default.
func (c *Config) SetPrefix(p string) { c.Prefix, c.setPrefix = p, true }

// SetNodeIDSize sets NodeIDSize as given (see SetPrefix).
func (c *Config) SetNodeIDSize(n uint8) { c.NodeIDSize, c.setSize = n, true }

// SetTTL sets TTL as given (see SetPrefix).
func (c *Config) SetTTL(d time.Duration) { c.TTL, c.setTTL = d, true }

// Check fills in the defaults and returns an [*OptionError] for the first
// value that is out of range. option names the option that sets a field,
// for the error's text.
func (c *Config) Check(option func(field string) string) error {
	fail := func(field, reason string) error {
		return &OptionError{Option: option(field), Reason: reason}
	}
	if c.Prefix == "" {
		if c.setPrefix {
			return fail("Prefix", "the prefix is empty (keys would share etcd's root with everything else)")
		}
		c.Prefix = DefaultPrefix
	}
	if c.NodeIDSize == 0 && !c.setSize {
		c.NodeIDSize = DefaultNodeIDSize
	}
	if c.NodeIDSize < 1 || c.NodeIDSize > 23 {
		return fail("NodeIDSize", "node ID size "+strconv.Itoa(int(c.NodeIDSize))+" is not in 1..23")
	}
	if c.TTL == 0 && !c.setTTL {
		c.TTL = DefaultTTL
	}
	switch {
	case c.TTL < time.Second:
		return fail("TTL", c.TTL.String()+" is below 1s")
	case c.TTL%time.Second != 0:
		return fail("TTL", c.TTL.String()+" is not a whole number of seconds (etcd leases count seconds)")
	case c.TTL > maxTTL:
		return fail("TTL", c.TTL.String()+" is above etcd's largest lease TTL, 9e9 seconds")
	}
	if c.HasRange {
		largest := uint32(1)<<c.NodeIDSize - 1
		switch {
		case c.MinNodeID > c.MaxNodeID:
			return fail("Range", "node ID range "+rangeString(c.MinNodeID, c.MaxNodeID)+" is empty")
		case c.MaxNodeID > largest:
			return fail("Range", "node ID range "+rangeString(c.MinNodeID, c.MaxNodeID)+
				" does not fit in "+strconv.Itoa(int(c.NodeIDSize))+" bits (the largest node ID is "+
				strconv.FormatUint(uint64(largest), 10)+")")
		}
	}
	return nil
}

func rangeString(lo, hi uint32) string {
	return strconv.FormatUint(uint64(lo), 10) + ".." + strconv.FormatUint(uint64(hi), 10)
}
