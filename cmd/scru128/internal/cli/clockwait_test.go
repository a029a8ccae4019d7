//go:build (unix && !aix) || windows

package cli

import (
	"strings"
	"testing"
	"time"

	"github.com/fastid/scru128/internal/nodelease"
	"github.com/fastid/scru128/scru64"
)

// farAhead is the continuity record of issue 33: node ID 5 of 8 bits,
// last ID in 4261, some 2,235 years ahead, which overflows a time.Duration.
const farAhead = "zzzzzzzg98n3/8"

// TestRecordAheadSaysTheTrueWait: a node a few hours ahead waits, and says
// how long; a backfill (-time) does not wait at all.
func TestRecordAheadSaysTheTrueWait(t *testing.T) {
	now := time.Now().UnixMilli()
	spec, err := scru64.NewNodeSpecWithNodeID(5, 8) // its last ID is at time 0: no wait
	if err != nil {
		t.Fatal(err)
	}
	if wait, err := checkClockWait(spec, now); wait != 0 || err != nil {
		t.Errorf("a fresh node: wait %d ms, %v", wait, err)
	}
	ahead := specAfter(t, now+3*time.Hour.Milliseconds())
	wait, err := checkClockWait(ahead, now)
	// The allowance lets it mint up to 39 ticks (9.984 s) before its last
	// ID's tick.
	if err != nil || wait < 3*time.Hour.Milliseconds()-10_300 || wait > 3*time.Hour.Milliseconds() {
		t.Errorf("a node 3 h ahead: wait %d ms, %v; want about 3 h", wait, err)
	}
	if _, err := checkClockWait(specAfter(t, now+25*time.Hour.Milliseconds()), now); err == nil {
		t.Error("a node 25 h ahead: no error, want too far to wait")
	}
	_, errOut, status := runCLI(t, "", "gen", "-format", "scru64", "-node", ahead.String(),
		"-time", time.UnixMilli(now+3*time.Hour.Milliseconds()).UTC().Format(time.RFC3339Nano))
	if status != ExitOK || strings.Contains(errOut, "wait") {
		t.Errorf("a backfill after a far record: status %d, stderr %q", status, errOut)
	}
}

// specAfter returns a node spec of node ID 5/8 continuing after an ID of
// time ms.
func specAfter(t *testing.T, ms int64) scru64.NodeSpec {
	t.Helper()
	id, err := scru64.FromParts(uint64(ms)>>8, 5<<16)
	if err != nil {
		t.Fatal(err)
	}
	spec, err := scru64.NewNodeSpecWithNodePrev(id, 8)
	if err != nil {
		t.Fatal(err)
	}
	return spec
}

// TestRollbackErrorWordsTheTrueWait: nodelease's RollbackError carries its
// wait as a time.Duration, which a record centuries ahead overflows (its
// own text says "minting resumes in 0s"); the tool words it from the last
// ID and the clock instead.
func TestRollbackErrorWordsTheTrueWait(t *testing.T) {
	far, err := scru64.Parse(farAhead[:12])
	if err != nil {
		t.Fatal(err)
	}
	clock := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	got := Reason(&nodelease.RollbackError{NodeID: 5, Last: far, Clock: clock, Wait: 0})
	if !strings.HasSuffix(got, ": too far to wait") || strings.Contains(got, "0s") || !strings.Contains(got, "about 2235 years behind") {
		t.Errorf("far ahead: %q", got)
	}
	near := specAfter(t, clock.UnixMilli()+90_000).NodePrev()
	got = Reason(&nodelease.RollbackError{NodeID: 5, Last: near, Clock: clock, Wait: time.Minute})
	if !strings.Contains(got, "minting resumes in 1m") {
		t.Errorf("90 s ahead: %q", got)
	}
}
