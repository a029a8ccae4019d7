// Command scru128 mints and inspects time-ordered IDs: SCRU128 by default,
// and SCRU64, ULID, Ulid-Flake and the legacy SCRU128 form. It also measures
// this module on the machine it runs on.
//
// Install it with
//
//	go install github.com/fastid/scru128/cmd/scru128@latest
//
// Its commands:
//
//	scru128 gen      print new IDs, one per line, or convert them to UUIDs or hex
//	scru128 inspect  print the fields of IDs, UUIDs or hex as JSON
//	scru128 bench    measure minting, encoding and parsing on this machine
//	scru128 version  print the version and how the binary was built
//
// scru128 help, and scru128 help <command>, describe every flag. The exit
// status is 0 on success, 1 when something failed (an invalid ID, output that
// could not be written) and 2 for a usage error.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
)

const topUsage = `scru128 mints and inspects time-ordered IDs: SCRU128 by default, and SCRU64,
ULID, Ulid-Flake and the legacy SCRU128 form.

Usage:
  scru128 gen [-n N | -stream] [-format F] [-time T] [-upper] [-uuid | -hex]
              [-node SPEC] [-state FILE] [-etcd URLS [-etcd-prefix P]
              [-etcd-size N]]
      print new IDs, one per line
  scru128 inspect [-format F] [-local] [ID ...]
      print the fields of each ID (or of each line of stdin) as JSON
  scru128 bench [-benchtime D] [-format F] [-json]
      measure minting, encoding and parsing on this machine
  scru128 version
      print the version and how this binary was built
  scru128 help [command]
      print this text, or a command's flags

Formats (-format, in any case): scru128 (the default), scru64, ulid,
ulidflake, legacy. Flags may come before or after other arguments; "--" ends
the flags.

Exit status: 0 on success, 1 when something failed (an invalid ID, output
that could not be written), 2 for a usage error.
`

func main() {
	// Without this a write to a closed stdout kills the process with
	// SIGPIPE; ignored, the write returns EPIPE and gen ends quietly.
	signal.Ignore(syscall.SIGPIPE)
	os.Exit(run(os.Args[1:], &env{
		stdin:  os.Stdin,
		stdout: os.Stdout,
		stderr: os.Stderr,
		getenv: os.Getenv,
		notify: func(c chan<- os.Signal) { signal.Notify(c, os.Interrupt, syscall.SIGTERM) },
	}))
}

// env is what a command may touch of the outside world, so tests can run
// the whole program in-process.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
	// notify makes SIGINT and SIGTERM arrive on c instead of ending the
	// process. gen asks for it, to finish its output and, for SCRU64, save
	// or print where to continue; the other commands end as usual. Tests
	// send on c themselves, or leave notify nil.
	notify func(c chan<- os.Signal)
}

// interrupts returns a channel on which SIGINT and SIGTERM arrive from now
// on.
func (e *env) interrupts() <-chan os.Signal {
	c := make(chan os.Signal, 2)
	if e.notify != nil {
		e.notify(c)
	}
	return c
}

// Exit statuses.
const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2
)

// command is one subcommand: its usage text, what it runs, and a new set
// of its flags (for tests that hold the usage texts to them).
type command struct {
	usage string
	run   func(args []string, e *env) int
	flags func() *flag.FlagSet
}

// commands is filled in init, because help refers back to it.
var commands map[string]command

func init() {
	commands = map[string]command{
		"gen":     {genUsage, runGen, func() *flag.FlagSet { fs, _ := newGenFlags(); return fs }},
		"inspect": {inspectUsage, runInspect, func() *flag.FlagSet { fs, _, _ := newInspectFlags(); return fs }},
		"bench":   {benchUsage, runBench, func() *flag.FlagSet { fs, _, _, _ := newBenchFlags(); return fs }},
		"version": {versionUsage, runVersion, func() *flag.FlagSet { return newFlagSet("version") }},
		"help":    {helpUsage, runHelp, func() *flag.FlagSet { return newFlagSet("help") }},
	}
}

// run is the whole program; it returns the exit status.
func run(args []string, e *env) int {
	if len(args) == 0 {
		fmt.Fprint(e.stderr, topUsage)
		return exitUsage
	}
	switch args[0] {
	case "-h", "-help", "--help":
		return printUsage(e, topUsage)
	case "-version", "--version":
		return runVersion(nil, e)
	}
	cmd, ok := commands[args[0]]
	if !ok {
		return usageFailure(e, "", fmt.Sprintf("unknown command %q (want gen, inspect, bench, version or help)", args[0]))
	}
	return cmd.run(args[1:], e)
}

const helpUsage = `Usage: scru128 help [command]

Print the usage of scru128, or of one command: gen, inspect, bench, version.
`

func runHelp(args []string, e *env) int {
	args, status, ok := parseCommandFlags(e, "help", helpUsage, newFlagSet("help"), args)
	if !ok {
		return status
	}
	switch len(args) {
	case 0:
		return printUsage(e, topUsage)
	case 1:
		if cmd, ok := commands[args[0]]; ok {
			return printUsage(e, cmd.usage)
		}
		return usageFailure(e, "help", fmt.Sprintf("unknown command %q", args[0]))
	}
	return usageFailure(e, "help", "give at most one command")
}

// printUsage writes a usage text asked for with -h or help to stdout.
func printUsage(e *env, text string) int {
	if _, err := io.WriteString(e.stdout, text); err != nil && !isClosedPipe(err) {
		return failure(e, fmt.Errorf("writing output: %w", err))
	}
	return exitOK
}

// usageFailure reports a usage error on stderr, with the reason and where to
// read the usage, and returns exitUsage. cmd is the subcommand, or "".
func usageFailure(e *env, cmd, reason string) int {
	prefix, help := "scru128: ", "scru128 help"
	if cmd != "" {
		prefix, help = "scru128 "+cmd+": ", "scru128 "+cmd+" -h"
	}
	fmt.Fprintf(e.stderr, "%s%s\nRun '%s' for usage.\n", prefix, reason, help)
	return exitUsage
}

// failure reports err on stderr and returns exitFailure.
func failure(e *env, err error) int {
	warn(e, err.Error())
	return exitFailure
}

// warn writes one line to stderr with the program's prefix.
func warn(e *env, msg string) {
	fmt.Fprintf(e.stderr, "scru128: %s\n", msg)
}

// isClosedPipe reports whether err means the reader of stdout went away,
// the normal end of `scru128 gen -stream | head`.
func isClosedPipe(err error) bool {
	return errors.Is(err, syscall.EPIPE) || errors.Is(err, os.ErrClosed)
}

// libraryPrefixes are the prefixes of this module's error texts.
var libraryPrefixes = []string{"scru128: ", "scru64: ", "ulid: ", "ulidflake: ", "legacy: ", "etcdnode: ", "etcdhttp: "}

// reason returns err's text without this module's package prefix, so that a
// message the tool wraps carries one prefix, its own: "value out of range",
// not "scru128: value out of range" after "scru128: ".
func reason(err error) string {
	s := err.Error()
	for _, p := range libraryPrefixes {
		if strings.HasPrefix(s, p) {
			return s[len(p):]
		}
	}
	return s
}
