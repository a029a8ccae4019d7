package scru128

import (
	"os/exec"
	"regexp"
	"runtime"
	"strings"
	"testing"
)

// inlined lists, per package directory, the functions the hot paths rely
// on the compiler to inline: a call where there was none costs a few
// nanoseconds, and the Generate wrappers must inline for generate to write
// the ID straight into the caller's variable.
var inlined = map[string][]string{
	".": {
		"(*Generator).Generate", "(*Generator).GenerateOrAbort",
		"(*Generator).GenerateOrResetCore", "(*Generator).GenerateOrAbortCore",
		"putID", "perID", "hiWordOf", "countable",
		"deltaOf", "carriesOf", "headroomOf", "windowOf",
		"ID.Compare", "ID.IsZero", "ID.Timestamp", "ID.Uint64s", "FromUint64s",
		"Parse", "ParseBytes",
		"NewUnordered",
	},
	"internal/epoch": {
		"(*Engine).Load", "(*Engine).Reserve",
		"Snapshot.Cold", "Snapshot.Payload", "Snapshot.PerID", "Snapshot.Tag",
		"Snapshot.Consistent", "Snapshot.Changing", "Snapshot.Owns",
	},
	"internal/base36": {
		"PutSixDigits", "Value", "Valid8", "Value8",
		"base36.Load64[go.shape.string]", "base36.Load64[go.shape.[]uint8]",
		"base36.Load32[go.shape.string]", "base36.Load32[go.shape.[]uint8]",
	},
	"internal/clock": {"Mono", "(*Clock).TryMillisAt", "(*Clock).Millis"},
	"internal/entropy": {
		"(*Shared).Uint64", "(*Source).Uint32",
	},
	"ulid": {
		"(*Generator).Generate", "(*Generator).GenerateOrAbort",
		"(*Generator).GenerateOrResetCore", "(*Generator).GenerateOrAbortCore",
		"putID", "randomPart", "pack", "ULID.Compare", "ULID.Timestamp", "Parse", "ParseBytes",
	},
	"scru64":    {"(*Generator).Generate", "(*Generator).GenerateOrAbortCore", "ID.Compare", "Parse", "ParseBytes", "ID.MarshalText"},
	"ulidflake": {"Parse", "ParseBytes", "ID.MarshalText"},
	"legacy":    {"ID.Compare", "Parse", "ParseBytes"},
}

// atomics64 lists the entries of inlined that hold only where the compiler
// turns sync/atomic's 64-bit operations into instructions, the GOARCH
// values in atomicIntrinsics64. Elsewhere (386, arm, mips, mipsle, wasm)
// each 64-bit atomic is a call, whose cost in the inlining budget (about
// 50 against a budget of 80) keeps these functions from inlining: there
// they are calls on the hot path, and the test does not pin them.
var atomics64 = map[string]bool{
	"internal/epoch (*Engine).Load":       true,
	"internal/clock (*Clock).TryMillisAt": true,
	"internal/entropy (*Shared).Uint64":   true,
}

// atomicIntrinsics64 lists the GOARCH values where the pins in atomics64
// hold: every 64-bit architecture Go supports except wasm.
var atomicIntrinsics64 = map[string]bool{
	"amd64": true, "arm64": true, "loong64": true, "mips64": true, "mips64le": true,
	"ppc64": true, "ppc64le": true, "riscv64": true, "s390x": true,
}

// byteOrder64 lists the entries of inlined that hold only where the
// compiler merges the eight byte loads and stores of encoding/binary's
// 64-bit big-endian helpers into one load or store and a byte swap, the
// GOARCH values in mergedByteOrder64. Elsewhere (arm, riscv64, mips, wasm)
// each helper stays eight memory operations and shifts, which puts these
// functions over the inlining budget (cost 107 to 196 against 80 on arm).
var byteOrder64 = map[string]bool{
	". putID":                      true,
	". ID.Uint64s":                 true,
	". FromUint64s":                true,
	"ulid putID":                   true,
	"internal/base36 PutSixDigits": true,
}

// mergedByteOrder64 lists the GOARCH values where the pins in byteOrder64
// hold: those whose loads and stores may be unaligned, so that the
// compiler combines byte accesses.
var mergedByteOrder64 = map[string]bool{
	"386": true, "amd64": true, "arm64": true, "loong64": true,
	"ppc64": true, "ppc64le": true, "s390x": true,
}

// canInline matches the compiler's report of an inlinable function:
// "./dir/file.go:12:6: can inline Name with cost ...".
var canInline = regexp.MustCompile(`(?m)^(\S+?)/?[^/\s]+\.go:\d+:\d+: can inline (\S+)`)

// TestInlining fails when a function in the list above stops being
// inlinable, after a change that looked harmless: the check net/netip
// keeps for its own hot paths. It checks the architecture it runs on, and
// the entries of atomics64 and byteOrder64 only where they hold.
func TestInlining(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the compiler")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	args := []string{"build", "-gcflags=-m"}
	for dir := range inlined {
		args = append(args, "./"+dir)
	}
	cmd := exec.Command(goTool, args...)
	cmd.Env = append(cmd.Environ(), "GOARCH="+runtime.GOARCH)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	got := make(map[string]bool)
	for _, m := range canInline.FindAllStringSubmatch(string(out), -1) {
		dir := strings.TrimPrefix(strings.TrimPrefix(m[1], "./"), ".")
		if dir == "" {
			dir = "."
		}
		got[dir+" "+m[2]] = true
	}
	for dir, names := range inlined {
		for _, name := range names {
			if atomics64[dir+" "+name] && !atomicIntrinsics64[runtime.GOARCH] ||
				byteOrder64[dir+" "+name] && !mergedByteOrder64[runtime.GOARCH] {
				continue
			}
			if !got[dir+" "+name] {
				t.Errorf("%s: %s is no longer inlinable", dir, name)
			}
		}
	}
}
