//go:build (unix && !aix) || windows

package cli

// The node ID a SCRU64 run of gen mints under, from -node, $SCRU64_NODE_SPEC
// or a -state file (a localNode), or leased from etcd with -etcd (a
// leasedNode), and what each must do so that no run repeats another's IDs.

import (
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"math"
	"os"
	"strings"
	"time"

	"github.com/fastid/scru128/scru64"
)

// nodeFlags are gen's flags of a format minted under a node ID.
type nodeFlags struct {
	spec, statePath *string
	etcd            EtcdFlags
}

// check returns what is wrong with the node flags for a run of format f,
// parsed into fs, with -time if backfill.
func (n nodeFlags) check(fs *flag.FlagSet, f *format, backfill bool) error {
	if !f.node {
		for _, name := range append([]string{"node", "state"}, etcdFlagNames()...) {
			if WasSet(fs, name) {
				return fmt.Errorf("-%s applies to %s only", name, formatNames("-format ", "or", func(f *format) bool { return f.node }))
			}
		}
		return nil
	}
	if *n.etcd.Endpoints == "" {
		for _, name := range etcdFlagNames()[1:] {
			if WasSet(fs, name) {
				return fmt.Errorf("-%s needs -etcd", name)
			}
		}
		return nil
	}
	switch {
	case *n.spec != "" || *n.statePath != "":
		return errors.New("-etcd leases the node ID: it excludes -node and -state")
	case backfill:
		return errors.New("-etcd mints at the clock's time: it excludes -time (backfill with -node instead)")
	case *n.etcd.Size < 1 || *n.etcd.Size > 23:
		return fmt.Errorf("-etcd-size %d: want 1 to 23", *n.etcd.Size)
	}
	return nil
}

// Node is the node ID a run mints under.
type Node interface {
	// Generate mints an ID stamped with the clock; it returns
	// scru64.ErrClockRollback when the stream has to wait for the clock.
	Generate() (scru64.ID, error)
	// Backfill returns how a gen -time run mints, from atMillis on.
	Backfill(atMillis int64) func() (scru64.ID, error)
	// Finish does what must follow the last ID and returns an exit status.
	// It returns within signalGrace of a signal.
	Finish(e *Env, stop *Stopper, backfill bool) int
}

// openNode returns the node of the flags, or nil and an exit status after
// reporting why there is none.
//
// A node whose last ID is ahead of the clock makes a run stamped by the
// clock wait; gen says so, and refuses a wait past maxClockWait (see
// checkClockWait). A backfill run (-time) does not wait for the clock.
func openNode(e *Env, flags nodeFlags, stop *Stopper, backfill bool) (Node, int) {
	if *flags.etcd.Endpoints != "" {
		return LeaseNode(e, flags.etcd, stop)
	}
	return openLocalNode(e, *flags.spec, *flags.statePath, backfill)
}

// LeaseNode leases the node ID of a gen -etcd run from etcd, once the
// run's flags are checked and its signals watched. It returns nil and an
// exit status after reporting why there is none, or at once when stop's
// signal comes. Package etcdcli sets it, in scru128-etcd. In scru128 it
// is nil: gen hands a -etcd run over to scru128-etcd before it starts
// (see handOver).
var LeaseNode func(e *Env, flags EtcdFlags, stop *Stopper) (Node, int)

// mintSCRU64 is the SCRU64 format's minting, under the run's node.
func mintSCRU64(o mintOptions) (*idMinter[scru64.ID], error) {
	if o.atMillis != 0 {
		return &idMinter[scru64.ID]{next: o.node.Backfill(o.atMillis)}, nil
	}
	// Minting fails with ErrClockRollback when the counter has run so far
	// ahead of the clock (or the clock has gone back so far) that the
	// stream has to wait; gen flushes its output first.
	generate := o.node.Generate
	return &idMinter[scru64.ID]{
		next: func() (scru64.ID, error) {
			id, err := generate()
			if errors.Is(err, scru64.ErrClockRollback) {
				return id, errWouldWait
			}
			return id, err
		},
		waitFor: func(stop <-chan struct{}) (scru64.ID, error) {
			for {
				id, err := generate()
				if !errors.Is(err, scru64.ErrClockRollback) {
					return id, err
				}
				select {
				case <-stop:
					return 0, ErrInterrupted
				case <-time.After(16 * time.Millisecond):
				}
			}
		},
	}, nil
}

// localNode is a node from -node, $SCRU64_NODE_SPEC or a -state file.
//
// With -state, the file is locked for the whole run, and always holds a
// spec that continues after every ID printed, so that a rerun after SIGKILL
// repeats none: a high-water mark, the largest ID the node could mint at
// tick bound (its counter all ones), written and synced before any ID past
// raiseAt is handed out. raiseAt is leadTicks/2 below bound (or, when raise
// holds the bound back near the clock, the tick of the ID that raised it),
// so the file is rewritten ahead of need, about every 2.5 s of IDs, not
// once per ID. At the end the file gets the exact last ID instead.
type localNode struct {
	gen   *scru64.Generator
	start scru64.NodeSpec
	state *stateFile // nil without -state
	// raiseAt is the tick past which an ID needs a higher mark first:
	// initially 0, since the file's spec may be an exact last ID, and
	// without -state never.
	raiseAt uint64
	marked  bool // a mark was written, so it covers every ID printed
}

// leadTicks is how far ahead of the IDs the -state mark is set: 20 ticks,
// 5.12 s, as etcdnode keeps its record.
const leadTicks = 20

// allowanceTicks is scru64.DefaultRollbackAllowance in ticks: a spec whose
// last ID is at most that far ahead of the clock goes on at once.
const allowanceTicks = scru64.DefaultRollbackAllowance >> 8

// openLocalNode makes the node from -node (or the environment) and the
// -state file, which it locks for the run. It returns nil and an exit
// status after reporting an error.
func openLocalNode(e *Env, flagSpec, statePath string, backfill bool) (Node, int) {
	source := "-node"
	if flagSpec == "" {
		flagSpec, source = e.getenv(scru64.NodeSpecEnv), scru64.NodeSpecEnv
	}
	flagSpec = strings.TrimSpace(flagSpec)
	var spec scru64.NodeSpec
	if flagSpec != "" {
		var err error
		if spec, err = scru64.ParseNodeSpec(flagSpec); err != nil {
			return nil, UsageFailure(e, "gen", source+": "+Reason(err))
		}
	}
	noSpec := func() int {
		return UsageFailure(e, "gen", "-format scru64 needs a node spec: pass -node, such as -node 42/8, or set "+scru64.NodeSpecEnv)
	}
	if statePath == "" {
		if spec.IsZero() {
			return nil, noSpec()
		}
		if status := ClockNotice(e, spec, backfill); status != ExitOK {
			return nil, status
		}
		return &localNode{gen: scru64.NewGenerator(spec), start: spec, raiseAt: scru64.MaxTimestamp}, ExitOK
	}
	if _, err := os.Lstat(statePath); spec.IsZero() && errors.Is(err, fs.ErrNotExist) {
		return nil, noSpec() // before the lock file is made, for nothing
	}
	state, err := openStateFile(statePath)
	if err != nil {
		return nil, Failure(e, err)
	}
	stateSpec, found, err := state.read()
	switch {
	case err != nil:
		state.close()
		return nil, Failure(e, err)
	case !found && spec.IsZero(): // a link to no file yet, or a file just removed
		state.close()
		return nil, noSpec()
	case found && !spec.IsZero() && (spec.NodeID() != stateSpec.NodeID() || spec.NodeIDSize() != stateSpec.NodeIDSize()):
		state.close()
		return nil, UsageFailure(e, "gen", fmt.Sprintf(
			"the state file %s continues node %d/%d, but %s names node %d/%d",
			state.name(), stateSpec.NodeID(), stateSpec.NodeIDSize(), source, spec.NodeID(), spec.NodeIDSize()))
	case found:
		spec = stateSpec
	}
	if status := ClockNotice(e, spec, backfill); status != ExitOK {
		state.close()
		return nil, status
	}
	return &localNode{gen: scru64.NewGenerator(spec), start: spec, state: state}, ExitOK
}

func (n *localNode) Generate() (scru64.ID, error) {
	id, err := n.gen.Generate()
	if err == nil && id.Timestamp() > n.raiseAt {
		err = n.raise(id, true)
	}
	return id, err
}

func (n *localNode) Backfill(atMillis int64) func() (scru64.ID, error) {
	ms := uint64(atMillis)
	started := false
	return func() (scru64.ID, error) {
		id, err := n.gen.GenerateOrAbortCore(ms, rollbackAllowance)
		if started && errors.Is(err, scru64.ErrClockRollback) {
			// The run has overflowed so many counters that its timestamps
			// are 10 s ahead of -time: let the time it is minted at
			// follow, as a clock would.
			ms = n.gen.NodeSpec().NodePrev().Timestamp() << 8
			id, err = n.gen.GenerateOrAbortCore(ms, rollbackAllowance)
		}
		if errors.Is(err, scru64.ErrClockRollback) {
			return id, fmt.Errorf("the node's last ID, %s, is more than 10 s after -time (%s)",
				n.gen.NodeSpec().NodePrev(), Reason(err))
		}
		if err != nil {
			return id, err
		}
		started = true
		if id.Timestamp() > n.raiseAt {
			err = n.raise(id, false)
		}
		return id, err
	}
}

// raise writes a mark above id, which is not handed out unless it
// succeeds. In a run stamped by the clock (fromClock) the mark stays within
// the rollback allowance of the clock, so that a rerun right after a kill
// need not wait for the clock to reach it; the mark is then rewritten at
// most once per tick when a burst keeps the IDs that far ahead.
func (n *localNode) raise(id scru64.ID, fromClock bool) error {
	tick := id.Timestamp()
	bound := tick + leadTicks
	if fromClock {
		clockTick := uint64(time.Now().UnixMilli()) >> 8
		bound = max(tick, min(bound, clockTick+allowanceTicks-1))
	}
	bound = min(bound, scru64.MaxTimestamp-1) // MaxTimestamp is reserved
	size := n.gen.NodeIDSize()
	counterBits := 24 - size
	mark, err := scru64.FromParts(bound, n.gen.NodeID()<<counterBits|(1<<counterBits-1))
	if err != nil {
		return err
	}
	spec, err := scru64.NewNodeSpecWithNodePrev(mark, size)
	if err != nil {
		return err
	}
	if err := n.state.write(spec.String() + "\n"); err != nil {
		return err
	}
	n.marked = true
	n.raiseAt = max(bound-leadTicks/2, tick)
	return nil
}

// Finish saves the spec to continue from in the state file and unlocks
// it, or prints the spec and waits until the last ID's tick is over
// (unless the IDs were stamped with -time, whose tick is not now's), or
// until the grace after a signal is over. It returns an exit status.
func (n *localNode) Finish(e *Env, stop *Stopper, backfill bool) int {
	if n.state != nil {
		defer n.state.close()
	}
	next := n.gen.NodeSpec()
	if next.NodePrev() == n.start.NodePrev() {
		return ExitOK // no ID was minted
	}
	switch {
	case n.state != nil && !n.marked:
		// Every ID needs a mark before it is handed out, so none was: the
		// first mark failed, and the run reported it.
		return ExitFailure
	case n.state != nil:
		if err := n.state.write(next.String() + "\n"); err != nil {
			// The mark in the file is above every ID printed: a rerun
			// with it repeats none.
			return Failure(e, fmt.Errorf("%w (the file keeps a spec ahead of every ID printed; -node %s continues right after the last)", err, next))
		}
		return ExitOK
	}
	Warn(e, fmt.Sprintf("to continue after the last ID, pass -node %s next time (or use -state FILE)", next))
	if backfill {
		return ExitOK
	}
	// The last ID's tick ends at (timestamp+1)*256 ms. A fresh generator
	// with the same node ID starts at the clock's tick, so once that tick is
	// later, its IDs are all greater than this run's.
	tickEnd := time.UnixMilli(int64(next.NodePrev().Timestamp()+1) << 8)
	wait := time.Until(tickEnd)
	if wait <= 0 {
		return ExitOK
	}
	if wait > time.Second {
		Warn(e, fmt.Sprintf("waiting %v for the clock to pass the last ID's tick", wait.Round(time.Millisecond)))
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case <-timer.C:
		return ExitOK
	case <-stop.expired:
		Warn(e, "interrupted inside the last ID's tick: a rerun with the same node ID may repeat IDs unless it continues with the -node above")
		return ExitFailure
	}
}

// maxClockWait is the longest gen waits, at the start, for the clock to
// reach a node's last ID. A last ID further ahead was left by a clock that
// ran fast, or typed wrong, and waiting would not mend it in any useful
// time: gen refuses it at once and says how far ahead it is.
const maxClockWait = 24 * time.Hour

// maxDurationMillis is the longest span, in milliseconds, a time.Duration
// holds (about 292 years); SCRU64 timestamps reach the year 10889.
const maxDurationMillis = math.MaxInt64 / int64(time.Millisecond)

// clockWaitMillis returns how long a node that continues after last must
// wait, with the clock at nowMillis, before it may mint: until the clock is
// within the rollback allowance from the first millisecond of the tick
// allowanceTicks before last's, as scru64's generator and nodelease decide
// it. It counts in milliseconds, in int64, so that a last ID centuries
// ahead gives its true wait rather than an overflowed time.Duration.
func clockWaitMillis(last scru64.ID, nowMillis int64) int64 {
	tick := last.Timestamp()
	if tick <= allowanceTicks {
		return 0
	}
	return max(int64((tick-allowanceTicks)<<8)-nowMillis, 0)
}

// spanText words a span of milliseconds: as a duration, to the
// millisecond under a minute (1.234s) and to the second above (1h2m3s), or,
// from two years on, in years (a time.Duration holds no more than 292).
func spanText(ms int64) string {
	const msPerYear = 365.2425 * 24 * 60 * 60 * 1000
	if float64(ms) >= 2*msPerYear || ms > maxDurationMillis {
		return fmt.Sprintf("about %.0f years", float64(ms)/msPerYear)
	}
	d := time.Duration(ms) * time.Millisecond
	if d >= time.Minute {
		d = d.Round(time.Second)
	}
	return d.String()
}

// clockWaitError is a node whose last ID is more than maxClockWait ahead
// of the clock: gen refuses to wait for it.
type clockWaitError struct {
	spec      scru64.NodeSpec // the node, and the ID it continues after
	nowMillis int64
}

func (e *clockWaitError) Error() string {
	last := e.spec.NodePrev()
	return fmt.Sprintf("node ID %d continues after %s (%s), %s ahead of the clock (%s): too far to wait "+
		"(gen waits at most %v); a clock that ran fast left it there, or the ID is wrong",
		e.spec.NodeID(), last, last.Time().Format(rfc3339Milli),
		spanText(clockWaitMillis(last, e.nowMillis)), time.UnixMilli(e.nowMillis).UTC().Format(rfc3339Milli), maxClockWait)
}

// ClockNotice says on stderr how long a run of a node of spec, stamped by
// the clock, waits for the clock before its first ID, if that is a second
// or more; it returns ExitFailure after reporting a wait past
// maxClockWait.
func ClockNotice(e *Env, spec scru64.NodeSpec, backfill bool) int {
	if backfill {
		return ExitOK
	}
	wait, err := checkClockWait(spec, time.Now().UnixMilli())
	switch {
	case err != nil:
		return Failure(e, err)
	case wait >= time.Second.Milliseconds(): // a shorter wait passes unremarked, as a full counter's does
		last := spec.NodePrev()
		Warn(e, fmt.Sprintf("waiting %s for the clock: node ID %d continues after %s (%s), which was minted ahead of this clock",
			spanText(wait), spec.NodeID(), last, last.Time().Format(rfc3339Milli)))
	}
	return ExitOK
}

// checkClockWait returns a *clockWaitError if a node of spec would wait
// more than maxClockWait for a clock at nowMillis, and how long it waits.
func checkClockWait(spec scru64.NodeSpec, nowMillis int64) (waitMillis int64, err error) {
	if spec.IsZero() {
		return 0, nil
	}
	waitMillis = clockWaitMillis(spec.NodePrev(), nowMillis)
	if waitMillis > maxClockWait.Milliseconds() {
		return waitMillis, &clockWaitError{spec: spec, nowMillis: nowMillis}
	}
	return waitMillis, nil
}
