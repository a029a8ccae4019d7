// Command scru128 generates and inspects time-ordered IDs: SCRU128 by
// default, and the other formats of this module.
//
// Usage:
//
//	scru128 gen [-format F] [-n N] [-node SPEC]
//	    print N new IDs, one per line (default 1); -n 0 streams until
//	    stdout closes. -node sets the node spec of scru64 (default:
//	    $SCRU64_NODE_SPEC).
//	scru128 inspect [-format F] [ID ...]
//	    print the fields of each ID as a JSON object, one per line; the
//	    format is chosen by the length of each ID unless -format is given.
//	    Without arguments, read IDs from stdin, one per line.
//
// inspect reports an invalid ID on stderr, goes on with the rest and exits
// with status 1.
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
)

func usage() string {
	return `Usage:
  scru128 gen [-format ` + formatNames() + `] [-n N] [-node SPEC]
      print N new IDs, one per line (default 1); -n 0 streams until
      stdout is closed; -node sets the scru64 node spec, such as 42/8
      (default: $SCRU64_NODE_SPEC)
  scru128 inspect [-format F] [ID ...]
      print the fields of each ID as JSON, one object per line; the format
      is chosen by each ID's length unless -format is given; with no IDs,
      read them from stdin, one per line

inspect reports an invalid ID on stderr, goes on with the others and exits
with status 1.
`
}

func main() {
	// Without this a write to a closed stdout kills the process with
	// SIGPIPE; ignored, the write returns EPIPE and gen ends quietly.
	signal.Ignore(syscall.SIGPIPE)
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run is the whole program; it returns the exit status.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage())
		return 2
	}
	switch args[0] {
	case "gen":
		return gen(args[1:], stdout, stderr)
	case "inspect":
		return inspect(args[1:], stdin, stdout, stderr)
	case "-h", "-help", "--help", "help":
		fmt.Fprint(stdout, usage())
		return 0
	}
	fmt.Fprintf(stderr, "scru128: unknown command %q\n\n%s", args[0], usage())
	return 2
}

func gen(args []string, stdout, stderr io.Writer) int {
	flags := flag.NewFlagSet("scru128 gen", flag.ContinueOnError)
	flags.SetOutput(stderr)
	n := flags.Int64("n", 1, "number of IDs to print; 0 streams until stdout is closed")
	name := flags.String("format", formats[0].name, "ID format: "+formatNames())
	node := flags.String("node", "", "node spec for scru64, such as 42/8 (default: $SCRU64_NODE_SPEC)")
	flags.Usage = func() {
		fmt.Fprintf(stderr, "Usage: scru128 gen [-format %s] [-n N] [-node SPEC]\n", formatNames())
		flags.PrintDefaults()
	}
	if err := flags.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	f, ok := formatByName(*name)
	if flags.NArg() > 0 || *n < 0 || !ok {
		if !ok {
			fmt.Fprintf(stderr, "scru128: unknown format %q\n", *name)
		}
		flags.Usage()
		return 2
	}
	mint, err := f.newMinter(*node)
	if err != nil {
		fmt.Fprintf(stderr, "scru128: %v\n", err)
		return 2
	}
	err = writeIDs(stdout, *n, mint)
	if err != nil && !isClosedPipe(err) {
		fmt.Fprintf(stderr, "scru128: %v\n", err)
		return 1
	}
	return 0
}

// writeIDs writes n IDs from mint (forever if n is 0), one per line,
// through a 64 KiB buffer that mint writes into directly.
func writeIDs(w io.Writer, n int64, mint func([]byte) ([]byte, error)) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	for i := int64(0); n == 0 || i < n; i++ {
		if bw.Available() < 64 {
			if err := bw.Flush(); err != nil {
				return err
			}
		}
		buf, err := mint(bw.AvailableBuffer())
		if err != nil {
			return err
		}
		bw.Write(append(buf, '\n')) // cannot fail: it fits the buffer
	}
	return bw.Flush()
}

// isClosedPipe reports whether err means the reader of stdout went away,
// the normal end of `scru128 gen -n 0 | head`.
func isClosedPipe(err error) bool {
	return errors.Is(err, syscall.EPIPE) || errors.Is(err, os.ErrClosed)
}

func inspect(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	flags := flag.NewFlagSet("scru128 inspect", flag.ContinueOnError)
	flags.SetOutput(stderr)
	name := flags.String("format", "", "ID format (default: chosen by the length of each ID): "+formatNames())
	flags.Usage = func() {
		fmt.Fprintf(stderr, "Usage: scru128 inspect [-format %s] [ID ...]\n", formatNames())
		flags.PrintDefaults()
	}
	if err := flags.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	var forced []format
	if *name != "" {
		f, ok := formatByName(*name)
		if !ok {
			fmt.Fprintf(stderr, "scru128: unknown format %q\n", *name)
			return 2
		}
		forced = []format{f}
	}
	bw := bufio.NewWriter(stdout)
	defer bw.Flush()
	status := 0
	report := func(input string) {
		out, err := describe(input, forced)
		if err != nil {
			bw.Flush() // keep stdout and stderr in input order
			fmt.Fprintf(stderr, "scru128: %q: %v\n", input, err)
			status = 1
			return
		}
		bw.Write(out)
	}
	if flags.NArg() > 0 {
		for _, a := range flags.Args() {
			report(a)
		}
		return status
	}
	sc := bufio.NewScanner(stdin)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		report(line)
	}
	if err := sc.Err(); err != nil {
		fmt.Fprintf(stderr, "scru128: reading stdin: %v\n", err)
		return 1
	}
	return status
}

// describe returns one JSON object, and a newline, for input in the first
// of the candidate formats (those forced, or those of its length) that
// parses it; the error is the first format's.
func describe(input string, candidates []format) ([]byte, error) {
	if candidates == nil {
		candidates = detect(input)
	}
	if len(candidates) == 0 {
		return nil, fmt.Errorf("%w (%d bytes)", errNoFormat, len(input))
	}
	var firstErr error
	for _, f := range candidates {
		out, err := f.inspect(nil, input)
		if err == nil {
			return append(out, "}\n"...), nil
		}
		if firstErr == nil {
			firstErr = fmt.Errorf("%s: %w", f.name, err)
		}
	}
	return nil, firstErr
}
