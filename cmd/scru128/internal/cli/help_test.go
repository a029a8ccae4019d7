//go:build (unix && !aix) || windows

package cli

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// TestEachHelpOpensWithExamples: every command's help shows two or three
// examples before its flags, and gen's names its common flags before the
// node and fleet flags, which come under headings of their own.
func TestEachHelpOpensWithExamples(t *testing.T) {
	for _, cmd := range commands {
		if cmd.name == "help" {
			continue
		}
		_, rest, ok := strings.Cut(cmd.usage, "\nExamples:\n")
		if !ok {
			t.Errorf("%s: no examples", cmd.name)
			continue
		}
		examples, _, _ := strings.Cut(rest, "\n\n")
		n := strings.Count(examples, "\n  scru128 ") + strings.Count("\n"+examples, "\n  go ")
		if strings.HasPrefix(examples, "  scru128 ") {
			n++
		}
		if n < 2 || n > 3 {
			t.Errorf("%s: %d examples:\n%s", cmd.name, n, examples)
		}
		if flags := strings.Index(cmd.usage, "\nFlags:\n"); flags >= 0 && flags < strings.Index(cmd.usage, "\nExamples:\n") {
			t.Errorf("%s: the flags come before the examples", cmd.name)
		}
	}
	flags, node, fleet := strings.Index(genUsage, "\nFlags:\n"), strings.Index(genUsage, "\nNode flags"), strings.Index(genUsage, "\nFleet flags")
	for _, common := range []string{"-n", "-stream", "-format", "-time", "-local", "-upper", "-uuid", "-hex"} {
		if i := strings.Index(genUsage, "\n  "+common+" "); i < flags || i > node {
			t.Errorf("gen's help: %s is not among the common flags", common)
		}
	}
	if i := strings.Index(genUsage, "\n  -node "); i < node || i > fleet {
		t.Error("gen's help: -node is not among the node flags")
	}
	for _, name := range etcdFlagNames() {
		if i := strings.Index(genUsage, "\n  -"+name+" "); i < fleet {
			t.Errorf("gen's help: -%s is not among the fleet flags", name)
		}
	}
}

// TestHelpBeforeTheCommand: scru128 -h CMD, like scru128 help CMD and
// scru128 CMD -h, prints that command's help (before issue 33, the
// top-level help).
func TestHelpBeforeTheCommand(t *testing.T) {
	for _, cmd := range commands {
		for _, args := range [][]string{{"-h", cmd.name}, {"--help", cmd.name}, {"help", cmd.name}} {
			out, errOut, status := runCLI(t, "", args...)
			if status != 0 || out != cmd.usage || errOut != "" {
				t.Errorf("%q: status %d, stdout %.50q, stderr %q", args, status, out, errOut)
			}
		}
	}
	if _, errOut, status := runCLI(t, "", "-h", "nope"); status != 2 || !strings.Contains(errOut, `unknown command "nope"`) {
		t.Errorf("-h nope: status %d, stderr %q", status, errOut)
	}
}

// TestStrayArgumentsGetASuggestion: an argument a command takes no place
// for is a usage error that says what it most likely meant.
func TestStrayArgumentsGetASuggestion(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"gen", "5"}, `unexpected argument "5": gen takes only flags; did you mean -n 5?`},
		{[]string{"gen", "-format", "ulid", "20"}, "did you mean -n 20?"},
		{[]string{"gen", "2024-05-01"}, "did you mean -time 2024-05-01?"},
		{[]string{"gen", "2024-05-01T12:00:00Z"}, "did you mean -time 2024-05-01T12:00:00Z?"},
		{[]string{"gen", "1714564800s"}, "did you mean -time 1714564800s?"},
		{[]string{"gen", "ULID"}, "did you mean -format ULID?"},
		{[]string{"gen", "42/8"}, "did you mean -format scru64 -node 42/8?"},
		{[]string{"gen", "0372hg16csmsm50l8dikcvukc"}, "to read this scru128 ID, run scru128 inspect 0372hg16csmsm50l8dikcvukc"},
		{[]string{"gen", "0u375nxqh5cq"}, "run scru128 inspect 0u375nxqh5cq, or to mint after it, gen -format scru64 -node 0u375nxqh5cq/SIZE"},
		{[]string{"gen", "01AR3NDEKTSV4RRFFQ69G5FAV0"}, "to read this ulid or legacy ID, run scru128 inspect"},
		{[]string{"bench", "5s"}, "did you mean -benchtime 5s?"},
		{[]string{"bench", "1000"}, "did you mean -benchtime 1000x?"},
		{[]string{"bench", "scru64"}, "did you mean -format scru64?"},
		{[]string{"5"}, "did you mean scru128 gen -n 5?"},
		{[]string{"ulid"}, "did you mean scru128 gen -format ulid?"},
	} {
		out, errOut, status := runCLI(t, "", tc.args...)
		if status != 2 || out != "" || !strings.Contains(errOut, tc.want) {
			t.Errorf("%q: status %d, stderr %q; want 2 and %q", tc.args, status, errOut, tc.want)
		}
	}
	// Nothing to suggest: the plain error.
	if _, errOut, _ := runCLI(t, "", "gen", "extra"); !strings.HasPrefix(errOut, "scru128 gen: unexpected argument \"extra\": gen takes only flags\n") {
		t.Errorf("gen extra: %q", errOut)
	}
}

// TestInspectRangeErrorNamesTheBound: a text above a format's largest ID
// is refused with that largest ID, as the library's error gives it (before
// issue 33: "value out of range" alone).
func TestInspectRangeErrorNamesTheBound(t *testing.T) {
	for _, tc := range []struct{ in, max string }{
		{"F5LXX1ZZ5PNORYNQGLHZMSP34", "f5lxx1zz5pnorynqglhzmsp33"},
		{"8ZZZZZZZZZZZZZZZZZZZZZZZZZ", "7ZZZZZZZZZZZZZZZZZZZZZZZZZ"},
		{"8000000000000", "7ZZZZZZZZZZZZ"},
	} {
		_, errOut, status := runCLI(t, "", "inspect", tc.in)
		if status != 1 || !strings.Contains(errOut, "value out of range (max "+tc.max+")") || containsLibraryPrefix(errOut) {
			t.Errorf("inspect %s: status %d, stderr %q", tc.in, status, errOut)
		}
	}
}

// TestBenchJSONFiguresAgree: with few iterations, allocations per op and
// bytes per op are both fractions of the same totals, so one is never 0
// beside the other's 15 (testing's AllocsPerOp rounds down, its
// AllocedBytesPerOp keeps what is left).
func TestBenchJSONFiguresAgree(t *testing.T) {
	out, errOut, status := runCLI(t, "", "bench", "-benchtime", "100x", "-json", "-format", "ulid")
	if status != 0 {
		t.Fatalf("status %d, %q", status, errOut)
	}
	var report struct {
		Results []map[string]any `json:"results"`
	}
	if err := json.Unmarshal([]byte(out), &report); err != nil {
		t.Fatal(err)
	}
	for _, r := range report.Results {
		n, _ := r["iterations"].(float64)
		allocs, okA := r["allocs"].(float64)
		bytes, okB := r["bytes"].(float64)
		perAlloc, _ := r["allocsPerOp"].(float64)
		perByte, _ := r["bytesPerOp"].(float64)
		if !okA || !okB || n < 1 ||
			math.Abs(perAlloc*n-allocs) > 1e-6*max(allocs, 1) || math.Abs(perByte*n-bytes) > 1e-6*max(bytes, 1) ||
			(perAlloc == 0) != (perByte == 0) {
			t.Errorf("%v %v: allocs %v (%v per op), bytes %v (%v per op), %v iterations",
				r["format"], r["operation"], r["allocs"], r["allocsPerOp"], r["bytes"], r["bytesPerOp"], r["iterations"])
		}
	}
}
