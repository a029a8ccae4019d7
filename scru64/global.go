package scru64

import (
	"fmt"
	"os"
	"sync"
	"sync/atomic"
)

// NodeSpecEnv is the environment variable the global generator reads its
// node spec from, for example SCRU64_NODE_SPEC=42/8.
const NodeSpecEnv = "SCRU64_NODE_SPEC"

// Global is the process-wide generator behind [New] and [NewString], reached
// through [GlobalGenerator]. Until it is configured, by [Global.Initialize]
// or by a valid node spec in the SCRU64_NODE_SPEC environment variable (read
// at the first use, and again at each later use while it is unset or
// invalid), its generating methods return an error matching [ErrNoNodeSpec].
// Once configured it keeps that generator for the life of the process. Its
// methods are safe for concurrent use; once configured they cost one atomic
// load more than the [Generator]'s.
type Global struct {
	gen atomic.Pointer[Generator]
	mu  sync.Mutex // serializes configuration
}

// GlobalGenerator is the process-wide generator behind [New] and [NewString].
var GlobalGenerator = new(Global)

// Initialize configures the global generator with spec, overriding the
// environment variable. It must come before the first use that would read
// the variable: it returns [ErrAlreadyInitialized] if the generator is
// already configured, and a [*NodeSpecError] for the zero [NodeSpec].
//
// spec is a NodeSpec, not a string: make one from the text that
// SCRU64_NODE_SPEC takes with [ParseNodeSpec], as in
// GlobalGenerator.Initialize(spec) after spec, err := ParseNodeSpec("42/8"),
// or from numbers with [NewNodeSpecWithNodeID].
func (g *Global) Initialize(spec NodeSpec) error {
	if spec.IsZero() {
		return &NodeSpecError{Reason: "the zero NodeSpec is not a configuration"}
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.gen.Load() != nil {
		return ErrAlreadyInitialized
	}
	g.gen.Store(NewGenerator(spec))
	return nil
}

// Generator returns the global generator, configuring it from
// SCRU64_NODE_SPEC if that has not happened yet. The error matches
// [ErrNoNodeSpec] and, for an invalid value, [ErrInvalidNodeSpec] too; its text
// names the variable and shows an example.
func (g *Global) Generator() (*Generator, error) {
	if gen := g.gen.Load(); gen != nil {
		return gen, nil
	}
	return g.configureFromEnv()
}

// configureFromEnv is [Global.Generator]'s slow path, kept out of line.
func (g *Global) configureFromEnv() (*Generator, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if gen := g.gen.Load(); gen != nil {
		return gen, nil
	}
	value, ok := os.LookupEnv(NodeSpecEnv)
	if !ok || value == "" {
		return nil, fmt.Errorf("%w: set the %s environment variable (for example %s=42/8) or call scru64.GlobalGenerator.Initialize",
			ErrNoNodeSpec, NodeSpecEnv, NodeSpecEnv)
	}
	spec, err := ParseNodeSpec(value)
	if err != nil {
		return nil, fmt.Errorf("%w: the %s environment variable (for example %s=42/8) is not usable: %w",
			ErrNoNodeSpec, NodeSpecEnv, NodeSpecEnv, err)
	}
	gen := NewGenerator(spec)
	g.gen.Store(gen)
	return gen, nil
}

// Generate calls Generate on the global generator, or returns the error of
// [Global.Generator] if it is not configured.
func (g *Global) Generate() (ID, error) {
	gen, err := g.Generator()
	if err != nil {
		return 0, err
	}
	return gen.Generate()
}

// GenerateOrSleep calls GenerateOrSleep on the global generator, or returns
// the error of [Global.Generator] if it is not configured.
func (g *Global) GenerateOrSleep() (ID, error) {
	gen, err := g.Generator()
	if err != nil {
		return 0, err
	}
	return gen.GenerateOrSleep()
}

// NodeSpec returns the global generator's NodeSpec (see
// [Generator.NodeSpec]), or the error of [Global.Generator] if it is not
// configured.
func (g *Global) NodeSpec() (NodeSpec, error) {
	gen, err := g.Generator()
	if err != nil {
		return NodeSpec{}, err
	}
	return gen.NodeSpec(), nil
}

// New returns a new ID from the global generator, sleeping as
// [Generator.GenerateOrSleep] does if the clock is far behind the last ID. It
// is safe for concurrent use and does not allocate.
//
// New panics if the global generator has no node spec: set the
// SCRU64_NODE_SPEC environment variable (for example SCRU64_NODE_SPEC=42/8)
// or call GlobalGenerator.Initialize first. The panic value is the error
// that GlobalGenerator.Generate would return, which says so. Use
// GlobalGenerator.GenerateOrSleep to get that error instead. It panics too
// if the system clock reads before 1970-01-01T04:14:18.880Z (see
// [MinTimestamp]) or in the year 4261 or later.
func New() ID {
	id, err := GlobalGenerator.GenerateOrSleep()
	if err != nil {
		panic(err)
	}
	return id
}

// NewString returns the 12-digit text of a new ID from [New], and panics as
// New does. It makes one allocation, the string.
func NewString() string { return New().String() }
