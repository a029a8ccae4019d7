//go:build (unix && !aix) || windows

package cli

import (
	"errors"
	"flag"
	"io"
	"strings"
)

// newFlagSet returns a FlagSet that prints nothing: the commands print
// their own usage and errors.
func newFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet("scru128 "+name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// parseFlags parses args into fs and returns the other arguments. Unlike
// fs.Parse it takes flags anywhere on the line (scru128 inspect ID -format
// ulid), up to a "--" after which every argument is positional. A token
// that names a flag taking a value consumes the next one as that value,
// whatever it looks like, so -format -- is a format named "--".
//
// It returns flag.ErrHelp for -h, -help and --help, and the flag package's
// error, which names the flag, for an undefined flag or a bad value.
func parseFlags(fs *flag.FlagSet, args []string) (positional []string, err error) {
	var flags []string
	for i := 0; i < len(args); i++ {
		arg := args[i]
		if arg == "--" {
			positional = append(positional, args[i+1:]...)
			break
		}
		if len(arg) < 2 || arg[0] != '-' {
			positional = append(positional, arg)
			continue
		}
		flags = append(flags, arg)
		name := strings.TrimPrefix(arg[1:], "-")
		if strings.Contains(name, "=") {
			continue
		}
		if f := fs.Lookup(name); f != nil && !isBoolFlag(f) && i+1 < len(args) {
			i++
			flags = append(flags, args[i])
		}
	}
	if err := fs.Parse(flags); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 { // only if a token above was misread; never expected
		return nil, errors.New("unexpected argument " + fs.Arg(0))
	}
	return positional, nil
}

func isBoolFlag(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// parseCommandFlags is parseFlags for a command: on -h it prints usage to
// stdout and on a bad flag it reports a usage error, returning the exit
// status and ok false in both cases.
func parseCommandFlags(e *Env, name, usage string, fs *flag.FlagSet, args []string) (positional []string, status int, ok bool) {
	positional, err := parseFlags(fs, args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return nil, printUsage(e, usage), false
	case err != nil:
		return nil, UsageFailure(e, name, err.Error()), false
	}
	return positional, ExitOK, true
}

// WasSet reports whether the flag name appeared on the command line.
func WasSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}
