// Command scru128 generates and inspects SCRU128 IDs.
//
// Usage:
//
//	scru128 gen [-n N]        print N new IDs, one per line (default 1);
//	                          -n 0 streams until stdout closes
//	scru128 inspect [ID ...]  print the fields of each ID as a JSON object;
//	                          without arguments, read IDs from stdin, one
//	                          per line
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
	"strconv"
	"strings"
	"syscall"

	"github.com/fastid/scru128"
)

const usage = `Usage:
  scru128 gen [-n N]        print N new IDs, one per line (default 1);
                            -n 0 streams until stdout is closed
  scru128 inspect [ID ...]  print the fields of each ID as JSON, one object
                            per line; with no arguments, read IDs from stdin
                            one per line

inspect reports an invalid ID on stderr, goes on with the others and exits
with status 1.
`

func main() {
	// Without this a write to a closed stdout kills the process with
	// SIGPIPE; ignored, the write returns EPIPE and gen ends quietly.
	signal.Ignore(syscall.SIGPIPE)
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run is the whole program; it returns the exit status.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	switch args[0] {
	case "gen":
		return gen(args[1:], stdout, stderr)
	case "inspect":
		return inspect(args[1:], stdin, stdout, stderr)
	case "-h", "-help", "--help", "help":
		fmt.Fprint(stdout, usage)
		return 0
	}
	fmt.Fprintf(stderr, "scru128: unknown command %q\n\n%s", args[0], usage)
	return 2
}

func gen(args []string, stdout, stderr io.Writer) int {
	flags := flag.NewFlagSet("scru128 gen", flag.ContinueOnError)
	flags.SetOutput(stderr)
	n := flags.Int64("n", 1, "number of IDs to print; 0 streams until stdout is closed")
	flags.Usage = func() {
		fmt.Fprint(stderr, "Usage: scru128 gen [-n N]\n")
		flags.PrintDefaults()
	}
	if err := flags.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if flags.NArg() > 0 || *n < 0 {
		flags.Usage()
		return 2
	}
	err := writeIDs(stdout, *n)
	if err != nil && !isClosedPipe(err) {
		fmt.Fprintf(stderr, "scru128: %v\n", err)
		return 1
	}
	return 0
}

// writeIDs writes n IDs (forever if n is 0). It mints them in batches of
// 256 with Generator.Fill, one clock reading per batch (about 4 µs), and
// encodes each straight into a 64 KiB output buffer.
func writeIDs(w io.Writer, n int64) error {
	g := scru128.NewGenerator()
	bw := bufio.NewWriterSize(w, 64<<10)
	var batch [256]scru128.ID
	for remaining := n; n == 0 || remaining > 0; {
		ids := batch[:]
		if n != 0 && remaining < int64(len(ids)) {
			ids = ids[:remaining]
		}
		if err := g.Fill(ids); err != nil {
			return err
		}
		for _, id := range ids {
			if bw.Available() < 26 {
				if err := bw.Flush(); err != nil {
					return err
				}
			}
			buf, _ := id.AppendText(bw.AvailableBuffer())
			bw.Write(append(buf, '\n')) // cannot fail: it fits the buffer
		}
		remaining -= int64(len(ids))
	}
	return bw.Flush()
}

// isClosedPipe reports whether err means the reader of stdout went away,
// the normal end of `scru128 gen -n 0 | head`.
func isClosedPipe(err error) bool {
	return errors.Is(err, syscall.EPIPE) || errors.Is(err, os.ErrClosed)
}

func inspect(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	for _, a := range args {
		if a == "-h" || a == "-help" || a == "--help" {
			fmt.Fprint(stdout, "Usage: scru128 inspect [ID ...]\n")
			return 0
		}
	}
	bw := bufio.NewWriter(stdout)
	defer bw.Flush()
	status := 0
	report := func(input string) {
		id, err := scru128.Parse(input)
		if err != nil {
			bw.Flush() // keep stdout and stderr in input order
			fmt.Fprintf(stderr, "scru128: %q: %v\n", input, err)
			status = 1
			return
		}
		bw.Write(appendJSON(nil, input, id))
	}
	if len(args) > 0 {
		for _, a := range args {
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

// appendJSON appends one JSON object, and a newline, describing id.
func appendJSON(b []byte, input string, id scru128.ID) []byte {
	b = append(b, `{"text":"`...)
	b, _ = id.AppendText(b)
	b = append(b, `","timestamp":`...)
	b = strconv.AppendUint(b, id.Timestamp(), 10)
	b = append(b, `,"time":"`...)
	b = id.Time().AppendFormat(b, "2006-01-02T15:04:05.000Z07:00")
	b = append(b, `","counterHi":`...)
	b = strconv.AppendUint(b, uint64(id.CounterHi()), 10)
	b = append(b, `,"counterLo":`...)
	b = strconv.AppendUint(b, uint64(id.CounterLo()), 10)
	b = append(b, `,"entropy":`...)
	b = strconv.AppendUint(b, uint64(id.Entropy()), 10)
	b = append(b, `,"hex":"`...)
	const hexDigits = "0123456789abcdef"
	for _, c := range id {
		b = append(b, hexDigits[c>>4], hexDigits[c&15])
	}
	return append(b, "\"}\n"...)
}
