package scru64

import (
	"errors"
	"strings"
	"testing"
)

func TestGlobalFromEnv(t *testing.T) {
	t.Setenv(NodeSpecEnv, "0xb/8")
	g := new(Global)
	id, err := g.Generate()
	if err != nil || id.NodeCtr()>>16 != 11 {
		t.Fatalf("Generate = %s, %v", id, err)
	}
	spec, err := g.NodeSpec()
	if err != nil || spec.NodeID() != 11 || spec.NodePrev() != id {
		t.Fatalf("NodeSpec = %q, %v", spec, err)
	}
	// Configured once, it keeps its generator.
	if err := g.Initialize(mustSpec(t, "1/8")); !errors.Is(err, ErrAlreadyInitialized) {
		t.Fatalf("Initialize after use: %v", err)
	}
	t.Setenv(NodeSpecEnv, "2/8")
	if id2, err := g.GenerateOrSleep(); err != nil || id2 <= id || id2.NodeCtr()>>16 != 11 {
		t.Fatalf("GenerateOrSleep = %s, %v", id2, err)
	}
}

func TestGlobalInitializeOverridesEnv(t *testing.T) {
	t.Setenv(NodeSpecEnv, "0xb/8")
	g := new(Global)
	if err := g.Initialize(NodeSpec{}); !errors.Is(err, ErrInvalidNodeSpec) {
		t.Fatalf("Initialize(zero) = %v", err)
	}
	if err := g.Initialize(mustSpec(t, "300/12")); err != nil {
		t.Fatal(err)
	}
	if id, err := g.Generate(); err != nil || id.NodeCtr()>>12 != 300 {
		t.Fatalf("Generate = %s, %v", id, err)
	}
}

// TestGlobalWithoutSpec checks the errors and the panic message without a
// usable spec, and that a spec set later is picked up.
func TestGlobalWithoutSpec(t *testing.T) {
	for _, tc := range []struct{ value, says string }{
		{"", "set the SCRU64_NODE_SPEC environment variable (for example SCRU64_NODE_SPEC=42/8)"},
		{"42", `SCRU64_NODE_SPEC environment variable (for example SCRU64_NODE_SPEC=42/8) is not usable: scru64: invalid node spec "42": no slash`},
		{"0/24", "node ID size 24 is not in 1..23"},
	} {
		t.Setenv(NodeSpecEnv, tc.value)
		g := new(Global)
		_, err := g.Generate()
		if !errors.Is(err, ErrNoNodeSpec) || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%q: error %q, want it to say %q", tc.value, err, tc.says)
		}
		if tc.value != "" && !errors.Is(err, ErrInvalidNodeSpec) {
			t.Errorf("%q: error %v does not match ErrInvalidNodeSpec", tc.value, err)
		}
		if _, err := g.GenerateOrSleep(); !errors.Is(err, ErrNoNodeSpec) {
			t.Errorf("%q: GenerateOrSleep error %v", tc.value, err)
		}
		if _, err := g.NodeSpec(); !errors.Is(err, ErrNoNodeSpec) {
			t.Errorf("%q: NodeSpec error %v", tc.value, err)
		}
	}

	saved := GlobalGenerator
	defer func() { GlobalGenerator = saved }()
	GlobalGenerator = new(Global)
	t.Setenv(NodeSpecEnv, "")
	func() {
		defer func() {
			r := recover()
			err, ok := r.(error)
			if !ok || !errors.Is(err, ErrNoNodeSpec) || !strings.Contains(err.Error(), "SCRU64_NODE_SPEC=42/8") {
				t.Errorf("New panicked with %v", r)
			}
		}()
		New()
		t.Error("New did not panic")
	}()
	// Not cached: once the variable is set, New works.
	t.Setenv(NodeSpecEnv, "5/8")
	if s := NewString(); len(s) != 12 || MustParse(s).NodeCtr()>>16 != 5 {
		t.Fatalf("NewString = %q", s)
	}
}
