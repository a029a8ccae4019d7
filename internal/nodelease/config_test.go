package nodelease

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestDefaultConfigPasses(t *testing.T) {
	c := DefaultConfig()
	if err := c.Check(); err != nil {
		t.Fatal(err)
	}
	if c.Prefix != DefaultPrefix || c.NodeIDSize != DefaultNodeIDSize || c.TTL != DefaultTTL || c.HasRange {
		t.Fatalf("defaults: %+v", c)
	}
}

func TestConfigRejects(t *testing.T) {
	for _, tc := range []struct {
		name  string
		set   func(*Config)
		field Field
	}{
		{"empty prefix", func(c *Config) { c.Prefix = "" }, FieldPrefix},
		{"size 0", func(c *Config) { c.NodeIDSize = 0 }, FieldNodeIDSize},
		{"size 24", func(c *Config) { c.NodeIDSize = 24 }, FieldNodeIDSize},
		{"TTL 0", func(c *Config) { c.TTL = 0 }, FieldTTL},
		{"TTL not whole", func(c *Config) { c.TTL = 2500 * time.Millisecond }, FieldTTL},
		{"TTL too long", func(c *Config) { c.TTL = maxTTL + time.Second }, FieldTTL},
		{"empty range", func(c *Config) { c.HasRange, c.MinNodeID, c.MaxNodeID = true, 2, 1 }, FieldRange},
		{"range too wide", func(c *Config) { c.HasRange, c.MaxNodeID = true, 256 }, FieldRange},
	} {
		c := DefaultConfig()
		tc.set(&c)
		err := c.Check()
		var oe *OptionError
		if !errors.Is(err, ErrInvalidOption) || !errors.As(err, &oe) || oe.Field != tc.field || oe.Reason == "" {
			t.Errorf("%s: Check = %v, want an *OptionError for %v", tc.name, err, tc.field)
		}
		// Without a user's name for it, the error names the Go field.
		if want := "invalid option " + tc.field.String() + ": "; err != nil && !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s: %q does not start with %q", tc.name, err, want)
		}
	}
	c := DefaultConfig()
	c.HasRange, c.MinNodeID, c.MaxNodeID = true, 255, 255
	if err := c.Check(); err != nil {
		t.Errorf("node ID 255 of size 8: %v", err)
	}
	if err := (&Config{}).Check(); !errors.Is(err, ErrInvalidOption) {
		t.Errorf("the zero Config: Check = %v, want ErrInvalidOption", err)
	}
}

func TestKeysSortNumerically(t *testing.T) {
	if got := holderKey("/p/", 42); got != "/p/node/0000042" {
		t.Fatalf("holderKey = %q", got)
	}
	if got := recordKey("/p/", 1<<23-1); got != "/p/last/8388607" {
		t.Fatalf("recordKey = %q", got)
	}
	for id := uint32(1); id < 1<<23; id = id*3 + 1 {
		if pad(id-1) >= pad(id) {
			t.Fatalf("pad(%d) = %q sorts after pad(%d) = %q", id-1, pad(id-1), id, pad(id))
		}
	}
}

func TestMargin(t *testing.T) {
	for _, tc := range []struct{ ttl, want time.Duration }{
		{time.Second, 350 * time.Millisecond},
		{2 * time.Second, 450 * time.Millisecond},
		{10 * time.Second, 1250 * time.Millisecond},
	} {
		if got := Margin(tc.ttl); got != tc.want {
			t.Errorf("Margin(%v) = %v, want %v", tc.ttl, got, tc.want)
		}
	}
	// The first attempt of a request is given the margin, up to 2 s.
	for _, tc := range []struct{ ttl, want time.Duration }{
		{10 * time.Second, 1250 * time.Millisecond},
		{17500 * time.Millisecond, 2 * time.Second},
		{time.Hour, 2 * time.Second},
	} {
		if got := requestTimeout(tc.ttl); got != tc.want {
			t.Errorf("requestTimeout(%v) = %v, want %v", tc.ttl, got, tc.want)
		}
	}
}

// TestHighWaterIsTheLastIDOfItsTick pins the record of a bound: the node's
// own node ID, every counter bit set, so that the next holder's first ID,
// for every node ID and size, is past every ID the node could mint in the
// bound's tick.
func TestHighWaterIsTheLastIDOfItsTick(t *testing.T) {
	const bound uint64 = 7_000_000_000
	for size := uint8(1); size <= 23; size++ {
		for _, nodeID := range []uint32{0, 1, 2, 3, 5, 1<<size - 1, 1<<size - 2} {
			if nodeID >= 1<<size {
				continue
			}
			id := highWater(bound, nodeID, size)
			counterBits := 24 - size
			if id.Timestamp() != bound || id.NodeCtr()>>counterBits != nodeID ||
				id.NodeCtr()&(1<<counterBits-1) != 1<<counterBits-1 {
				t.Fatalf("highWater(%d, %d, %d) = %v: timestamp %d, node_ctr %#x", bound, nodeID, size,
					id, id.Timestamp(), id.NodeCtr())
			}
		}
	}
}
