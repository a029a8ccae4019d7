package main

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/fastid/scru128/internal/etcdhttp"
	"github.com/fastid/scru128/internal/nodelease"
	"github.com/fastid/scru128/scru64"
)

const genUsage = `Usage: scru128 gen [flags]

Print new IDs, one per line, as one increasing stream.

Flags:
  -n N         print N IDs (default 1; 0 prints none)
  -stream      print IDs until stdout is closed or the process is interrupted
  -format F    scru128 (default), scru64, ulid, ulidflake or legacy, in any case
  -time T      stamp the IDs with time T instead of now, for backfills: RFC 3339
               (2024-05-01T12:00:00Z, with an optional fraction, cut to the
               millisecond) or Unix milliseconds (1714564800000); the IDs are
               one increasing run that moves on to the next millisecond when
               one is full
  -upper       print letters in upper case
  -uuid        print each ID's 16 bytes as a UUID, 8-4-4-4-12 (scru128, ulid,
               legacy)
  -hex         print each ID's bytes as hexadecimal digits: 32, or 16 for
               scru64 and ulidflake
  -node SPEC   scru64 node spec: 42/8 (node ID 42, 8 bits), 0xb00/12, or the
               last ID and size to continue after, 0u375nxqh5cq/8 (default:
               $SCRU64_NODE_SPEC)
  -state FILE  scru64: take the node spec from FILE if it exists, and write
               there the spec to continue from when done
  -etcd URLS   scru64: lease a free node ID from the etcd cluster at URLS
               (comma-separated client URLs, http://127.0.0.1:2379 or
               127.0.0.1:2379) instead of -node; the run continues after the
               node ID's last ID, stops minting if the lease is lost, and
               gives the node ID back when done
  -etcd-prefix P
               the etcd key prefix of the node IDs (default /scru64/)
  -etcd-size N the node ID size in bits, 1 to 23, the same for every node
               under one prefix (default 8)

Output is flushed at least every 100 ms and whenever minting has to wait. A
closed stdout ends gen quietly; SIGINT or SIGTERM ends it after the last whole
line.

SCRU64: a node ID may be used again only after the 256-ms tick of its last ID,
or by continuing after that ID. So gen -format scru64 ends by printing on
stderr the -node value to continue from, or by writing it to the -state file;
and without -state it waits until its last ID's tick is over before it exits,
so that a plain rerun with the same -node cannot repeat an ID. With -etcd the
record of the last ID is kept in etcd, and none of this is needed.
`

// maxLine bounds one line of gen's output: a UUID and a newline.
const maxLine = 64

// genFlags are gen's flags.
type genFlags struct {
	n                *int64
	stream           *bool
	format, at       *string
	upper, uuid, hex *bool
	node, statePath  *string
	etcd, etcdPrefix *string
	etcdSize         *uint
}

func newGenFlags() (*flag.FlagSet, *genFlags) {
	fs := newFlagSet("gen")
	return fs, &genFlags{
		n:          fs.Int64("n", 1, ""),
		stream:     fs.Bool("stream", false, ""),
		format:     fs.String("format", formats[0].name, ""),
		at:         fs.String("time", "", ""),
		upper:      fs.Bool("upper", false, ""),
		uuid:       fs.Bool("uuid", false, ""),
		hex:        fs.Bool("hex", false, ""),
		node:       fs.String("node", "", ""),
		statePath:  fs.String("state", "", ""),
		etcd:       fs.String("etcd", "", ""),
		etcdPrefix: fs.String("etcd-prefix", nodelease.DefaultPrefix, ""),
		etcdSize:   fs.Uint("etcd-size", nodelease.DefaultNodeIDSize, ""),
	}
}

func runGen(args []string, e *env) int {
	flags, cfg := newGenFlags()
	rest, status, ok := parseCommandFlags(e, "gen", genUsage, flags, args)
	if !ok {
		return status
	}
	bad := func(format string, a ...any) int { return usageFailure(e, "gen", fmt.Sprintf(format, a...)) }
	f, known := formatByName(*cfg.format)
	switch {
	case len(rest) > 0:
		return bad("unexpected argument %q: gen takes only flags", rest[0])
	case *cfg.n < 0:
		return bad("-n %d: want 0 or more", *cfg.n)
	case *cfg.stream && wasSet(flags, "n"):
		return bad("-n and -stream exclude each other")
	case *cfg.uuid && *cfg.hex:
		return bad("-uuid and -hex exclude each other")
	case !known:
		return bad("%s", unknownFormat(*cfg.format))
	case *cfg.uuid && !f.is128:
		return bad("-uuid needs a 128-bit format (scru128, ulid or legacy); %s IDs have 64 bits", f.name)
	case f.name != "scru64" && *cfg.node != "":
		return bad("-node applies to -format scru64 only")
	case f.name != "scru64" && *cfg.statePath != "":
		return bad("-state applies to -format scru64 only")
	case f.name != "scru64" && *cfg.etcd != "":
		return bad("-etcd applies to -format scru64 only")
	case *cfg.etcd == "" && (wasSet(flags, "etcd-prefix") || wasSet(flags, "etcd-size")):
		return bad("-etcd-prefix and -etcd-size need -etcd")
	case *cfg.etcd != "" && (*cfg.node != "" || *cfg.statePath != ""):
		return bad("-etcd leases the node ID: it excludes -node and -state")
	case *cfg.etcd != "" && *cfg.at != "":
		return bad("-etcd mints at the clock's time: it excludes -time (backfill with -node instead)")
	case *cfg.etcdSize < 1 || *cfg.etcdSize > 23:
		return bad("-etcd-size %d: want 1 to 23", *cfg.etcdSize)
	}

	opts := mintOptions{out: outputForm{upper: *cfg.upper}}
	switch {
	case *cfg.uuid:
		opts.out.kind = asUUID
	case *cfg.hex:
		opts.out.kind = asHex
	}
	count := *cfg.n
	if *cfg.stream {
		count = -1
	} else {
		opts.batch = int(min(count, 1<<16))
	}
	if *cfg.at != "" {
		ms, err := parseTime(*cfg.at)
		if err != nil {
			return bad("%v", err)
		}
		if ms < f.minMillis || ms > f.maxMillis {
			return bad("-time %s is outside the times a %s ID can hold (%s to %s)", *cfg.at, f.name,
				time.UnixMilli(f.minMillis).UTC().Format(rfc3339Milli), time.UnixMilli(f.maxMillis).UTC().Format(rfc3339Milli))
		}
		opts.atMillis = ms
	}

	var restart *scru64Restart
	var leased *nodelease.Node
	switch {
	case f.name == "scru64" && *cfg.etcd != "":
		var status int
		if leased, status = acquireNode(e, *cfg.etcd, *cfg.etcdPrefix, uint8(*cfg.etcdSize)); leased == nil {
			return status
		}
		opts.scru64Generate = leased.Generate
	case f.name == "scru64":
		var status int
		restart, status = newSCRU64Restart(e, *cfg.node, *cfg.statePath)
		if restart == nil {
			return status
		}
		opts.scru64, opts.scru64Generate = restart.gen, restart.gen.Generate
	}

	m, err := f.newMinter(opts)
	if err != nil {
		return failure(e, fmt.Errorf("%s: %s", f.name, reason(err)))
	}
	out := bufio.NewWriterSize(e.stdout, 64<<10)
	interrupts := e.interrupts()
	c := startControl(interrupts)
	err = writeIDs(out, count, m, c)
	c.end()
	// Whatever stopped the run, the lines already made go out before any
	// message about it.
	if flushErr := out.Flush(); flushErr != nil && (err == nil || errors.Is(err, errInterrupted)) {
		err = fmt.Errorf("%w: %w", errWrite, flushErr)
	}

	status = exitOK
	switch {
	case err == nil || isClosedPipe(err):
	case errors.Is(err, errInterrupted):
		status = 128 + signalNumber(c.signal())
	case errors.Is(err, errWrite):
		status = failure(e, err)
	default:
		status = failure(e, fmt.Errorf("minting %s IDs: %s", f.name, reason(err)))
	}
	if restart != nil {
		if s := restart.finish(e, opts.atMillis != 0, interrupts); s != exitOK && status == exitOK {
			status = s
		}
	}
	if leased != nil {
		if s := releaseNode(e, leased); s != exitOK && status == exitOK {
			status = s
		}
	}
	return status
}

// etcdTimeout bounds leasing a node ID from etcd, and giving it back.
const etcdTimeout = 30 * time.Second

// acquireNode leases a node ID from etcd for gen -etcd. It returns nil and
// an exit status after reporting an error.
func acquireNode(e *env, endpoints, prefix string, size uint8) (*nodelease.Node, int) {
	store, err := etcdhttp.New(strings.Split(endpoints, ","), nil)
	if err != nil {
		return nil, usageFailure(e, "gen", "-etcd: "+reason(err))
	}
	cfg := nodelease.DefaultConfig()
	cfg.Prefix, cfg.NodeIDSize = prefix, size
	flagOf := map[nodelease.Field]string{nodelease.FieldPrefix: "-etcd-prefix", nodelease.FieldNodeIDSize: "-etcd-size"}
	ctx, cancel := context.WithTimeout(context.Background(), etcdTimeout)
	defer cancel()
	node, err := nodelease.Acquire(ctx, store, cfg)
	if oe := (*nodelease.OptionError)(nil); errors.As(err, &oe) {
		oe.Option = cmp.Or(flagOf[oe.Field], "-etcd")
	}
	if errors.Is(err, nodelease.ErrInvalidOption) || errors.Is(err, nodelease.ErrRealmMismatch) {
		return nil, usageFailure(e, "gen", reason(err))
	}
	if err != nil {
		return nil, failure(e, fmt.Errorf("leasing a node ID from etcd: %s", reason(err)))
	}
	if wait := node.ClockWait(); wait > 0 {
		last := node.NodeSpec().NodePrev()
		warn(e, fmt.Sprintf("waiting %v for the clock: node ID %d continues after %s (%s), which an earlier holder minted ahead of this clock",
			wait.Round(time.Second), node.NodeID(), last, last.Time().UTC().Format(rfc3339Milli)))
	}
	return node, exitOK
}

// releaseNode ends gen -etcd: it records the last ID in etcd and gives the
// node ID back (Node.Close). A node whose lease was lost during the run has
// already been reported by the minting error.
func releaseNode(e *env, node *nodelease.Node) int {
	ctx, cancel := context.WithTimeout(context.Background(), etcdTimeout)
	defer cancel()
	if err := node.Close(ctx); err != nil && !errors.Is(err, nodelease.ErrLeaseLost) && !errors.Is(err, nodelease.ErrClosed) {
		return failure(e, fmt.Errorf("giving the node ID back to etcd: %s", reason(err)))
	}
	return exitOK
}

// errWrite marks an error of writing the output.
var errWrite = errors.New("writing output")

// writeIDs writes IDs from m, one per line, n of them, or until it fails or
// is stopped if n is negative. w is flushed when c asks for it, whenever m
// has to wait, and at the end; IDs m made before a failure are left in w
// for the caller to flush. It returns errInterrupted if c was stopped, an
// error matching errWrite if writing failed, or m's error.
func writeIDs(w *bufio.Writer, n int64, m minter, c *control) error {
	flush := func() error {
		if err := w.Flush(); err != nil {
			return fmt.Errorf("%w: %w", errWrite, err)
		}
		return nil
	}
	for i := int64(0); n < 0 || i < n; {
		if c.attention.Load() {
			c.attention.Store(false)
			if c.stopped.Load() {
				return errInterrupted
			}
			if err := flush(); err != nil {
				return err
			}
		}
		if w.Available() < maxLine {
			if err := flush(); err != nil {
				return err
			}
		}
		k := max(w.Available()/maxLine, 1)
		if n >= 0 {
			k = int(min(int64(k), n-i))
		}
		lines, done, err := m.mint(w.AvailableBuffer(), k)
		w.Write(lines) // cannot fail: it fits the buffer
		i += int64(done)
		if err == errWouldWait {
			if err := flush(); err != nil {
				return err
			}
			if err := m.wait(c.stop); err != nil {
				return err
			}
			continue
		}
		if err != nil {
			return err
		}
	}
	return flush()
}

// control tells a running gen to flush (every 100 ms) or to stop (on an
// interrupt). The minting loop checks one atomic flag per ID, attention,
// and looks further only when it is set.
type control struct {
	attention atomic.Bool
	stopped   atomic.Bool
	stop      chan struct{} // closed when stopped
	sig       atomic.Value  // the os.Signal that stopped it
	done      chan struct{}
	exited    chan struct{}
}

func startControl(interrupts <-chan os.Signal) *control {
	c := &control{stop: make(chan struct{}), done: make(chan struct{}), exited: make(chan struct{})}
	go func() {
		defer close(c.exited)
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-tick.C:
				c.attention.Store(true)
			case sig := <-interrupts:
				c.sig.Store(sig)
				c.stopped.Store(true)
				c.attention.Store(true)
				close(c.stop)
				interrupts = nil // a second signal is for whoever reads next
			case <-c.done:
				return
			}
		}
	}()
	return c
}

// end stops the control goroutine and waits for it, so that it reads no
// more interrupts.
func (c *control) end() {
	close(c.done)
	<-c.exited
}

func (c *control) signal() os.Signal {
	sig, _ := c.sig.Load().(os.Signal)
	return sig
}

func signalNumber(sig os.Signal) int {
	if s, ok := sig.(syscall.Signal); ok {
		return int(s)
	}
	return int(syscall.SIGINT)
}

// parseTime reads gen -time: RFC 3339 with an optional fraction, or an
// integer of Unix milliseconds. It returns Unix milliseconds.
func parseTime(s string) (int64, error) {
	if s != "" && strings.Trim(s, "0123456789") == "" {
		if ms, err := strconv.ParseInt(s, 10, 64); err == nil {
			return ms, nil
		}
	} else if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t.UnixMilli(), nil
	}
	return 0, fmt.Errorf("-time %q: want RFC 3339, such as 2024-05-01T12:00:00Z or 2024-05-01T14:00:00.123+02:00, or Unix milliseconds, such as 1714564800000", s)
}

// scru64Restart is what gen -format scru64 knows to let the next run go on
// without repeating an ID: the generator and where its node spec came from.
type scru64Restart struct {
	gen       *scru64.Generator
	start     scru64.NodeSpec
	statePath string
}

// maxStateFile bounds what is read of a -state file: a node spec is at
// most 16 bytes.
const maxStateFile = 1 << 10

// newSCRU64Restart makes the scru64 generator from -node (or the
// environment) and the -state file. It returns nil and an exit status after
// reporting an error.
func newSCRU64Restart(e *env, node, statePath string) (*scru64Restart, int) {
	source := "-node"
	if node == "" {
		node, source = e.getenv(scru64.NodeSpecEnv), scru64.NodeSpecEnv
	}
	node = strings.TrimSpace(node)
	var flagSpec scru64.NodeSpec
	if node != "" {
		spec, err := scru64.ParseNodeSpec(node)
		if err != nil {
			return nil, usageFailure(e, "gen", source+": "+reason(err))
		}
		flagSpec = spec
	}
	spec := flagSpec
	if statePath != "" {
		stateSpec, found, err := readStateFile(statePath)
		if err != nil {
			return nil, failure(e, err)
		}
		if found {
			if !flagSpec.IsZero() && (flagSpec.NodeID() != stateSpec.NodeID() || flagSpec.NodeIDSize() != stateSpec.NodeIDSize()) {
				return nil, usageFailure(e, "gen", fmt.Sprintf(
					"the state file %s continues node %d/%d, but %s names node %d/%d",
					statePath, stateSpec.NodeID(), stateSpec.NodeIDSize(), source, flagSpec.NodeID(), flagSpec.NodeIDSize()))
			}
			spec = stateSpec
		}
	}
	if spec.IsZero() {
		return nil, usageFailure(e, "gen", "-format scru64 needs a node spec: pass -node, such as -node 42/8, or set "+scru64.NodeSpecEnv)
	}
	return &scru64Restart{gen: scru64.NewGenerator(spec), start: spec, statePath: statePath}, exitOK
}

// readStateFile reads the node spec in a -state file. A missing or empty
// file is no spec (found false).
func readStateFile(path string) (spec scru64.NodeSpec, found bool, err error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return spec, false, nil
	}
	if err != nil {
		return spec, false, fmt.Errorf("reading the state file: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxStateFile+1))
	if err != nil {
		return spec, false, fmt.Errorf("reading the state file: %w", err)
	}
	text := strings.TrimSpace(string(data))
	if text == "" {
		return spec, false, nil
	}
	if len(data) > maxStateFile {
		return spec, false, fmt.Errorf("the state file %s is not a node spec: it is over %d bytes", path, maxStateFile)
	}
	spec, err = scru64.ParseNodeSpec(text)
	if err != nil {
		return spec, false, fmt.Errorf("the state file %s: %s", path, reason(err))
	}
	return spec, true, nil
}

// finish runs after the last ID: it saves the spec to continue from in the
// state file, or prints it and waits until the last ID's tick is over
// (unless the IDs were stamped with -time, whose tick is not now's). It
// waits too if the state file could not be written, since the next run
// would then continue from an older ID. It returns an exit status.
func (r *scru64Restart) finish(e *env, backfill bool, interrupts <-chan os.Signal) int {
	next := r.gen.NodeSpec()
	if next.NodePrev() == r.start.NodePrev() {
		return exitOK // no ID was minted
	}
	status := exitOK
	if r.statePath != "" {
		err := writeStateFile(r.statePath, next.String()+"\n")
		if err == nil {
			return exitOK
		}
		warn(e, fmt.Sprintf("%v; to continue after the last ID, pass -node %s next time", err, next))
		status = exitFailure
	} else {
		warn(e, fmt.Sprintf("to continue after the last ID, pass -node %s next time (or use -state FILE)", next))
	}
	if backfill {
		return status
	}
	// The last ID's tick ends at (timestamp+1)*256 ms. A fresh generator
	// with the same node ID starts at the clock's tick, so once that tick is
	// later, its IDs are all greater than this run's.
	tickEnd := time.UnixMilli(int64(next.NodePrev().Timestamp()+1) << 8)
	wait := time.Until(tickEnd)
	if wait <= 0 {
		return status
	}
	if wait > time.Second {
		warn(e, fmt.Sprintf("waiting %v for the clock to pass the last ID's tick", wait.Round(time.Millisecond)))
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case <-timer.C:
	case <-interrupts:
		warn(e, "interrupted inside the last ID's tick: a rerun with the same node ID may repeat IDs unless it continues with the -node above")
		return exitFailure
	}
	return status
}

// writeStateFile replaces the file at path with data atomically: it writes
// a temporary file in the same directory and renames it over path, so a
// crash leaves the old spec or the new one, never a mix.
func writeStateFile(path, data string) (err error) {
	mode := fs.FileMode(0o644)
	if info, err := os.Stat(path); err == nil {
		mode = info.Mode().Perm()
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("writing the state file: %w", err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
			err = fmt.Errorf("writing the state file %s: %w", path, err)
		}
	}()
	if _, err := tmp.WriteString(data); err != nil {
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		return err
	}
	if err := tmp.Sync(); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
