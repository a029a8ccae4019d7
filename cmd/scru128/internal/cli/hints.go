//go:build (unix && !aix) || windows

package cli

import (
	"fmt"
	"strings"
	"time"

	"github.com/fastid/scru128/scru64"
)

// strayArgument is the usage error's reason for an argument that cmd,
// which takes only flags, was given: what it most likely meant, when the
// argument looks like a count, a time, a format, a node spec or an ID.
func strayArgument(cmd, arg string) string {
	msg := fmt.Sprintf("unexpected argument %q: %s takes only flags", arg, cmd)
	if hint := strayHint(cmd, arg); hint != "" {
		msg += "; " + hint
	}
	return msg
}

// strayHint returns a suggestion for a stray argument of cmd, or "".
func strayHint(cmd, arg string) string {
	// Up to 9 digits: a longer integer is rather a time (gen -time takes
	// Unix milliseconds).
	isCount := arg != "" && len(arg) <= 9 && strings.Trim(arg, "0123456789") == ""
	_, isFormat := formatByName(arg)
	switch cmd {
	case "gen":
		switch {
		case isCount:
			return "did you mean -n " + arg + "?"
		case isFormat:
			return "did you mean -format " + arg + "?"
		case looksLikeTime(arg):
			return "did you mean -time " + arg + "?"
		case strings.Contains(arg, "/"):
			if _, err := scru64.ParseNodeSpec(arg); err == nil {
				return "did you mean -format scru64 -node " + arg + "?"
			}
		}
		if names := formatsReading(arg); names != "" {
			hint := "to read this " + names + " ID, run scru128 inspect " + arg
			if names == "scru64" {
				hint += ", or to mint after it, gen -format scru64 -node " + arg + "/SIZE"
			}
			return hint
		}
	case "bench":
		switch {
		case isCount:
			return "did you mean -benchtime " + arg + "x?"
		case isFormat:
			return "did you mean -format " + arg + "?"
		case validBenchtime(arg):
			return "did you mean -benchtime " + arg + "?"
		}
	case "":
		// The top level: a first argument that is no command.
		switch {
		case isCount:
			return "did you mean scru128 gen -n " + arg + "?"
		case isFormat:
			return "did you mean scru128 gen -format " + arg + "?"
		}
	}
	return ""
}

// looksLikeTime reports whether arg is a -time value other than a bare
// integer (which strayHint reads as a count).
func looksLikeTime(arg string) bool {
	_, err := parseTime(arg, time.Now(), time.UTC)
	return err == nil
}

// formatsReading names the formats arg is a valid ID of ("scru64", "ulid
// or legacy"), or returns "".
func formatsReading(arg string) string {
	var names []string
	for _, f := range formats {
		if len(arg) != f.textLen {
			continue
		}
		if _, err := f.id.read(arg); err == nil {
			names = append(names, f.name)
		}
	}
	return joinList(names, "or")
}
