//go:build (unix && !aix) || windows

package cli

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"
)

var genUsage = `Usage: scru128 gen [flags]

Print new IDs, one per line, as one increasing stream. scru128 with no
arguments is scru128 gen: it prints one ID of the default format.

Examples:
  scru128 gen -n 3 -format ulid        three ULIDs
  scru128 gen -time 2024-05-01 -uuid   a SCRU128 ID of that midnight, as a UUID
  scru128 gen -format scru64 -node 42/8 -state node.spec
                                       a SCRU64 ID of node 42, kept in a file

Flags:
  -n N         print N IDs (default 1; 0 prints none)
  -stream      print IDs until stdout is closed or the process is interrupted
  -format F    the format of the IDs, one of those below, in any case
  -time T      stamp the IDs with time T instead of now, for backfills: a date
               (2024-05-01, midnight), RFC 3339 (2024-05-01T12:00:00Z, with an
               optional fraction, cut to the millisecond), a duration from now
               (-1h, +30m, -90s), or Unix time as an integer with a unit, s,
               ms, us or ns (1714564800s). An integer without a unit is Unix
               milliseconds, unless it reads as Unix seconds (100000000 to
               99999999999), which is refused. The IDs are one increasing run
               that moves on to the next millisecond when one is full
  -local       read a -time date in the local time zone instead of UTC
  -upper       print letters in upper case
  -uuid        print each ID's 16 bytes as a UUID, 8-4-4-4-12 (128-bit formats)
  -hex         print each ID's bytes as hexadecimal digits: 32 for a 128-bit
               format, 0x and 16 for a 64-bit one (its integer in hex)

Node flags (formats minted under a node ID: scru64):
  -node SPEC   the node spec: 42/8 (node ID 42, 8 bits), 0xb00/12, or the last
               ID and size to continue after, 0u375nxqh5cq/8 (default:
               $SCRU64_NODE_SPEC)
  -state FILE  take the node spec from FILE if it exists, keep there a spec
               that continues after every ID printed, and write there the
               spec that continues after the last ID when done. FILE is
               locked for the run (another run on it fails at once); a
               symbolic link is followed; an empty or cut-short FILE is an
               error

Fleet flags (a node ID leased from etcd, instead of -node):
  -etcd URLS   lease a free node ID from the etcd cluster at URLS
               (comma-separated client URLs, http://127.0.0.1:2379 or
               127.0.0.1:2379); the run continues after the node ID's last
               ID, stops minting if the lease is lost, and gives the node ID
               back when done
  -etcd-prefix P
               the etcd key prefix of the node IDs, at most 1,024 bytes
               (default /scru64/)
  -etcd-size N the node ID size in bits, 1 to 23, the same for every node
               under one prefix (default 8)
  -etcd-ttl D  the lease's time to live, whole seconds from 1s to etcd's
               largest, 9e9 s (default 10s): the node ID of a gen that dies
               is free again after D, and a gen that cannot reach etcd
               stops minting after about 0.9 D
  -etcd-cacert FILE
               verify etcd's certificate with the CAs in FILE (PEM) instead
               of the system's; URLS without a scheme are then https
  -etcd-cert FILE
               the client certificate (PEM), for a cluster that asks for one
  -etcd-key FILE
               the client certificate's private key (PEM)
  -etcd-user USER[:PASSWORD]
               authenticate to etcd as USER (without it, etcd takes the
               client certificate's common name as the user, as for
               etcdctl). ps shows a :PASSWORD here to every user of the
               machine: give USER alone and the password in
               $SCRU128_ETCD_PASSWORD (or $ETCDCTL_PASSWORD); gen never
               prompts

` + formatTable() + `
Output is flushed at least every 100 ms while IDs are made, and before gen
waits for the clock or for etcd. A closed stdout ends gen quietly. SIGINT,
SIGTERM, SIGHUP (a closed terminal) or another signal that ends a program
ends gen after the last whole line, within a second, with exit status 128
plus its number (130, 143, 129); under nohup, SIGHUP stays ignored.

Node IDs: a node ID may be used again only after the 256-ms tick of its last
ID, or by continuing after that ID. So gen under a node from -node ends by
printing on stderr the -node value to continue from, and waits until its last
ID's tick is over before it exits (unless a signal cuts the wait short, which
it then reports), so that a plain rerun with the same -node cannot repeat an
ID. With -state the file keeps a spec ahead of every ID printed, written
before the IDs it covers, so a rerun continues after them even if gen was
killed; and at the end gen writes there the spec of its last ID. With -etcd
the record of the last ID is kept in etcd, and none of this is needed. A node
whose last ID is ahead of the clock waits for it, and says how long if that
is a second or more; more than 24 hours ahead, gen refuses it (status 1).

etcd: -etcd-cacert, -etcd-cert, -etcd-key and -etcd-user, when not given, are
read from etcdctl's variables $ETCDCTL_CACERT, $ETCDCTL_CERT, $ETCDCTL_KEY and
$ETCDCTL_USER; a flag, even empty, wins over its variable. gen talks to every
endpoint through etcd's client and goes on through the others when one fails.
A flag or file gen cannot use is a usage error (status 2), and so is a user
name or password inside an -etcd URL; what etcd refuses (the TLS handshake,
the user, the keys) is a failure (status 1), reported at the first request,
and so is data under the prefix that no scru128 or etcdnode wrote, and an
answer no etcd gives (a lease TTL below 1 s or past etcd's largest, say).
Minting that outruns the mark etcd keeps of it waits inside the node for etcd
to raise it, holding back the lines of the last 100 ms for as long: at most
3.75 s with the default TTL, 6 s with any. When etcd refuses the node's
writes while its lease holds (its NOSPACE alarm, say), gen mints up to the
mark it last wrote, flushes, says on stderr why and what to do, and waits up
to 30 s for etcd to take a write: it says so when minting resumes, and fails
(status 1) when the wait runs out or the lease is lost, giving the node ID
back if etcd lets it.
`

// genFlags are gen's flags.
type genFlags struct {
	n                *int64
	stream           *bool
	format, at       *string
	local            *bool
	upper, uuid, hex *bool
	node             nodeFlags
}

func newGenFlags() (*flag.FlagSet, *genFlags) {
	fs := newFlagSet("gen")
	return fs, &genFlags{
		n:      fs.Int64("n", 1, ""),
		stream: fs.Bool("stream", false, ""),
		format: fs.String("format", formats[0].name, ""),
		at:     fs.String("time", "", ""),
		local:  fs.Bool("local", false, ""),
		upper:  fs.Bool("upper", false, ""),
		uuid:   fs.Bool("uuid", false, ""),
		hex:    fs.Bool("hex", false, ""),
		node: nodeFlags{
			spec:      fs.String("node", "", ""),
			statePath: fs.String("state", "", ""),
			etcd:      NewEtcdFlags(fs),
		},
	}
}

func runGen(args []string, e *Env) int {
	fs, flags := newGenFlags()
	rest, status, ok := parseCommandFlags(e, "gen", genUsage, fs, args)
	if !ok {
		return status
	}
	p, err := flags.plan(fs, rest)
	if err != nil {
		return UsageFailure(e, "gen", err.Error())
	}
	if p.leases() && LeaseNode == nil {
		// scru128 links no etcd client: scru128-etcd runs this, from
		// the start, before anything is opened or written.
		return handOverRun(e)
	}
	return p.run(e)
}

// genPlan is a gen run as its flags ask for it, checked.
type genPlan struct {
	format   *format
	count    int64 // negative for -stream
	atMillis int64 // -time, or 0 for the clock
	out      outputForm
	node     nodeFlags // for a format minted under a node ID
}

// plan checks gen's flags, parsed into fs, and the arguments left, and
// returns the run they ask for. Its error is a usage error's reason.
func (g *genFlags) plan(fs *flag.FlagSet, rest []string) (*genPlan, error) {
	f, known := formatByName(*g.format)
	switch {
	case len(rest) > 0:
		return nil, errors.New(strayArgument("gen", rest[0]))
	case !known:
		return nil, errors.New(unknownFormat(*g.format))
	}
	p := &genPlan{format: f, count: *g.n, node: g.node}
	switch {
	case *g.n < 0:
		return nil, fmt.Errorf("-n %d: want 0 or more", *g.n)
	case *g.stream && WasSet(fs, "n"):
		return nil, errors.New("-n and -stream exclude each other")
	case *g.stream:
		p.count = -1
	}

	p.out.upper = *g.upper
	switch {
	case *g.uuid && *g.hex:
		return nil, errors.New("-uuid and -hex exclude each other")
	case *g.uuid && f.size != 16:
		return nil, fmt.Errorf("-uuid needs a 128-bit format (%s); %s IDs have %d bits",
			formatNames("", "or", func(f *format) bool { return f.size == 16 }), f.name, 8*f.size)
	case *g.uuid:
		p.out.kind = asUUID
	case *g.hex:
		p.out.kind = asHex
	}

	if *g.local && !isDate(*g.at) {
		return nil, errors.New("-local reads a -time date (2024-05-01) in the local time zone: give one, or leave -local out")
	}
	if *g.at != "" {
		loc := time.UTC
		if *g.local {
			loc = time.Local
		}
		ms, err := parseTime(*g.at, time.Now(), loc)
		if err != nil {
			return nil, err
		}
		if ms < f.minMillis || ms > f.maxMillis {
			return nil, fmt.Errorf("-time %s is outside the times a %s ID can hold (%s to %s)", *g.at, f.name,
				time.UnixMilli(f.minMillis).UTC().Format(rfc3339Milli), time.UnixMilli(f.maxMillis).UTC().Format(rfc3339Milli))
		}
		p.atMillis = ms
	}
	if err := g.node.check(fs, f, p.atMillis != 0); err != nil {
		return nil, err
	}
	return p, nil
}

// leases reports whether the run leases its node ID from etcd (-etcd).
func (p *genPlan) leases() bool {
	return p.format.node && *p.node.etcd.Endpoints != ""
}

// run mints and prints the IDs, and returns the exit status.
func (p *genPlan) run(e *Env) int {
	// Signals are caught from the start, so that one that comes while a
	// node ID is leased still ends gen within signalGrace.
	stop, release := watchSignals(e)
	defer release()
	var n Node
	if p.format.node {
		var status int
		if n, status = openNode(e, p.node, stop, p.atMillis != 0); n == nil {
			return status
		}
	} else {
		// Nothing to finish but the output: a run blocked writing to a
		// reader that does not keep up may end mid-wait.
		stop.SetAbandon(stop.Status)
	}
	status := p.printIDs(e, n, stop)
	if n != nil {
		if s := n.Finish(e, stop, p.atMillis != 0); status == ExitOK {
			status = s
		}
	}
	if stop.Stopped() {
		return stop.Status()
	}
	return status
}

// outputBuffer returns the size of gen's output buffer for w: 64 KiB, or
// pipeBuf for a pipe, so that each write to it is whole lines that the
// system writes at once or not at all, and a run that must exit while its
// reader is slow leaves no partial line.
func outputBuffer(w io.Writer) int {
	if f, ok := w.(interface{ Stat() (os.FileInfo, error) }); ok {
		if info, err := f.Stat(); err == nil && info.Mode()&os.ModeNamedPipe != 0 {
			return pipeBuf
		}
	}
	return 64 << 10
}

// printIDs writes the IDs to stdout; what stopped it, other than a signal
// or a closed stdout, is reported. It returns the exit status.
func (p *genPlan) printIDs(e *Env, n Node, stop *Stopper) int {
	opts := mintOptions{out: p.out, atMillis: p.atMillis, node: n}
	if p.count >= 0 {
		opts.batch = int(min(p.count, 1<<16))
	}
	m, err := p.format.id.newMinter(opts)
	if err != nil {
		return Failure(e, fmt.Errorf("%s: %s", p.format.name, Reason(err)))
	}
	out := bufio.NewWriterSize(e.stdout, outputBuffer(e.stdout))
	c := startControl(stop)
	err = writeIDs(out, p.count, m, c)
	c.end()
	// Whatever stopped the run, the lines already made go out before any
	// message about it.
	stop.writing.Store(true)
	flushErr := out.Flush()
	stop.writing.Store(false)
	if flushErr != nil && (err == nil || errors.Is(err, ErrInterrupted)) {
		err = fmt.Errorf("%w: %w", errWrite, flushErr)
	}
	switch {
	case err == nil || isClosedPipe(err) || errors.Is(err, ErrInterrupted):
		return ExitOK
	case errors.Is(err, errWrite):
		return Failure(e, err)
	}
	return Failure(e, fmt.Errorf("minting %s IDs: %s", p.format.name, Reason(err)))
}
