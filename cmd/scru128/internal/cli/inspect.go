//go:build (unix && !aix) || windows

package cli

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/fastid/scru128/internal/interop"
)

var inspectUsage = `Usage: scru128 inspect [flags] [ID ...]

Print the fields of each ID as a JSON object, one per line. Without IDs, read
them from stdin, one per line; lines may be of any length, spaces, tabs and
carriage returns around an ID are ignored, and empty lines are skipped. Given
IDs in place of a command, scru128 inspects them as this command does.

Examples:
  scru128 0372hg16csmsm50l8dikcvukc     the fields of a SCRU128 ID
  scru128 inspect -local < ids.txt      one ID per line, times in local time
  scru128 inspect -format ulid 01ARZ3NDEKTSV4RRFFQ69G5FAV
                                        a 26-character ID read as a ULID

The format is chosen by each ID's length (see the formats below), or by
-format. An ID valid in two formats of its length is printed as neither: it
is reported on stderr with each reading, and -format chooses. A UUID
(8-4-4-4-12) or 32 hex digits, in either case, is read as the 16 bytes of an
ID of the default format, or of the 128-bit format -format names; if that
reading dates from more than a year ahead, a warning on stderr says the input
may be another kind of ID, such as a random (version 4) UUID.

Flags:
  -format F   read every ID as format F, in any case
  -local      print times in the local time zone instead of UTC

` + formatTable() + `
Fields: format, text, timestamp (in the format's own unit), time (RFC 3339),
the format's other fields, hex, uuid (128-bit formats) and unixMs (the time as
Unix milliseconds).

An input that is not one valid ID is reported on stderr, with its line
number when read from stdin; the other IDs are still printed, and the exit
status is 1.
`

func newInspectFlags() (fs *flag.FlagSet, name *string, local *bool) {
	fs = newFlagSet("inspect")
	return fs, fs.String("format", "", ""), fs.Bool("local", false, "")
}

func runInspect(args []string, e *Env) int {
	flags, name, local := newInspectFlags()
	ids, status, ok := parseCommandFlags(e, "inspect", inspectUsage, flags, args)
	if !ok {
		return status
	}
	ins := &inspector{e: e, out: bufio.NewWriter(e.stdout), loc: time.UTC}
	if *name != "" {
		f, ok := formatByName(*name)
		if !ok {
			return UsageFailure(e, "inspect", unknownFormat(*name))
		}
		ins.forced = f
	}
	if *local {
		ins.loc = time.Local
	}
	if len(ids) > 0 {
		for _, id := range ids {
			text := trimSpace([]byte(id))
			if !ins.inspect(text, len(text), 0) {
				break
			}
		}
	} else {
		ins.inspectLines(e.stdin)
	}
	return ins.finish()
}

// inspector prints one JSON line per valid ID and reports the others on
// stderr, keeping both in input order.
type inspector struct {
	e       *Env
	out     *bufio.Writer
	forced  *format // -format, or nil
	loc     *time.Location
	invalid bool  // some input was not an ID
	failed  error // reading stdin or writing stdout failed; stop
}

// inspect handles one input, which is text trimmed, originally n bytes
// long if n > len(text) (a line cut short), read from line number line
// (or 0 for an argument). It reports whether to go on.
func (ins *inspector) inspect(text []byte, n, line int) bool {
	where := ""
	if line > 0 {
		where = fmt.Sprintf("line %d: ", line)
	}
	var d description
	var hint string
	var err error
	if n > len(text) {
		err = errNoFormat(n) // longer than any ID
	} else {
		d, hint, err = read(string(text), ins.forced, ins.loc, time.Now())
	}
	if err != nil {
		ins.invalid = true
		// Flush first so that stdout and stderr stay in input order.
		if !ins.flush() {
			return false
		}
		Warn(ins.e, fmt.Sprintf("%s%s: %v", where, quoteInput(text, n), err))
		return true
	}
	out, err := d.appendJSON(ins.out.AvailableBuffer(), ins.loc)
	if err == nil {
		_, err = ins.out.Write(out)
	}
	if err != nil {
		ins.failed = err
		return false
	}
	if hint != "" {
		if !ins.flush() {
			return false
		}
		Warn(ins.e, fmt.Sprintf("warning: %s%s: %s", where, quoteInput(text, n), hint))
	}
	return true
}

// inspectLines inspects each line of r.
func (ins *inspector) inspectLines(r io.Reader) {
	lines := newLineReader(r)
	for {
		// Flush whenever stdin has nothing more buffered, so that output
		// keeps up with input that comes slowly, as from tail -f.
		if lines.buffered() == 0 && !ins.flush() {
			return
		}
		text, n, err := lines.next()
		if err == io.EOF {
			return
		}
		if err != nil {
			ins.flush()
			ins.failed = err
			return
		}
		if n == 0 {
			continue
		}
		if !ins.inspect(text, n, lines.line) {
			return
		}
	}
}

func (ins *inspector) flush() bool {
	if ins.failed != nil {
		return false
	}
	if err := ins.out.Flush(); err != nil {
		ins.failed = err
		return false
	}
	return true
}

// finish flushes the output and returns the exit status.
func (ins *inspector) finish() int {
	ins.flush()
	switch err := ins.failed; {
	case err == nil || isClosedPipe(err):
	case errors.Is(err, errReading):
		return Failure(ins.e, err)
	default:
		return Failure(ins.e, fmt.Errorf("writing output: %w", err))
	}
	if ins.invalid {
		return ExitFailure
	}
	return ExitOK
}

var errReading = errors.New("reading stdin")

// read returns inspect's reading of input: as the format forced, or as
// the formats of its length, or, for a UUID or hex input, as the bytes of
// an ID of the forced or default 128-bit format. hint is a warning about a
// reading that may be wrong. Its errors are an *invalidIDError, an
// *ambiguousError, or a UUID's or a length's error.
func read(input string, forced *format, loc *time.Location, now time.Time) (d description, hint string, err error) {
	if len(input) == uuidLens[0] || len(input) == uuidLens[1] {
		raw, err := parseUUID(input)
		if err != nil {
			return d, "", err
		}
		f := forced
		if f == nil {
			f = defaultFormat128()
		}
		if d, err = f.id.readBytes(raw); err != nil {
			return d, "", &invalidIDError{f, err}
		}
		d.format = f.name
		return d, foreignHint(raw, d, f, loc, now), nil
	}
	candidates := formatsOfLength(len(input))
	if forced != nil {
		if len(input) != forced.textLen {
			return d, "", fmt.Errorf("a %s ID has %d characters, not %d", forced.name, forced.textLen, len(input))
		}
		candidates = []*format{forced}
	}
	if len(candidates) == 0 {
		return d, "", errNoFormat(len(input))
	}
	var readings []description
	for _, f := range candidates {
		r, perr := f.id.read(input)
		if perr != nil {
			if err == nil {
				err = &invalidIDError{f, perr}
			}
			continue
		}
		r.format = f.name
		readings = append(readings, r)
	}
	switch len(readings) {
	case 0:
		return d, "", err
	case 1:
		return readings[0], "", nil
	}
	return d, "", &ambiguousError{readings, loc}
}

// invalidIDError is an input its format rejects.
type invalidIDError struct {
	format *format
	err    error
}

func (e *invalidIDError) Error() string {
	return "not a valid " + e.format.name + " ID: " + Reason(e.err)
}

func (e *invalidIDError) Unwrap() error { return e.err }

// ambiguousError is an input valid in more than one format: inspect picks
// none.
type ambiguousError struct {
	readings []description
	loc      *time.Location
}

func (e *ambiguousError) Error() string {
	readings := make([]interop.Reading, len(e.readings))
	names := make([]string, len(e.readings))
	for i, r := range e.readings {
		readings[i] = interop.Reading{As: r.format, Gives: formatTime(r.time, e.loc)}
		names[i] = "-format " + r.format
	}
	return interop.ReadingsText("formats", readings, "so read as none") + " (" + joinList(names, "or") + " chooses)"
}

// foreignHint returns a warning if the bytes of a UUID or hex input, read
// as format f, give a time more than a year from now: the input is then
// more likely another kind of ID than one f's generators minted, and a
// UUID of RFC 9562's variant says which version it is. Random UUIDs
// (version 4) fall there almost always: the 48 bits read as a time span
// 8,900 years. "" if the reading is plausible.
func foreignHint(raw [16]byte, d description, f *format, loc *time.Location, now time.Time) string {
	if !d.time.After(now.AddDate(1, 0, 0)) {
		return ""
	}
	msg := fmt.Sprintf("read as a %s ID it dates from %s, more than a year from now", f.name, formatTime(d.time, loc))
	version, variant := raw[6]>>4, raw[8]>>6
	if variant == 0b10 && version >= 1 && version <= 8 {
		what := ""
		if version == 4 {
			what = " (random)"
		}
		return fmt.Sprintf("%s: it may be a version %d UUID%s instead, as its version and variant bits say", msg, version, what)
	}
	return msg + ": it may be another kind of ID"
}

func errNoFormat(n int) error {
	return fmt.Errorf("no ID format has this length (%d bytes; want %s)", n, idLengths())
}

// displayMax is how much of an input an error message shows.
const displayMax = 48

// quoteInput quotes an input for an error message, cut to displayMax bytes
// with its length if it is longer; n is its length before trimming cut it.
func quoteInput(text []byte, n int) string {
	if n <= displayMax && n == len(text) {
		return strconv.Quote(string(text))
	}
	cut := text[:min(len(text), displayMax)]
	// Do not end inside a UTF-8 sequence (at most 3 bytes of one).
	for i := 0; i < 3 && !utf8.Valid(cut); i++ {
		cut = cut[:len(cut)-1]
	}
	return fmt.Sprintf("%s... (%d bytes)", strconv.Quote(string(cut)), n)
}

// isSpace reports whether c is trimmed around an ID: ASCII white space.
// Other Unicode spaces are reported as invalid characters, as Parse does.
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f' || c == '\n'
}

func trimSpace(b []byte) []byte {
	return bytes.TrimFunc(b, func(r rune) bool { return r < utf8.RuneSelf && isSpace(byte(r)) })
}

// keepMax is how much of a line lineReader keeps: more than any ID's text
// (36 bytes at most) and than an error message shows.
const keepMax = 64

// lineReader reads lines of any length in bounded memory. Of each line it
// keeps the first keepMax bytes after leading white space, and the length
// up to the last byte that is not white space: enough to inspect any ID and
// to report anything else.
type lineReader struct {
	r    *bufio.Reader
	kept []byte
	line int // number of the line last returned, from 1
}

func newLineReader(r io.Reader) *lineReader {
	return &lineReader{r: bufio.NewReader(r), kept: make([]byte, 0, keepMax)}
}

func (lr *lineReader) buffered() int { return lr.r.Buffered() }

// next returns the next line, trimmed, and its trimmed length n. If n is
// above keepMax, text holds only the first keepMax bytes. It returns io.EOF
// after the last line; a last line without a newline still counts.
func (lr *lineReader) next() (text []byte, n int, err error) {
	lr.kept = lr.kept[:0]
	started := false // past the leading white space
	length := 0      // bytes since the first non-space byte
	readAny := false
	for {
		chunk, err := lr.r.ReadSlice('\n')
		readAny = readAny || len(chunk) > 0
		if !started {
			chunk = bytes.TrimLeftFunc(chunk, func(r rune) bool { return r < utf8.RuneSelf && isSpace(byte(r)) })
			started = len(chunk) > 0
		}
		if started {
			if t := trimSpace(chunk); len(t) > 0 {
				n = length + len(t)
			}
			lr.kept = append(lr.kept, chunk[:min(len(chunk), keepMax-len(lr.kept))]...)
			length += len(chunk)
		}
		switch {
		case err == bufio.ErrBufferFull:
			continue
		case err == nil, err == io.EOF && readAny:
			lr.line++
			return lr.kept[:min(n, keepMax)], n, nil
		case err == io.EOF:
			return nil, 0, io.EOF
		default:
			return nil, 0, fmt.Errorf("%w: %w", errReading, err)
		}
	}
}
