//go:build (unix && !aix) || windows

// Package cli is the scru128 command-line tool, whole but for leasing a
// node ID from etcd: both of the module's binaries run it. scru128 (the
// module's cmd/scru128) links no etcd client, and hands a gen -etcd run
// over to scru128-etcd (cmd/scru128/scru128-etcd), which sets [LeaseNode]
// through package etcdcli. See cmd/scru128 for the commands and the exit
// statuses.
package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"unicode"
	"unicode/utf8"

	"github.com/fastid/scru128/internal/interop"
	"github.com/fastid/scru128/internal/nodelease"
	"github.com/fastid/scru128/scru64"
)

var topUsage = `scru128 mints and inspects time-ordered IDs in the formats listed below.

Usage:
  scru128
      print one new ID of the default format (as scru128 gen does)
  scru128 ID ...
      print the fields of each ID as JSON (as scru128 inspect ID ... does)
  scru128 gen [-n N | -stream] [-format F] [-time T [-local]] [-upper]
              [-uuid | -hex] [-node SPEC] [-state FILE] [-etcd URLS
              [-etcd-prefix P] [-etcd-size N] [-etcd-ttl D] [-etcd-cacert
              FILE] [-etcd-cert FILE -etcd-key FILE] [-etcd-user
              USER[:PASSWORD]]]
      print new IDs, one per line
  scru128 inspect [-format F] [-local] [ID ...]
      print the fields of each ID (or of each line of stdin) as JSON
  scru128 bench [-benchtime D] [-format F] [-json]
      measure minting, encoding and parsing on this machine
  scru128 version, or scru128 -V
      print the version and how this binary was built
  scru128 help [command], or scru128 -h [command]
      print this text, or a command's examples and flags

` + formatTable() + `
Flags may come before or after other arguments; "--" ends the flags.

Exit status:
  0    success
  1    failure, reported on stderr: an input that is not one valid ID, or is
       valid in two formats (inspect); output, a state file or etcd that
       could not be written or reached; etcd refusing the TLS handshake, the
       user or the keys; a lost etcd lease; data under the etcd prefix that
       no node wrote (gen)
  2    usage error: an unknown command, flag or format, or a bad flag value
       (an etcd certificate file that cannot be read, and credentials inside
       an -etcd URL, included); gen -etcd without scru128-etcd, of the same
       version and no easier for others to change, beside scru128
  129  SIGHUP ended gen (a closed terminal), after its last whole line
  130  SIGINT ended gen, likewise
  131  SIGQUIT ended gen, likewise
  143  SIGTERM ended gen, likewise
       (128 plus the signal number, for SIGABRT and the other signals that
       end a program too; the other commands end at once on these signals,
       which a shell reports with the same statuses)
`

// Main is the whole program, run with os.Args and the process's standard
// streams, environment and signals; it returns the exit status. A gen
// -etcd run in scru128, where [LeaseNode] is nil, becomes scru128-etcd's
// instead (see handOver): on Unix, Main does not return then.
func Main() int {
	// Without this a write to a closed stdout kills the process with
	// SIGPIPE; ignored, the write returns EPIPE and gen ends quietly.
	signal.Ignore(syscall.SIGPIPE)
	e := &Env{
		stdin:  os.Stdin,
		stdout: os.Stdout,
		stderr: os.Stderr,
		getenv: os.Getenv,
		notify: notifyEnding,
		exit:   os.Exit,
	}
	e.handOver = func() int { return handOver(e, os.Args) }
	if LeaseNode != nil {
		if status, ok := checkHandedOver(e); !ok {
			return status
		}
	}
	return run(os.Args[1:], e)
}

// Run runs the program with args (without the program's name) in-process,
// with the streams and environment given, no signals and no hand-over to
// scru128-etcd (a gen -etcd run without [LeaseNode] set fails), and
// returns the exit status: for tests of package etcdcli.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	return run(args, &Env{stdin: stdin, stdout: stdout, stderr: stderr, getenv: getenv})
}

// Env is what a command may touch of the outside world, so tests can run
// the whole program in-process.
type Env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
	// notify makes SIGINT, SIGTERM, SIGHUP and the other signals that end
	// a process by default arrive on c instead of ending the
	// process. gen asks for it, to finish its output and save or print
	// where to continue; the other commands end as usual. Tests send on c
	// themselves, or leave notify nil.
	notify func(c chan<- os.Signal)
	// exit ends the process with a status, for a run that must end within
	// a second of a signal while its main goroutine is blocked (writing to
	// a reader that does not keep up). Tests leave it nil.
	exit func(status int)
	// handOver runs the process's invocation in scru128-etcd instead, and
	// returns its exit status, for a gen -etcd run without [LeaseNode]
	// (see handOver). Tests set it to see that it is called, or leave it
	// nil: such a run then fails.
	handOver func() int
}

// Getenv returns the value of the environment variable key, or "".
func (e *Env) Getenv(key string) string { return e.getenv(key) }

// notifyEnding makes every signal that would end the process (see
// endingSignals) arrive on c instead, but for one that the process was
// started with ignored and should stay so (see keepIgnored).
func notifyEnding(c chan<- os.Signal) {
	for _, sig := range endingSignals {
		if slices.Contains(keepIgnored, sig) && signal.Ignored(sig) {
			continue
		}
		signal.Notify(c, sig)
	}
}

// interrupts returns a channel on which the signals that end a run arrive
// from now on: SIGINT, SIGTERM, SIGHUP and the others of endingSignals.
func (e *Env) interrupts() <-chan os.Signal {
	c := make(chan os.Signal, 2)
	if e.notify != nil {
		e.notify(c)
	}
	return c
}

// Exit statuses; a signal that ends gen gives 128 plus its number.
const (
	ExitOK      = 0
	ExitFailure = 1
	ExitUsage   = 2
)

// command is one subcommand: its name, its usage text, what it runs, and a
// new set of its flags (for tests that hold the usage texts to them).
type command struct {
	name  string
	usage string
	run   func(args []string, e *Env) int
	flags func() *flag.FlagSet
}

// commands lists the subcommands. It is filled in init, because help
// refers back to it.
var commands []command

func init() {
	commands = []command{
		{"gen", genUsage, runGen, func() *flag.FlagSet { fs, _ := newGenFlags(); return fs }},
		{"inspect", inspectUsage, runInspect, func() *flag.FlagSet { fs, _, _ := newInspectFlags(); return fs }},
		{"bench", benchUsage, runBench, func() *flag.FlagSet { fs, _, _, _ := newBenchFlags(); return fs }},
		{"version", versionUsage, runVersion, func() *flag.FlagSet { return newFlagSet("version") }},
		{"help", "", runHelp, func() *flag.FlagSet { return newFlagSet("help") }},
	}
	var topics []string
	for _, c := range commands {
		if c.name != "help" {
			topics = append(topics, c.name)
		}
	}
	helpUsage = "Usage: scru128 help [command], or scru128 -h [command]\n\nPrint the usage of scru128, or of one command: " + joinList(topics, "or") + ".\n"
	commands[len(commands)-1].usage = helpUsage
}

func commandByName(name string) (command, bool) {
	for _, c := range commands {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

func commandNames() string {
	names := make([]string, len(commands))
	for i, c := range commands {
		names[i] = c.name
	}
	return joinList(names, "or")
}

// run is the whole program; it returns the exit status. With no arguments
// it is gen, and with IDs instead of a command, inspect, as uuidgen and
// ulid do.
func run(args []string, e *Env) int {
	if len(args) == 0 {
		return runGen(nil, e)
	}
	switch args[0] {
	case "-h", "-help", "--help":
		// scru128 -h gen is scru128 help gen.
		return runHelp(args[1:], e)
	case "-V", "-version", "--version":
		return runVersion(args[1:], e)
	}
	if cmd, ok := commandByName(args[0]); ok {
		return cmd.run(args[1:], e)
	}
	if isIDLength(len(trimSpace([]byte(args[0])))) {
		return runInspect(args, e)
	}
	if len(args[0]) > 1 && args[0][0] == '-' {
		return UsageFailure(e, "", fmt.Sprintf("unknown flag %q: flags follow a command or the IDs to inspect, "+
			"as in scru128 gen -n 5 or scru128 ID -format ulid", args[0]))
	}
	msg := fmt.Sprintf("unknown command %q (want %s, or IDs to inspect: %s)", args[0], commandNames(), idLengths())
	if hint := strayHint("", args[0]); hint != "" {
		msg += "; " + hint
	}
	return UsageFailure(e, "", msg)
}

// helpUsage is filled in init, from the commands.
var helpUsage string

func runHelp(args []string, e *Env) int {
	args, status, ok := parseCommandFlags(e, "help", helpUsage, newFlagSet("help"), args)
	if !ok {
		return status
	}
	switch len(args) {
	case 0:
		return printUsage(e, topUsage)
	case 1:
		if cmd, ok := commandByName(args[0]); ok {
			return printUsage(e, cmd.usage)
		}
		return UsageFailure(e, "help", fmt.Sprintf("unknown command %q (want %s)", args[0], commandNames()))
	}
	return UsageFailure(e, "help", "give at most one command")
}

// printUsage writes a usage text asked for with -h or help to stdout.
func printUsage(e *Env, text string) int {
	if _, err := io.WriteString(e.stdout, text); err != nil && !isClosedPipe(err) {
		return Failure(e, fmt.Errorf("writing output: %w", err))
	}
	return ExitOK
}

// UsageFailure reports a usage error on stderr, with the reason and where to
// read the usage, and returns ExitUsage. cmd is the subcommand, or "".
func UsageFailure(e *Env, cmd, reason string) int {
	prefix, help := "scru128: ", "scru128 help"
	switch cmd {
	case "":
	case "help": // its own usage says little: point to the whole
		prefix = "scru128 help: "
	default:
		prefix, help = "scru128 "+cmd+": ", "scru128 "+cmd+" -h"
	}
	fmt.Fprintf(e.stderr, "%s%s\nRun '%s' for usage.\n", prefix, Printable(reason), help)
	return ExitUsage
}

// Failure reports err on stderr and returns ExitFailure.
func Failure(e *Env, err error) int {
	Warn(e, err.Error())
	return ExitFailure
}

// Warn writes one line to stderr with the program's prefix.
func Warn(e *Env, msg string) {
	fmt.Fprintf(e.stderr, "scru128: %s\n", Printable(msg))
}

// Printable returns a message as one line of printable text: what it
// quotes from elsewhere (etcd's answers, keys, file names) may hold
// control characters, which would recolour or clear the terminal (ANSI
// escapes), overwrite the line (a carriage return), break it, or reorder
// it (bidirectional overrides). Each such character, and each byte of
// invalid UTF-8, is shown escaped as Go writes it in a quoted string
// (\x1b, \r, \u202e).
func Printable(msg string) string {
	clean := true
	for _, r := range msg {
		if !isPrintable(r) {
			clean = false
			break
		}
	}
	if clean {
		return msg
	}
	var b strings.Builder
	for i, r := range msg {
		if isPrintable(r) {
			b.WriteRune(r)
			continue
		}
		if r == utf8.RuneError && !strings.HasPrefix(msg[i:], "\uFFFD") {
			b.WriteString(`\x` + strconv.FormatUint(uint64(msg[i])|0x100, 16)[1:])
			continue
		}
		q := strconv.QuoteRuneToASCII(r)
		b.WriteString(q[1 : len(q)-1])
	}
	return b.String()
}

// isPrintable reports whether r may be written as it is: not a control
// character or a format character (bidirectional overrides, zero-width
// characters), and not the replacement of invalid UTF-8.
func isPrintable(r rune) bool {
	return r >= ' ' && r != 0x7f && r != utf8.RuneError && !unicode.IsControl(r) && !unicode.Is(unicode.Cf, r)
}

// isClosedPipe reports whether err means the reader of stdout went away,
// the normal end of `scru128 gen -stream | head`.
func isClosedPipe(err error) bool {
	return errors.Is(err, syscall.EPIPE) || errors.Is(err, os.ErrClosed)
}

// Reason words err for a message of the tool's, after its own prefix and
// context: from the values of the errors it knows (a format's invalid
// character or value out of range, a rejected node spec), and otherwise
// err's own text, whole. The internal packages behind -etcd word their
// errors without a package prefix for this; the format packages' other
// errors, which the tool does not expect, keep theirs, which names the
// format.
func Reason(err error) string {
	if spec := (*scru64.NodeSpecError)(nil); errors.As(err, &spec) {
		s := "invalid node spec " + strconv.Quote(spec.Input) + ": " + spec.Reason
		if spec.Err != nil {
			s += ": " + Reason(spec.Err)
		}
		return s + " (want a node ID and its size, 42/8 or 0xb00/12, or an ID to continue after and the size, 0u375nxqh5cq/8)"
	}
	if behind := (*nodelease.RollbackError)(nil); errors.As(err, &behind) {
		// Worded here rather than by its own text: the tool refuses to
		// wait past maxClockWait, which the library does not know of.
		now := behind.Clock.UnixMilli()
		wait := "minting resumes in " + spanText(clockWaitMillis(behind.Last, now))
		if clockWaitMillis(behind.Last, now) > maxClockWait.Milliseconds() {
			wait = "too far to wait"
		}
		return fmt.Sprintf("the clock (%s) is %s behind the last ID of node ID %d (%s, %s): %s",
			behind.Clock.UTC().Format(rfc3339Milli), spanText(max(behind.Last.Time().UnixMilli()-now, 0)),
			behind.NodeID, behind.Last, behind.Last.Time().Format(rfc3339Milli), wait)
	}
	for _, f := range formats {
		if s, ok := f.errs(err); ok {
			return s
		}
	}
	return err.Error()
}

// charFields are the fields of every format package's
// InvalidCharacterError: its underlying type, which errorsOf converts it
// to.
type charFields = struct {
	Offset int
	Char   byte
	Rune   rune
	Size   int
}

// formatSentinels are the sentinel errors of a format's package that the
// tool words itself.
type formatSentinels struct {
	outOfRange       error // a text above the largest ID
	invalidTimestamp error // a time, or a run of IDs, past what the format holds
}

// rangeFields are the fields of every format package's RangeError.
type rangeFields = struct{ Max string }

// errorsOf returns how the tool words the errors of a format's package
// whose InvalidCharacterError is C and whose RangeError is R (PC and PR
// are *C and *R, which Go infers), and whose sentinels are sentinels: the
// format's errs.
func errorsOf[C ~charFields, R ~rangeFields, PC interface {
	*C
	error
}, PR interface {
	*R
	error
}](sentinels formatSentinels) func(error) (string, bool) {
	return func(err error) (string, bool) {
		var char PC
		var bound PR
		switch {
		case errors.As(err, &char):
			c := charFields(*char)
			return interop.CharText(c.Offset, c.Char, c.Rune, c.Size), true
		case errors.As(err, &bound):
			// The library's bound, without its package prefix.
			return "value out of range (max " + rangeFields(*bound).Max + ")", true
		case errors.Is(err, sentinels.outOfRange):
			return "value out of range", true
		case errors.Is(err, sentinels.invalidTimestamp):
			return "timestamp outside the format's range", true
		}
		return "", false
	}
}
