package pgnode_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestWrappersInline pins that the public Node's generating methods are
// inlined into their callers, so that the nil check they add costs no
// call of its own on the hot path.
func TestWrappersInline(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the package")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	out, err := exec.Command(goTool, "build", "-gcflags=-m", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build -gcflags=-m: %v\n%s", err, out)
	}
	for _, fn := range []string{"(*Node).Generate", "(*Node).GenerateOrSleep"} {
		if !strings.Contains(string(out), "can inline "+fn+"\n") {
			t.Errorf("%s is not inlinable any more", fn)
		}
	}
}
