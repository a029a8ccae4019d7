//go:build (unix && !aix) || windows

package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/fastid/scru128"
	"github.com/fastid/scru128/legacy"
	"github.com/fastid/scru128/scru64"
	"github.com/fastid/scru128/ulid"
	"github.com/fastid/scru128/ulidflake"
)

// testEnv returns an env with the given stdin and environment variables
// (none by default, whatever the test process has).
func testEnv(stdin string, vars map[string]string) (*Env, *bytes.Buffer, *bytes.Buffer) {
	var out, errOut bytes.Buffer
	return &Env{
		stdin:  strings.NewReader(stdin),
		stdout: &out,
		stderr: &errOut,
		getenv: func(k string) string { return vars[k] },
	}, &out, &errOut
}

func runCLI(t *testing.T, stdin string, args ...string) (stdout, stderr string, status int) {
	t.Helper()
	e, out, errOut := testEnv(stdin, nil)
	status = run(args, e)
	return out.String(), errOut.String(), status
}

func lines(s string) []string {
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

func TestGenPrintsIncreasingIDsInEachFormat(t *testing.T) {
	for _, tc := range []struct {
		format string
		length int
	}{{"scru128", 25}, {"scru64", 12}, {"ulid", 26}, {"ulidflake", 13}, {"legacy", 26}} {
		args := []string{"gen", "-format", tc.format, "-n", "3000"}
		if tc.format == "scru64" {
			args = append(args, "-node", "0/1")
		}
		out, errOut, status := runCLI(t, "", args...)
		if status != 0 || (tc.format != "scru64" && errOut != "") {
			t.Fatalf("%q: status %d, stderr %q", args, status, errOut)
		}
		ls := lines(out)
		if len(ls) != 3000 {
			t.Fatalf("%s: %d lines, want 3000", tc.format, len(ls))
		}
		for i, l := range ls {
			if len(l) != tc.length || i > 0 && l <= ls[i-1] {
				t.Fatalf("%s: line %d %q after %q", tc.format, i+1, l, ls[max(i-1, 0)])
			}
		}
		// Each is valid in its format: inspect reads them back.
		if _, errOut, status := runCLI(t, out, "inspect", "-format", tc.format); status != 0 {
			t.Fatalf("%s: inspect: status %d, %s", tc.format, status, errOut)
		}
	}
}

func TestGenDefaultsToOneAndZeroPrintsNothing(t *testing.T) {
	out, _, status := runCLI(t, "", "gen")
	if status != 0 || len(out) != 26 {
		t.Fatalf("gen: status %d, output %q", status, out)
	}
	out, errOut, status := runCLI(t, "", "gen", "-n", "0")
	if status != 0 || out != "" || errOut != "" {
		t.Fatalf("gen -n 0: status %d, %q %q", status, out, errOut)
	}
}

func TestUsageErrorsGiveTheReasonOnStderr(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"gen", "-n", "-1"}, "scru128 gen: -n -1: want 0 or more"},
		{[]string{"gen", "-n", "3", "extra"}, `scru128 gen: unexpected argument "extra"`},
		{[]string{"gen", "-n", "x"}, `invalid value "x" for flag -n`},
		{[]string{"gen", "-x"}, "flag provided but not defined: -x"},
		{[]string{"gen", "-format"}, "flag needs an argument: -format"},
		{[]string{"gen", "-format", "nope"}, `unknown format "nope" (want scru128, scru64, ulid, ulidflake, legacy)`},
		{[]string{"gen", "-stream", "-n", "3"}, "-n and -stream exclude each other"},
		{[]string{"gen", "-uuid", "-hex"}, "-uuid and -hex exclude each other"},
		{[]string{"gen", "-format", "ulidflake", "-uuid"}, "-uuid needs a 128-bit format"},
		{[]string{"gen", "-node", "42/8"}, "-node applies to -format scru64 only"},
		{[]string{"gen", "-state", "f"}, "-state applies to -format scru64 only"},
		{[]string{"gen", "-time", "yesterday"}, `-time "yesterday": want a date, such as 2024-05-01`},
		{[]string{"gen", "-time", "2024-5-1"}, "a duration from now, such as -1h or +30m"},
		{[]string{"gen", "-time", "-2"}, "a duration from now wants a unit"},
		{[]string{"gen", "-time", "0"}, "-time 0 is outside the times a scru128 ID can hold (1970-01-01T00:00:00.001Z to 10889-08-02T05:31:50.655Z)"},
		{[]string{"gen", "-format", "legacy", "-time", "2019-12-31T23:59:59Z"}, "outside the times a legacy ID can hold (2020-01-01T00:00:00.000Z"},
		{[]string{"gen", "-format", "scru64", "-node", "1024/8"}, `-node: invalid node spec "1024/8": node ID 1024 does not fit in 8 bits`},
		{[]string{"inspect", "-format", "nope"}, `scru128 inspect: unknown format "nope"`},
		{[]string{"inspect", "-q"}, "flag provided but not defined: -q"},
		{[]string{"bench", "-benchtime", "0"}, `-benchtime "0": want a duration`},
		{[]string{"bench", "-format", "uuid"}, `unknown format "uuid"`},
		{[]string{"bench", "now"}, `unexpected argument "now"`},
		{[]string{"version", "now"}, `unexpected argument "now"`},
		{[]string{"help", "nope"}, `scru128 help: unknown command "nope"`},
		{[]string{"frobnicate"}, `scru128: unknown command "frobnicate"`},
		{[]string{"-format", "ulid"}, `scru128: unknown flag "-format": flags follow a command or the IDs to inspect`},
	} {
		out, errOut, status := runCLI(t, "", tc.args...)
		if status != 2 || out != "" || !strings.Contains(errOut, tc.want) {
			t.Errorf("%q: status %d, stdout %q, stderr %q; want status 2 and %q", tc.args, status, out, errOut, tc.want)
		}
		prefixes := strings.Count(errOut, "scru128: ") + strings.Count(errOut, "scru128 "+tc.args[0]+": ")
		if prefixes != 1 || !strings.Contains(errOut, "Run 'scru128") || containsLibraryPrefix(errOut) {
			t.Errorf("%q: stderr %q: want one prefix and where to read the usage", tc.args, errOut)
		}
	}
}

// containsLibraryPrefix reports whether s repeats a package's error prefix
// after the tool's own.
func containsLibraryPrefix(s string) bool {
	for _, f := range formats {
		if strings.Contains(s, ": "+f.name+": ") {
			return true
		}
	}
	for _, p := range []string{"etcdnode", "etcdhttp"} {
		if strings.Contains(s, ": "+p+": ") {
			return true
		}
	}
	return false
}

// idleStopper returns a Stopper no signal reaches.
func idleStopper() *Stopper {
	return &Stopper{done: make(chan struct{}), expired: make(chan struct{}), etcdExpired: make(chan struct{}), quit: make(chan struct{})}
}

func TestHelpGoesToStdoutWithStatus0(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-h"}, topUsage}, {[]string{"--help"}, topUsage}, {[]string{"-help"}, topUsage}, {[]string{"help"}, topUsage},
		{[]string{"gen", "-h"}, genUsage}, {[]string{"gen", "--help"}, genUsage}, {[]string{"help", "gen"}, genUsage},
		{[]string{"gen", "-n", "3", "-help"}, genUsage},
		{[]string{"inspect", "-h"}, inspectUsage}, {[]string{"help", "inspect"}, inspectUsage},
		{[]string{"inspect", "0372hg16csmsm50l8dikcvukc", "-h"}, inspectUsage},
		{[]string{"bench", "-h"}, benchUsage}, {[]string{"help", "bench"}, benchUsage},
		{[]string{"version", "-h"}, versionUsage}, {[]string{"help", "version"}, versionUsage},
		{[]string{"help", "help"}, helpUsage}, {[]string{"help", "-h"}, helpUsage},
	} {
		out, errOut, status := runCLI(t, "", tc.args...)
		if status != 0 || out != tc.want || errOut != "" {
			t.Errorf("%q: status %d, stdout %.40q, stderr %q", tc.args, status, out, errOut)
		}
	}
}

// TestUsageFits80Columns: the usage texts, parts of which come from the
// formats table, stay readable in a terminal of 80 columns.
func TestUsageFits80Columns(t *testing.T) {
	texts := []string{topUsage}
	for _, cmd := range commands {
		texts = append(texts, cmd.usage)
	}
	for _, text := range texts {
		for _, line := range strings.Split(text, "\n") {
			if utf8.RuneCountInString(line) > 80 {
				t.Errorf("a usage line is %d columns wide: %q", utf8.RuneCountInString(line), line)
			}
		}
	}
}

// TestUsageNamesEveryFlag holds each usage text to the flags its command
// defines, both ways.
func TestUsageNamesEveryFlag(t *testing.T) {
	for _, cmd := range commands {
		name := cmd.name
		defined := map[string]bool{}
		cmd.flags().VisitAll(func(f *flag.Flag) { defined[f.Name] = true })
		for flagName := range defined {
			if !strings.Contains(cmd.usage, "\n  -"+flagName+" ") {
				t.Errorf("%s usage does not describe -%s", name, flagName)
			}
			if !strings.Contains(topUsage, "-"+flagName) {
				t.Errorf("the top-level usage does not show %s -%s", name, flagName)
			}
		}
		for _, line := range strings.Split(cmd.usage, "\n") {
			if rest, ok := strings.CutPrefix(line, "  -"); ok {
				if flagName, _, _ := strings.Cut(rest, " "); !defined[flagName] {
					t.Errorf("%s usage describes -%s, which it does not define", name, flagName)
				}
			}
		}
	}
}

func TestFlagsMayFollowArguments(t *testing.T) {
	// Valid as a ULID and in the legacy form.
	out, errOut, status := runCLI(t, "", "inspect", "0123456789ABCDEFGHJKMNPQRS", "-format", "legacy")
	if status != 0 || !strings.Contains(out, `"format":"legacy"`) {
		t.Fatalf("inspect ID -format legacy: status %d, %q %q", status, out, errOut)
	}
	out, errOut, status = runCLI(t, "", "inspect", "-format=ULID", "01ARZ3NDEKTSV4RRFFQ69G5FAV", "-local=false")
	if status != 0 || !strings.Contains(out, `"format":"ulid"`) {
		t.Fatalf("-format=ULID: status %d, %q %q", status, out, errOut)
	}
	// "--" ends the flags: what follows is an ID, however it looks.
	out, errOut, status = runCLI(t, "", "inspect", "--", "-format")
	if status != 1 || out != "" || !strings.Contains(errOut, `"-format": no ID format has this length`) {
		t.Fatalf("inspect -- -format: status %d, %q %q", status, out, errOut)
	}
}

// bothULIDAndLegacy is valid as a ULID and in the legacy form: its
// characters are in both alphabets and its first is below 8.
const bothULIDAndLegacy = "0123456789ABCDEFGHJKMNPQRS"

// TestInspectNeverPicksOneOfTwoFormats: a 26-character ID valid as a ULID
// and in the legacy form is printed as neither; stderr names each reading
// and how to choose, and the exit status is 1. -format chooses.
func TestInspectNeverPicksOneOfTwoFormats(t *testing.T) {
	out, errOut, status := runCLI(t, "", "inspect", bothULIDAndLegacy)
	u, l := ulid.MustParse(bothULIDAndLegacy), legacy.MustParse(bothULIDAndLegacy)
	want := fmt.Sprintf("scru128: %q: valid in 2 formats, so read as none: as ulid, %s; as legacy, %s (-format ulid or -format legacy chooses)\n",
		bothULIDAndLegacy, formatTime(u.Time(), time.UTC), formatTime(l.Time(), time.UTC))
	if status != 1 || out != "" || errOut != want {
		t.Errorf("status %d, stdout %q, stderr %q; want status 1 and %q", status, out, errOut, want)
	}
	for format, text := range map[string]string{"ulid": u.String(), "legacy": l.String()} {
		out, errOut, status := runCLI(t, "", "inspect", "-format", format, bothULIDAndLegacy)
		if status != 0 || errOut != "" || !strings.HasPrefix(out, `{"format":"`+format+`","text":"`+text+`"`) {
			t.Errorf("-format %s: status %d, %q %q", format, status, out, errOut)
		}
	}
}

// TestInspectLegacyStream reproduces the report: gen -format legacy piped
// into inspect printed a share of the IDs as ULIDs with exit status 0.
// Each line is now either read as legacy or reported as valid in both
// formats, and -format legacy reads them all. How many legacy IDs are valid
// ULIDs depends on their time and on random fields that a run draws once:
// at this time the timestamp digits are in both alphabets, and to be sure
// of some IDs valid in both, gen's run is followed by legacy IDs with
// fields drawn from a fixed seed.
func TestInspectLegacyStream(t *testing.T) {
	const at = "2022-04-27T12:08:19.664Z"
	ids, _, status := runCLI(t, "", "gen", "-format", "legacy", "-n", "300", "-time", at)
	if status != 0 {
		t.Fatal(status)
	}
	timestamp := legacy.MustParse(strings.Fields(ids)[0]).Timestamp()
	rng := rand.New(rand.NewPCG(1, 2))
	for range 300 {
		id, err := legacy.FromFields(timestamp, rng.Uint32()>>4, rng.Uint32()>>8, rng.Uint32())
		if err != nil {
			t.Fatal(err)
		}
		ids += id.String() + "\n"
	}
	out, errOut, status := runCLI(t, ids, "inspect")
	objects, reports := strings.Count(out, "\n"), strings.Count(errOut, "valid in 2 formats, so read as none: as ulid, ")
	if strings.Contains(out, `"format":"ulid"`) || objects+reports != 600 || strings.Count(errOut, "\n") != reports ||
		reports == 0 || status != 1 {
		t.Errorf("status %d, %d objects, %d ambiguous of 600; stderr %.300q", status, objects, reports, errOut)
	}
	out, errOut, status = runCLI(t, ids, "inspect", "-format", "legacy")
	if status != 0 || errOut != "" || strings.Count(out, `"format":"legacy"`) != 600 {
		t.Errorf("-format legacy: status %d, stderr %.300q", status, errOut)
	}
}

// TestInspectWarnsOfForeignUUIDs: a random UUID read as the bytes of a
// SCRU128 ID dates from thousands of years ahead; inspect still prints
// that reading (it is one), but warns on stderr, after the object.
func TestInspectWarnsOfForeignUUIDs(t *testing.T) {
	var both bytes.Buffer
	e := &Env{stdin: strings.NewReader(""), stdout: &both, stderr: &both, getenv: func(string) string { return "" }}
	const v4 = "7d444840-9dc0-4d2d-8e2f-5f0a6b2e3c4d" // version nibble 4, variant bits 10
	if status := run([]string{"inspect", v4}, e); status != 0 {
		t.Fatalf("status %d: %s", status, both.String())
	}
	got := lines(both.String())
	if len(got) != 2 || !strings.HasPrefix(got[0], `{"format":"scru128",`) ||
		got[1] != `scru128: warning: "`+v4+`": read as a scru128 ID it dates from 6334-07-24T22:57:22.368Z, `+
			`more than a year from now: it may be a version 4 UUID (random) instead, as its version and variant bits say` {
		t.Errorf("inspect %s:\n%s", v4, both.String())
	}
	// Not of RFC 9562's variant: no version to name. -format applies too.
	_, errOut, status := runCLI(t, "", "inspect", "-format", "ulid", "fedcba9876543210fedcba9876543210")
	if status != 0 || !strings.HasSuffix(errOut, "read as a ulid ID it dates from 10849-12-11T01:33:34.164Z, more than a year from now: it may be another kind of ID\n") {
		t.Errorf("far-future hex: status %d, stderr %q", status, errOut)
	}
	// A SCRU128 ID of now, as a UUID, has nothing to warn of, whatever its
	// version and variant bits happen to be.
	for range 200 {
		id := scru128.New()
		if _, errOut, _ := runCLI(t, "", "inspect", uuidString(id)); errOut != "" {
			t.Fatalf("inspect %s: %q", uuidString(id), errOut)
		}
	}
}

// TestBareCommandPrintsOneID: scru128 alone prints one new ID, as uuidgen
// and ulid do.
func TestBareCommandPrintsOneID(t *testing.T) {
	out, errOut, status := runCLI(t, "")
	if status != 0 || errOut != "" || len(out) != 26 {
		t.Fatalf("status %d, %q %q", status, out, errOut)
	}
	if _, err := scru128.Parse(strings.TrimSuffix(out, "\n")); err != nil {
		t.Error(err)
	}
}

// TestIDsInsteadOfACommandAreInspected: scru128 ID ... is inspect ID ...,
// flags included; an argument that is neither a command nor of any ID's
// length is still an unknown command.
func TestIDsInsteadOfACommandAreInspected(t *testing.T) {
	for _, args := range [][]string{
		{inspectVectors[0].input, inspectVectors[1].input},
		{" 017fee7f-ef41-7e2b-3432-ac2ec553687c", "-local"},
		{bothULIDAndLegacy, "-format", "legacy"},
		{"zzzzzzzzzzzzzzzzzzzzzzzzz"},
		{bothULIDAndLegacy},
	} {
		out, errOut, status := runCLI(t, "", args...)
		wantOut, wantErr, wantStatus := runCLI(t, "", append([]string{"inspect"}, args...)...)
		if out != wantOut || errOut != wantErr || status != wantStatus {
			t.Errorf("%q: status %d, %q %q; inspect gives %d, %q %q", args, status, out, errOut, wantStatus, wantOut, wantErr)
		}
	}
	_, errOut, status := runCLI(t, "", "0372hg16csmsm50l8dikcvuk")
	if status != 2 || !strings.HasPrefix(errOut, `scru128: unknown command "0372hg16csmsm50l8dikcvuk" (want gen, inspect, bench, version or help, `+
		`or IDs to inspect: 12, 13, 25 or 26 characters, or a UUID (36) or 32 hex digits)`) {
		t.Errorf("24 characters: status %d, %q", status, errOut)
	}
}

func TestVersionFlags(t *testing.T) {
	want, _, _ := runCLI(t, "", "version")
	for _, flag := range []string{"-V", "-version", "--version"} {
		if out, errOut, status := runCLI(t, "", flag); status != 0 || out != want || errOut != "" {
			t.Errorf("%s: status %d, %q %q", flag, status, out, errOut)
		}
	}
}

// TestHelpErrorsPointToHelp: a mistake in scru128 help points to scru128
// help, not to scru128 help -h.
func TestHelpErrorsPointToHelp(t *testing.T) {
	for _, args := range [][]string{{"help", "foo"}, {"help", "gen", "inspect"}, {"help", "-x"}} {
		_, errOut, status := runCLI(t, "", args...)
		if status != 2 || !strings.HasPrefix(errOut, "scru128 help: ") || !strings.HasSuffix(errOut, "\nRun 'scru128 help' for usage.\n") {
			t.Errorf("%q: status %d, %q", args, status, errOut)
		}
	}
}

func TestParseFlags(t *testing.T) {
	for _, tc := range []struct {
		args       []string
		format     string
		local      bool
		positional []string
	}{
		{[]string{"a", "-format", "x", "b"}, "x", false, []string{"a", "b"}},
		{[]string{"-local", "a", "--format=y"}, "y", true, []string{"a"}},
		{[]string{"-format", "--", "a"}, "--", false, []string{"a"}}, // a value, not the end of flags
		{[]string{"a", "--", "-local", "--"}, "", false, []string{"a", "-local", "--"}},
		{[]string{"-", "-local=true"}, "", true, []string{"-"}},
	} {
		fs, format, local := newInspectFlags()
		positional, err := parseFlags(fs, tc.args)
		if err != nil || *format != tc.format || *local != tc.local || !slices.Equal(positional, tc.positional) {
			t.Errorf("%q: format %q local %v positional %q err %v", tc.args, *format, *local, positional, err)
		}
	}
}

func TestFormatNamesIgnoreCase(t *testing.T) {
	for _, name := range []string{"ULID", "Ulid", "uLiD"} {
		out, errOut, status := runCLI(t, "", "gen", "-format", name)
		if status != 0 || len(out) != 27 {
			t.Errorf("-format %s: status %d, %q %q", name, status, out, errOut)
		}
	}
	out, _, status := runCLI(t, "", "inspect", "-format", "SCRU128", "0372hg16csmsm50l8dikcvukc")
	if status != 0 || !strings.Contains(out, `"format":"scru128"`) {
		t.Errorf("inspect -format SCRU128: status %d, %q", status, out)
	}
}

// The JSON of each format, field names and order included.
var inspectVectors = []struct{ input, json string }{
	{"0372hg16csmsm50l8dikcvukc", `{"format":"scru128","text":"0372hg16csmsm50l8dikcvukc","timestamp":1648973836097,"time":"2022-04-03T08:17:16.097Z","counterHi":8268596,"counterLo":3320878,"entropy":3310577788,"hex":"017fee7fef417e2b3432ac2ec553687c","uuid":"017fee7f-ef41-7e2b-3432-ac2ec553687c","unixMs":1648973836097}`},
	{"0u375nxqh5cq", `{"format":"scru64","text":"0u375nxqh5cq","timestamp":6557084606,"time":"2023-03-12T09:34:19.136Z","nodeCtr":2777946,"int":110009624767914842,"hex":"0186d52bbe2a635a","unixMs":1678613659136}`},
	{"01ARZ3NDEKTSV4RRFFQ69G5FAV", `{"format":"ulid","text":"01ARZ3NDEKTSV4RRFFQ69G5FAV","timestamp":1469922850259,"time":"2016-07-30T23:54:10.259Z","entropy":"d6764c61efb99302bd5b","hex":"01563e3ab5d3d6764c61efb99302bd5b","uuid":"01563e3a-b5d3-d676-4c61-efb99302bd5b","unixMs":1469922850259}`},
	{"00CMXB6TAK4SA", `{"format":"ulidflake","text":"00CMXB6TAK4SA","int":14246757444195114,"timestamp":13586766666,"time":"2024-06-06T06:06:06.666Z","randomness":627498,"scalableRandomness":19609,"scalabilityId":10,"unixMs":1717653966666}`},
	{"0LQKPL5UFSUA7KQRAR5KB7MO1I", `{"format":"legacy","text":"0LQKPL5UFSUA7KQRAR5KB7MO1I","timestamp":1500339580831,"time":"2067-07-18T00:59:40.831Z","counter":217222989,"perSecRandom":7166765,"perGenRandom":377184306,"hex":"15d53352f9fcf28f4d6d5b2d167b6032","uuid":"15d53352-f9fc-f28f-4d6d-5b2d167b6032","unixMs":3078176380831}`},
}

func TestInspectPrintsEachFormatsFields(t *testing.T) {
	for _, v := range inspectVectors {
		out, errOut, status := runCLI(t, "", "inspect", v.input)
		if status != 0 || out != v.json+"\n" || errOut != "" {
			t.Errorf("inspect %s: status %d, stderr %q\n got %s\nwant %s", v.input, status, errOut, out, v.json)
		}
	}
}

func TestInspectJSONMatchesTheLibrary(t *testing.T) {
	// Field values checked against the packages, for fresh IDs of each format.
	id := scru128.New()
	var got struct {
		Timestamp uint64 `json:"timestamp"`
		CounterHi uint32 `json:"counterHi"`
		Entropy   uint32 `json:"entropy"`
		UUID      string `json:"uuid"`
		UnixMs    int64  `json:"unixMs"`
	}
	out, _, _ := runCLI(t, "", "inspect", id.String())
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	if got.Timestamp != id.Timestamp() || got.CounterHi != id.CounterHi() || got.Entropy != id.Entropy() ||
		got.UnixMs != id.Time().UnixMilli() || strings.ReplaceAll(got.UUID, "-", "") != fmt.Sprintf("%x", id[:]) {
		t.Errorf("inspect %s = %s", id, out)
	}
}

func TestInspectReadsUUIDAndHex(t *testing.T) {
	want := inspectVectors[0].json + "\n"
	for _, input := range []string{
		"017fee7f-ef41-7e2b-3432-ac2ec553687c",
		"017FEE7F-EF41-7E2B-3432-AC2EC553687C",
		"017fee7fef417e2b3432ac2ec553687c",
		"  017FEE7FEF417E2B3432AC2EC553687C\t",
	} {
		out, errOut, status := runCLI(t, "", "inspect", input)
		if status != 0 || out != want {
			t.Errorf("inspect %q: status %d, %q %q", input, status, out, errOut)
		}
	}
	// -format picks the 128-bit format whose bytes they are.
	for format, text := range map[string]string{"ulid": "01ARZ3NDEKTSV4RRFFQ69G5FAV", "legacy": "0LQKPL5UFSUA7KQRAR5KB7MO1I"} {
		var id [16]byte
		switch format {
		case "ulid":
			id = ulid.MustParse(text)
		case "legacy":
			id = legacy.MustParse(text)
		}
		out, errOut, status := runCLI(t, "", "inspect", "-format", format, uuidString(id))
		if status != 0 || !strings.Contains(out, `"text":"`+text+`"`) {
			t.Errorf("inspect -format %s %s: status %d, %q %q", format, uuidString(id), status, out, errOut)
		}
	}
	for _, tc := range []struct{ args []string }{
		{[]string{"inspect", "017fee7f-ef41-7e2b-3432-ac2ec553687g"}},
		{[]string{"inspect", "017fee7f+ef41-7e2b-3432-ac2ec553687c"}},
		{[]string{"inspect", "-format", "scru64", "017fee7fef417e2b3432ac2ec553687c"}},
		{[]string{"inspect", "-format", "ulidflake", "017fee7f-ef41-7e2b-3432-ac2ec553687c"}},
	} {
		out, errOut, status := runCLI(t, "", tc.args...)
		if status != 1 || out != "" || errOut == "" {
			t.Errorf("%q: status %d, %q %q", tc.args, status, out, errOut)
		}
	}
	_, errOut, _ := runCLI(t, "", "inspect", "017fee7f-ef41-7e2b-3432-ac2ec553687g")
	if !strings.Contains(errOut, "invalid character 'g' (0x67) at offset 35") {
		t.Errorf("stderr %q lacks the bad character's offset", errOut)
	}
	_, errOut, _ = runCLI(t, "", "inspect", "-format", "scru64", "017fee7fef417e2b3432ac2ec553687c")
	if !strings.Contains(errOut, "not a valid scru64 ID: a UUID or 32 hex digits holds 128 bits") {
		t.Errorf("stderr %q", errOut)
	}
}

func TestInspectLocalTime(t *testing.T) {
	saved := time.Local
	defer func() { time.Local = saved }()
	time.Local = time.FixedZone("JST", 9*3600)
	out, _, status := runCLI(t, "", "inspect", "-local", "0372hg16csmsm50l8dikcvukc")
	if status != 0 || !strings.Contains(out, `"time":"2022-04-03T17:17:16.097+09:00"`) || !strings.Contains(out, `"unixMs":1648973836097`) {
		t.Errorf("inspect -local: %q", out)
	}
	out, _, _ = runCLI(t, "", "inspect", "0372hg16csmsm50l8dikcvukc")
	if !strings.Contains(out, `"time":"2022-04-03T08:17:16.097Z"`) {
		t.Errorf("inspect without -local: %q", out)
	}
}

func TestInspectErrorsCarryOnePrefixAndTheInput(t *testing.T) {
	for _, tc := range []struct{ input, want string }{
		{"zzzzzzzzzzzzzzzzzzzzzzzzz", `scru128: "zzzzzzzzzzzzzzzzzzzzzzzzz": not a valid scru128 ID: value out of range (max f5lxx1zz5pnorynqglhzmsp33)` + "\n"},
		{"0372hg16cs_sm50l8dikcvukc", `scru128: "0372hg16cs_sm50l8dikcvukc": not a valid scru128 ID: invalid character '_' (0x5f) at offset 10` + "\n"},
		{"8ZZZZZZZZZZZZZZZZZZZZZZZZZ", `scru128: "8ZZZZZZZZZZZZZZZZZZZZZZZZZ": not a valid ulid ID: `},
		{"not-an-id", `scru128: "not-an-id": no ID format has this length (9 bytes; `},
	} {
		out, errOut, status := runCLI(t, "", "inspect", tc.input)
		if status != 1 || out != "" || !strings.HasPrefix(errOut, tc.want) {
			t.Errorf("inspect %s: status %d, stderr %q, want %q", tc.input, status, errOut, tc.want)
		}
	}
	_, errOut, _ := runCLI(t, "", "inspect", "-format", "ulid", "0372hg16csmsm50l8dikcvukc")
	if errOut != "scru128: \"0372hg16csmsm50l8dikcvukc\": a ulid ID has 26 characters, not 25\n" {
		t.Errorf("stderr %q", errOut)
	}
}

// TestInspectKeepsInputOrder sends stdout and stderr to one buffer: each
// error must come between the objects of the lines around it, with its
// line number.
func TestInspectKeepsInputOrder(t *testing.T) {
	in := "0372hg16csmsm50l8dikcvukc\n\nnot-an-id\n  0372ijojuxuhjsfkeryi2mrtm \r\nf5lxx1zz5pnorynqglhzmsp34\n0u375nxqh5cq"
	var both bytes.Buffer
	e := &Env{stdin: strings.NewReader(in), stdout: &both, stderr: &both, getenv: func(string) string { return "" }}
	if status := run([]string{"inspect"}, e); status != 1 {
		t.Fatalf("status %d, want 1", status)
	}
	got := lines(both.String())
	want := []string{
		`{"format":"scru128","text":"0372hg16csmsm50l8dikcvukc"`,
		`scru128: line 3: "not-an-id": no ID format has this length`,
		`{"format":"scru128","text":"0372ijojuxuhjsfkeryi2mrtm"`,
		`scru128: line 5: "f5lxx1zz5pnorynqglhzmsp34": not a valid scru128 ID: value out of range`,
		`{"format":"scru64","text":"0u375nxqh5cq"`,
	}
	if len(got) != len(want) {
		t.Fatalf("output:\n%s", both.String())
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("line %d = %q, want prefix %q", i+1, got[i], want[i])
		}
	}
}

func TestInspectLinesOfAnyLength(t *testing.T) {
	long := strings.Repeat("a", 1<<20)
	padded := strings.Repeat(" ", 100_000) + "0372ijojuxuhjsfkeryi2mrtm" + strings.Repeat("\t", 100_000)
	in := "0372hg16csmsm50l8dikcvukc\n" + long + "\n" + padded + "\n" + strings.Repeat("€", 30) + "\n0u375nxqh5cq\n"
	out, errOut, status := runCLI(t, in, "inspect")
	if status != 1 {
		t.Fatalf("status %d", status)
	}
	if n := strings.Count(out, "\n"); n != 3 || !strings.Contains(out, "0372ijojuxuhjsfkeryi2mrtm") || !strings.Contains(out, "0u375nxqh5cq") {
		t.Errorf("%d objects printed, want 3: %.300q", n, out)
	}
	wantErr := `scru128: line 2: "` + strings.Repeat("a", displayMax) + `"... (1048576 bytes): no ID format has this length (1048576 bytes;`
	errLines := lines(errOut)
	if len(errLines) != 2 || !strings.HasPrefix(errLines[0], wantErr) {
		t.Errorf("stderr %q, want first line %q", errOut, wantErr)
	}
	if len(errOut) > 400 {
		t.Errorf("stderr is %d bytes: the long line was not cut", len(errOut))
	}
	// A cut never splits a character.
	if want := `line 4: "` + strings.Repeat("€", displayMax/3) + `"... (90 bytes)`; !strings.Contains(errOut, want) {
		t.Errorf("stderr %q lacks %q", errOut, want)
	}
}

func TestLineReaderKeepsLittle(t *testing.T) {
	var in bytes.Buffer
	for i := range 1000 {
		fmt.Fprintf(&in, "%s\n", strings.Repeat("x", i*37))
	}
	lr := newLineReader(&in)
	for i := range 1000 {
		text, n, err := lr.next()
		if err != nil || n != i*37 || len(text) != min(n, keepMax) || lr.line != i+1 {
			t.Fatalf("line %d: %d bytes kept of %d, %v", i+1, len(text), n, err)
		}
	}
	if cap(lr.kept) != keepMax {
		t.Errorf("kept grew to %d bytes", cap(lr.kept))
	}
	if _, _, err := lr.next(); err != io.EOF {
		t.Errorf("after the last line: %v", err)
	}
}

func TestInspectArgumentsAreTrimmedLikeLines(t *testing.T) {
	out, errOut, status := runCLI(t, "", "inspect", " 0372hg16csmsm50l8dikcvukc\t", "0372hg16csmsm50l8dikcvukc\r")
	if status != 0 || strings.Count(out, `"text":"0372hg16csmsm50l8dikcvukc"`) != 2 {
		t.Errorf("status %d, %q %q", status, out, errOut)
	}
}

// failingWriter fails every write with err after accepting limit bytes.
type failingWriter struct {
	limit int
	err   error
}

func (w *failingWriter) Write(p []byte) (int, error) {
	if len(p) > w.limit {
		n := w.limit
		w.limit = 0
		return n, w.err
	}
	w.limit -= len(p)
	return len(p), nil
}

func TestWriteFailuresAreReported(t *testing.T) {
	enospc := &os.PathError{Op: "write", Path: "/dev/stdout", Err: syscall.ENOSPC}
	for _, args := range [][]string{
		{"gen"}, {"gen", "-n", "100000"}, {"inspect", "0372hg16csmsm50l8dikcvukc"}, {"version"}, {"help"}, {"gen", "-h"},
	} {
		var errOut bytes.Buffer
		e := &Env{stdin: strings.NewReader(""), stdout: &failingWriter{limit: 10, err: enospc}, stderr: &errOut, getenv: os.Getenv}
		status := run(args, e)
		if status != 1 || errOut.String() != "scru128: writing output: write /dev/stdout: no space left on device\n" {
			t.Errorf("%q: status %d, stderr %q", args, status, errOut.String())
		}
	}
}

func TestClosedPipeEndsQuietly(t *testing.T) {
	epipe := &os.PathError{Op: "write", Path: "/dev/stdout", Err: syscall.EPIPE}
	for _, args := range [][]string{{"gen", "-stream"}, {"gen", "-n", "1000000"}, {"inspect"}} {
		var errOut bytes.Buffer
		in := strings.Repeat("0372hg16csmsm50l8dikcvukc\n", 100_000)
		e := &Env{stdin: strings.NewReader(in), stdout: &failingWriter{limit: 1 << 20, err: epipe}, stderr: &errOut, getenv: os.Getenv}
		if status := run(args, e); status != 0 || errOut.Len() != 0 {
			t.Errorf("%q: status %d, stderr %q", args, status, errOut.String())
		}
	}
}

// TestMintFailureFlushesFirst: a -time run at the last millisecond Ulid-Flake
// can hold fills it, fails to move on, and must print what it made first.
func TestMintFailureFlushesFirst(t *testing.T) {
	last := fmt.Sprint(uint64(ulidflake.DefaultEpochMillis + ulidflake.MaxTimestamp))
	var both bytes.Buffer
	e := &Env{stdin: strings.NewReader(""), stdout: &both, stderr: &both, getenv: os.Getenv}
	status := run([]string{"gen", "-format", "ulidflake", "-time", last, "-n", "100000"}, e)
	ls := lines(both.String())
	// The millisecond's random part starts anywhere in its range and grows
	// by random steps (128 on average in 2^20), so how many IDs fit before
	// it overflows varies: about 8,000 on average, fewer than 100 in about
	// one run of 80. At least one always does.
	if status != 1 || len(ls) < 2 {
		t.Fatalf("status %d, %d lines", status, len(ls))
	}
	msg := ls[len(ls)-1]
	if !strings.HasPrefix(msg, "scru128: minting ulidflake IDs: ") || strings.Contains(msg, "ulidflake: ") {
		t.Errorf("last line %q: want the error, with one prefix", msg)
	}
	for _, l := range ls[:len(ls)-1] {
		if id, err := ulidflake.Parse(l); err != nil || id.Timestamp() != ulidflake.MaxTimestamp {
			t.Fatalf("line %q: %v", l, err)
		}
	}
}

// fakeMinter mints "id<k>" lines, asks to wait before every waitEvery-th
// one (if set), and fails after failAfter (if set).
type fakeMinter struct {
	k, waitEvery, failAfter int
	waiting                 bool
	delay                   time.Duration
	onWait                  func()
}

func (m *fakeMinter) mint(dst []byte, k int) ([]byte, int, error) {
	if m.failAfter > 0 && m.k == m.failAfter {
		return dst, 0, errors.New("out of IDs")
	}
	if m.waitEvery > 0 && m.k%m.waitEvery == m.waitEvery-1 && !m.waiting {
		m.waiting = true
		return dst, 0, errWouldWait
	}
	m.waiting = false
	time.Sleep(m.delay)
	m.k++
	return fmt.Appendf(dst, "id%d\n", m.k), 1, nil
}

func (m *fakeMinter) wait(<-chan struct{}) error {
	if m.onWait != nil {
		m.onWait()
	}
	return nil
}

func TestWriteIDsFlushesBeforeWaiting(t *testing.T) {
	var out bytes.Buffer
	m := &fakeMinter{waitEvery: 10}
	m.onWait = func() {
		if got := strings.Count(out.String(), "\n"); got != m.k {
			t.Errorf("at a wait after %d IDs, %d lines were written", m.k, got)
		}
	}
	c := startControl(idleStopper())
	defer c.end()
	if err := writeIDs(bufio.NewWriter(&out), 35, m, c); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(out.String(), "\n"); n != 35 {
		t.Errorf("%d lines, want 35", n)
	}
}

// TestWriteIDsTakesBatchesInRuns: a batch minter writes as many lines per
// call as the buffer holds, so a run ends inside a batch and the next goes
// on from there, whatever the buffer's size.
func TestWriteIDsTakesBatchesInRuns(t *testing.T) {
	for _, size := range []int{16, maxLine, 1000, 64 << 10} {
		m, err := formats[0].id.newMinter(mintOptions{batch: 256})
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		c := startControl(idleStopper())
		err = writeIDs(bufio.NewWriterSize(&out, size), 1000, m, c)
		c.end()
		ls := lines(out.String())
		if err != nil || len(ls) != 1000 {
			t.Fatalf("buffer of %d: err %v, %d lines, want 1000", size, err, len(ls))
		}
		for i, l := range ls {
			if _, err := scru128.Parse(l); err != nil || i > 0 && l <= ls[i-1] {
				t.Fatalf("buffer of %d: line %d %q after %q (%v)", size, i+1, l, ls[max(i-1, 0)], err)
			}
		}
	}
}

func TestWriteIDsLeavesLinesForTheCallerOnFailure(t *testing.T) {
	var out bytes.Buffer
	w := bufio.NewWriter(&out)
	c := startControl(idleStopper())
	defer c.end()
	err := writeIDs(w, -1, &fakeMinter{failAfter: 7}, c)
	w.Flush()
	if err == nil || err.Error() != "out of IDs" || strings.Count(out.String(), "\n") != 7 {
		t.Errorf("err %v, output %q", err, out.String())
	}
}

// timedWriter records when each write came.
type timedWriter struct {
	mu    sync.Mutex
	start time.Time
	at    []time.Duration
}

func (w *timedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.at = append(w.at, time.Since(w.start))
	return len(p), nil
}

func TestSlowStreamIsFlushedEvery100ms(t *testing.T) {
	w := &timedWriter{start: time.Now()}
	c := startControl(idleStopper())
	defer c.end()
	// 10 ms per ID, never asking to wait: only the 100-ms tick flushes.
	if err := writeIDs(bufio.NewWriter(w), 50, &fakeMinter{delay: 10 * time.Millisecond}, c); err != nil {
		t.Fatal(err)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.at) < 3 || w.at[0] > 200*time.Millisecond {
		t.Errorf("writes at %v: want the first within 200 ms and one about every 100 ms", w.at)
	}
}

func TestInterruptStopsGen(t *testing.T) {
	var out, errOut bytes.Buffer
	e := &Env{stdin: strings.NewReader(""), stdout: &out, stderr: &errOut, getenv: os.Getenv,
		notify: func(c chan<- os.Signal) { time.AfterFunc(50*time.Millisecond, func() { c <- os.Interrupt }) }}
	status := run([]string{"gen", "-stream"}, e)
	if status != 130 || errOut.Len() != 0 || out.Len() == 0 || !strings.HasSuffix(out.String(), "\n") || out.Len()%26 != 0 {
		t.Errorf("status %d, stderr %q, %d bytes of output", status, errOut.String(), out.Len())
	}
}

func TestGenOutputForms(t *testing.T) {
	for _, tc := range []struct {
		args    []string
		pattern func(string) bool
	}{
		{[]string{"gen", "-upper"}, func(s string) bool { return len(s) == 25 && s == strings.ToUpper(s) }},
		{[]string{"gen", "-format", "scru64", "-node", "1/8", "-upper"}, func(s string) bool { return len(s) == 12 && s == strings.ToUpper(s) }},
		{[]string{"gen", "-uuid"}, isUUID(false)},
		{[]string{"gen", "-format", "ulid", "-uuid", "-upper"}, isUUID(true)},
		{[]string{"gen", "-format", "legacy", "-uuid"}, isUUID(false)},
		{[]string{"gen", "-hex"}, isHex(32, false)},
		{[]string{"gen", "-hex", "-upper", "-format", "ulid"}, isHex(32, true)},
		{[]string{"gen", "-hex", "-format", "ulidflake"}, isHex(16, false)},
		{[]string{"gen", "-hex", "-format", "scru64", "-node", "1/8"}, isHex(16, false)},
	} {
		out, errOut, status := runCLI(t, "", append(tc.args, "-n", "20")...)
		ls := lines(out)
		if status != 0 || len(ls) != 20 {
			t.Fatalf("%q: status %d, %q", tc.args, status, errOut)
		}
		for i, l := range ls {
			if !tc.pattern(l) || i > 0 && strings.ToLower(l) <= strings.ToLower(ls[i-1]) {
				t.Errorf("%q: line %q after %q", tc.args, l, ls[max(i-1, 0)])
			}
		}
	}
	// A UUID from gen inspects as the ID it is.
	out, _, _ := runCLI(t, "", "gen", "-uuid")
	id, err := parseUUID(strings.TrimSpace(out))
	if err != nil {
		t.Fatal(err)
	}
	text := scru128.ID(id).String()
	out2, _, _ := runCLI(t, "", "inspect", strings.TrimSpace(out))
	if !strings.Contains(out2, `"text":"`+text+`"`) {
		t.Errorf("inspect of %s: %s", out, out2)
	}
}

func isUUID(upper bool) func(string) bool {
	return func(s string) bool {
		wrongCase := "ABCDEF"
		if upper {
			wrongCase = "abcdef"
		}
		if len(s) != 36 || strings.ContainsAny(s, wrongCase) {
			return false
		}
		_, err := parseUUID(s)
		return err == nil
	}
}

func isHex(n int, upper bool) func(string) bool {
	return func(s string) bool {
		if n == 16 {
			// A 64-bit ID's hex digits come after 0x (0X with -upper).
			prefix := "0x"
			if upper {
				prefix = "0X"
			}
			var ok bool
			if s, ok = strings.CutPrefix(s, prefix); !ok {
				return false
			}
		}
		// Digits alone are either case: only a letter of the wrong case fails.
		wrongCase := "ABCDEF"
		if upper {
			wrongCase = "abcdef"
		}
		return len(s) == n && strings.Trim(s, "0123456789abcdefABCDEF") == "" && !strings.ContainsAny(s, wrongCase)
	}
}

func TestGenTime(t *testing.T) {
	const ms = 1714564800123 // 2024-05-01T12:00:00.123Z
	for _, at := range []string{"2024-05-01T12:00:00.123Z", "2024-05-01T12:00:00.123999Z", "2024-05-01T14:00:00.123+02:00", "1714564800123"} {
		out, errOut, status := runCLI(t, "", "gen", "-time", at, "-n", "1000")
		if status != 0 || errOut != "" {
			t.Fatalf("-time %s: status %d, %q", at, status, errOut)
		}
		ls := lines(out)
		for i, l := range ls {
			id := scru128.MustParse(l)
			if id.Timestamp() != ms || i > 0 && l <= ls[i-1] {
				t.Fatalf("-time %s: line %q (timestamp %d) after %q", at, l, id.Timestamp(), ls[max(i-1, 0)])
			}
		}
	}
	// Every format; Ulid-Flake fills a millisecond within a few thousand
	// IDs and goes on at the next.
	for _, format := range []string{"scru64", "ulid", "ulidflake", "legacy"} {
		args := []string{"gen", "-format", format, "-time", "2024-05-01T12:00:00.123Z", "-n", "20000"}
		if format == "scru64" {
			args = append(args, "-node", "5/4")
		}
		out, errOut, status := runCLI(t, "", args...)
		ls := lines(out)
		if status != 0 || len(ls) != 20000 {
			t.Fatalf("%s: status %d, %d lines, %q", format, status, len(ls), errOut)
		}
		var first, last int64
		for i, l := range ls {
			if i > 0 && l <= ls[i-1] {
				t.Fatalf("%s: %q after %q", format, l, ls[i-1])
			}
			var tm time.Time
			switch format {
			case "scru64":
				tm = scru64.MustParse(l).Time()
			case "ulid":
				tm = ulid.MustParse(l).Time()
			case "ulidflake":
				tm = ulidflake.MustParse(l).Time()
			case "legacy":
				tm = legacy.MustParse(l).Time()
			}
			if i == 0 {
				first = tm.UnixMilli()
			}
			last = tm.UnixMilli()
		}
		wantFirst, span := int64(ms), int64(100)
		if format == "scru64" {
			// The start of its 256-ms tick. A node ID of 4 bits has a
			// 20-bit counter, which starts at random and so overflows
			// into the next tick within 20,000 IDs about one run in 50.
			wantFirst, span = ms&^255, 256
		}
		if first != wantFirst || last-first > span {
			t.Errorf("%s: times from %d to %d, want from %d", format, first, last, wantFirst)
		}
	}
}

func TestSCRU64NeedsANodeSpec(t *testing.T) {
	out, errOut, status := runCLI(t, "", "gen", "-format", "scru64")
	want := "scru128 gen: -format scru64 needs a node spec: pass -node, such as -node 42/8, or set SCRU64_NODE_SPEC\n"
	if status != 2 || out != "" || !strings.HasPrefix(errOut, want) {
		t.Errorf("status %d, stderr %q", status, errOut)
	}
	// The environment variable serves as -node's default.
	e, stdout, stderr := testEnv("", map[string]string{"SCRU64_NODE_SPEC": "42/8"})
	if status := run([]string{"gen", "-format", "scru64"}, e); status != 0 || scru64.MustParse(strings.TrimSpace(stdout.String())).NodeCtr()>>16 != 42 {
		t.Errorf("with SCRU64_NODE_SPEC: status %d, %q %q", status, stdout, stderr)
	}
	e, _, stderr = testEnv("", map[string]string{"SCRU64_NODE_SPEC": "42"})
	if status := run([]string{"gen", "-format", "scru64"}, e); status != 2 || !strings.Contains(stderr.String(), `SCRU64_NODE_SPEC: invalid node spec "42"`) {
		t.Errorf("with a bad SCRU64_NODE_SPEC: status %d, %q", status, stderr)
	}
}

// TestSCRU64PrintsWhereToContinueAndWaitsOutItsTick: without -state, gen
// names the -node value that continues after its last ID, and returns only
// once the last ID's tick is over.
func TestSCRU64PrintsWhereToContinueAndWaitsOutItsTick(t *testing.T) {
	out, errOut, status := runCLI(t, "", "gen", "-format", "scru64", "-node", "42/8", "-n", "10")
	done := time.Now().UnixMilli()
	ls := lines(out)
	if status != 0 || len(ls) != 10 {
		t.Fatalf("status %d, %q", status, errOut)
	}
	last := scru64.MustParse(ls[9])
	want := fmt.Sprintf("scru128: to continue after the last ID, pass -node %s/8 next time (or use -state FILE)\n", last)
	if errOut != want {
		t.Errorf("stderr %q, want %q", errOut, want)
	}
	if tickEnd := int64(last.Timestamp()+1) << 8; done < tickEnd {
		t.Errorf("returned at %d, inside the last ID's tick, which ends at %d", done, tickEnd)
	}
	// The spec it names continues the stream.
	out, _, status = runCLI(t, "", "gen", "-format", "scru64", "-node", last.String()+"/8", "-n", "1")
	if status != 0 || strings.TrimSpace(out) <= last.String() {
		t.Errorf("continuing from %s gave %q", last, out)
	}
	// Nothing minted, nothing to say.
	if _, errOut, _ := runCLI(t, "", "gen", "-format", "scru64", "-node", "42/8", "-n", "0"); errOut != "" {
		t.Errorf("-n 0: stderr %q", errOut)
	}
}

func TestSCRU64StateFile(t *testing.T) {
	dir := t.TempDir()
	state := filepath.Join(dir, "node")
	var prev string
	for i := range 3 {
		args := []string{"gen", "-format", "scru64", "-state", state, "-n", "50"}
		if i != 1 { // the file alone is enough once it exists
			args = append(args, "-node", "0x2a/8")
		}
		out, errOut, status := runCLI(t, "", args...)
		ls := lines(out)
		if status != 0 || errOut != "" || len(ls) != 50 {
			t.Fatalf("run %d: status %d, stderr %q", i, status, errOut)
		}
		if ls[0] <= prev {
			t.Fatalf("run %d starts at %s, not after %s", i, ls[0], prev)
		}
		prev = ls[49]
		data, err := os.ReadFile(state)
		if err != nil || string(data) != prev+"/8\n" {
			t.Fatalf("run %d: state %q, %v; want %s/8", i, data, err, prev)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 || entries[0].Name() != "node" || entries[1].Name() != "node.lock" {
		t.Errorf("the directory holds %v: temporary files were left", entries)
	}
	// Another node ID, or another size, is a mistake.
	for _, node := range []string{"43/8", "42/9"} {
		_, errOut, status := runCLI(t, "", "gen", "-format", "scru64", "-state", state, "-node", node)
		if status != 2 || !strings.Contains(errOut, "continues node 42/8, but -node names node "+node) {
			t.Errorf("-node %s: status %d, %q", node, status, errOut)
		}
	}
	os.WriteFile(state, []byte("garbage\n"), 0o644)
	if _, errOut, status := runCLI(t, "", "gen", "-format", "scru64", "-state", state); status != 1 || !strings.Contains(errOut, "the state file "+state+`: invalid node spec "garbage"`) {
		t.Errorf("a bad state file: status %d, %q", status, errOut)
	}
	// An empty file is not "no spec yet": gen never leaves one so.
	os.WriteFile(state, nil, 0o644)
	if _, errOut, status := runCLI(t, "", "gen", "-format", "scru64", "-state", state, "-node", "42/8"); status != 1 || !strings.HasPrefix(errOut, "scru128: the state file "+state+" is empty: ") {
		t.Errorf("an empty state file: status %d, %q", status, errOut)
	}
	// No file and no -node: nothing to mint under, and no lock file made
	// for nothing.
	os.Remove(state)
	os.Remove(state + ".lock")
	if _, errOut, status := runCLI(t, "", "gen", "-format", "scru64", "-state", state); status != 2 || !strings.Contains(errOut, "needs a node spec") {
		t.Errorf("no state file and no -node: status %d, %q", status, errOut)
	}
	if _, err := os.Lstat(state + ".lock"); err == nil {
		t.Errorf("a run refused for want of a node spec made the lock file")
	}
	// A state file that cannot be written stops gen before its first ID:
	// no ID may be printed that the file does not cover.
	readOnly := filepath.Join(dir, "ro")
	os.Mkdir(readOnly, 0o755)
	os.WriteFile(filepath.Join(readOnly, "node.lock"), nil, 0o644)
	os.Chmod(readOnly, 0o555)
	defer os.Chmod(readOnly, 0o755)
	out, errOut, status := runCLI(t, "", "gen", "-format", "scru64", "-node", "1/8", "-state", filepath.Join(readOnly, "node"))
	if os.Geteuid() == 0 {
		t.Log("running as root: a directory cannot refuse a file")
	} else if status != 1 || out != "" || errOut != "" && strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, "writing the state file") {
		t.Errorf("an unwritable state file: status %d, stdout %q, stderr %q", status, out, errOut)
	}
	// Nor can one in a directory that is not there.
	out, errOut, status = runCLI(t, "", "gen", "-format", "scru64", "-node", "1/8", "-state", filepath.Join(dir, "missing", "node"))
	if status != 1 || out != "" || errOut != "scru128: the state file "+filepath.Join(dir, "missing", "node")+": lstat "+filepath.Join(dir, "missing")+": no such file or directory\n" {
		t.Errorf("a state file in no directory: status %d, stdout %q, stderr %q", status, out, errOut)
	}
}

// TestSCRU64StateFileHasNoTickToWaitOut: with -state gen ends at once.
// A 2-bit counter runs 50 IDs some 3 s ahead of the clock, which a run
// without -state would wait out.
func TestSCRU64StateFileHasNoTickToWaitOut(t *testing.T) {
	start := time.Now()
	out, errOut, status := runCLI(t, "", "gen", "-format", "scru64", "-node", "0x3fffff/22", "-state", filepath.Join(t.TempDir(), "node"), "-n", "50")
	ls := lines(out)
	if status != 0 || errOut != "" || len(ls) != 50 {
		t.Fatalf("status %d, %d lines, stderr %q", status, len(ls), errOut)
	}
	ahead := time.Until(scru64.MustParse(ls[49]).Time())
	if took := time.Since(start); ahead < time.Second || took > ahead/2 {
		t.Errorf("the last ID is %v ahead of the clock, and gen took %v", ahead, took)
	}
}

func TestParseTime(t *testing.T) {
	for in, want := range map[string]int64{
		"1714564800000":                 1714564800000,
		"2024-05-01T12:00:00Z":          1714564800000,
		"2024-05-01T12:00:00.5Z":        1714564800500,
		"2024-05-01T12:00:00.999999Z":   1714564800999,
		"2024-05-01T13:00:00.25+01:00":  1714564800250,
		"0":                             0,
		"2024-05-01T12:00:00.000-00:00": 1714564800000,
		"1714564800s":                   1714564800000,
		"1714564800123ms":               1714564800123,
		"1714564800123999us":            1714564800123,
		"1714564800123999999ns":         1714564800123,
		"99999999":                      99999999,     // 1970-01-02 in milliseconds, 1973 in seconds
		"100000000000":                  100000000000, // 1973-03-03 in milliseconds, 5138 in seconds
	} {
		if got, err := parseTime(in, time.Now(), time.UTC); err != nil || got != want {
			t.Errorf("parseTime(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{
		"", "-1", "+1", "1e3", "99999999999999999999", "2024-5-1", "2024-05-01 12:00:00Z", "now",
		"s", "ms", "- 5s", "-5 s", "1.5s", "5 s", "5S", "5sec", "9223372036854775807s", "1714564800", "99999999999",
	} {
		if _, err := parseTime(in, time.Now(), time.UTC); err == nil {
			t.Errorf("parseTime(%q) succeeded", in)
		}
	}
}

// TestParseTimeDatesAndDurationsFromNow: -time takes a date, at midnight
// UTC or in the zone given, and a signed duration from now (before issue
// 33 both were refused).
func TestParseTimeDatesAndDurationsFromNow(t *testing.T) {
	now := time.Date(2026, 11, 29, 10, 30, 0, 500_000_000, time.UTC)
	plus2 := time.FixedZone("UTC+2", 2*60*60)
	for _, tc := range []struct {
		in   string
		loc  *time.Location
		want time.Time
	}{
		{"2024-05-01", time.UTC, time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)},
		{"2024-05-01", plus2, time.Date(2024, 4, 30, 22, 0, 0, 0, time.UTC)},
		{"2024-05-01T12:00:00Z", plus2, time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)}, // its own offset wins
		{"-1h", time.UTC, now.Add(-time.Hour)},
		{"+30m", time.UTC, now.Add(30 * time.Minute)},
		{"-1h30m15.25s", time.UTC, now.Add(-(time.Hour + 30*time.Minute + 15250*time.Millisecond))},
		{"-5s", time.UTC, now.Add(-5 * time.Second)},
	} {
		got, err := parseTime(tc.in, now, tc.loc)
		if err != nil || got != tc.want.UnixMilli() {
			t.Errorf("parseTime(%q, %v) = %d, %v; want %d (%s)", tc.in, tc.loc, got, err, tc.want.UnixMilli(), tc.want)
		}
	}
	// Through gen, with -local: midnight in the process's zone.
	out, errOut, status := runCLI(t, "", "gen", "-time", "2024-05-01", "-format", "ulid")
	if status != 0 || errOut != "" || ulid.MustParse(strings.TrimSpace(out)).Timestamp() != 1714521600000 {
		t.Errorf("-time 2024-05-01: status %d, %q %q", status, out, errOut)
	}
	out, errOut, status = runCLI(t, "", "gen", "-time", "2024-05-01", "-local", "-format", "ulid")
	want := time.Date(2024, 5, 1, 0, 0, 0, 0, time.Local).UnixMilli()
	if status != 0 || errOut != "" || int64(ulid.MustParse(strings.TrimSpace(out)).Timestamp()) != want {
		t.Errorf("-time 2024-05-01 -local: status %d, %q %q", status, out, errOut)
	}
	before := time.Now().Add(-time.Hour).UnixMilli()
	out, errOut, status = runCLI(t, "", "gen", "-time", "-1h", "-format", "ulid")
	after := time.Now().Add(-time.Hour).UnixMilli()
	if ms := int64(ulid.MustParse(strings.TrimSpace(out)).Timestamp()); status != 0 || errOut != "" || ms < before || ms > after {
		t.Errorf("-time -1h: status %d, %q %q", status, out, errOut)
	}
	if _, errOut, status := runCLI(t, "", "gen", "-local"); status != 2 || !strings.Contains(errOut, "-local reads a -time date") {
		t.Errorf("-local without a date: status %d, %q", status, errOut)
	}
}

// TestGenRefusesSecondsAsMilliseconds: gen -time $(date +%s) used to mint
// IDs of 1970-01-21. A bare integer that reads as Unix seconds is a usage
// error that names both readings and how to write each; with a unit it
// is taken.
func TestGenRefusesSecondsAsMilliseconds(t *testing.T) {
	out, errOut, status := runCLI(t, "", "gen", "-time", "1714564800")
	want := `scru128 gen: -time "1714564800": a bare integer is Unix milliseconds (1970-01-20T20:16:04.800Z), ` +
		`but this looks like Unix seconds (2024-05-01T12:00:00Z): write 1714564800s for seconds, or 1714564800ms if you mean milliseconds` + "\n"
	if status != 2 || out != "" || !strings.HasPrefix(errOut, want) {
		t.Errorf("-time 1714564800: status %d, stdout %q, stderr %q", status, out, errOut)
	}
	for _, at := range []string{"1714564800s", "1714564800000ms", "1714564800000000us", "1714564800000000000ns"} {
		out, errOut, status := runCLI(t, "", "gen", "-time", at, "-format", "ulid")
		if status != 0 || errOut != "" || ulid.MustParse(strings.TrimSpace(out)).Timestamp() != 1714564800000 {
			t.Errorf("-time %s: status %d, %q %q", at, status, out, errOut)
		}
	}
}

func TestVersion(t *testing.T) {
	out, errOut, status := runCLI(t, "", "version")
	if status != 0 || errOut != "" || !strings.HasPrefix(out, "scru128 ") || !strings.Contains(out, "go:       go1.") {
		t.Errorf("version: status %d, %q %q", status, out, errOut)
	}
	if out2, _, _ := runCLI(t, "", "--version"); out2 != out {
		t.Errorf("--version printed %q", out2)
	}
	if got := versionText(nil); !strings.HasPrefix(got, "scru128 (unknown)\nmodule:   github.com/fastid/scru128/cmd/scru128 (unknown)\nrevision: unknown") {
		t.Errorf("without build information: %q", got)
	}
}

func TestBench(t *testing.T) {
	out, errOut, status := runCLI(t, "", "bench", "-benchtime", "1x", "-json")
	if status != 0 {
		t.Fatalf("status %d, %q", status, errOut)
	}
	var report benchReport
	if err := json.Unmarshal([]byte(out), &report); err != nil {
		t.Fatalf("-json output does not parse: %v\n%s", err, out)
	}
	m := report.Machine
	if len(report.Results) != len(benchCases()) || m.GOOS == "" || m.GoVersion == "" || m.NumCPU < 1 || m.GOMAXPROCS < 1 {
		t.Errorf("report %+v", report)
	}
	formatsSeen := map[string]bool{}
	for _, r := range report.Results {
		formatsSeen[r.Format] = true
		if r.Iterations < 1 || r.NsPerOp <= 0 || r.Errors != 0 {
			t.Errorf("result %+v", r)
		}
	}
	if len(formatsSeen) != len(formats) {
		t.Errorf("formats measured: %v", formatsSeen)
	}
	if strings.Count(errOut, "\n") != len(benchCases()) {
		t.Errorf("progress on stderr: %q", errOut)
	}

	out, _, status = runCLI(t, "", "bench", "-benchtime", "1x", "-format", "SCRU64")
	ls := lines(out)
	if status != 0 || !strings.HasPrefix(ls[0], "machine: ") || len(ls) != 3+1+4 || !strings.Contains(out, "mint Generator.Generate") {
		t.Errorf("table:\n%s", out)
	}
}

// BenchmarkStream measures `gen -stream` into io.Discard: IDs per second is
// 1e9 / ns/op.
func BenchmarkStream(b *testing.B) {
	b.ReportAllocs()
	m, err := formats[0].id.newMinter(mintOptions{batch: 256})
	if err != nil {
		b.Fatal(err)
	}
	c := startControl(idleStopper())
	defer c.end()
	if err := writeIDs(bufio.NewWriterSize(io.Discard, 64<<10), int64(b.N), m, c); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds()/1e6, "Mids/s")
}
