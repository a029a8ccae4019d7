//go:build (unix && !aix) || windows

package cli

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

// genWithEnv runs gen -format scru64 with args and the environment vars.
func genWithEnv(t *testing.T, vars map[string]string, args ...string) (stderr string, status int) {
	t.Helper()
	e, out, errOut := testEnv("", vars)
	status = run(append([]string{"gen", "-format", "scru64"}, args...), e)
	if out.Len() != 0 {
		t.Errorf("%q printed %q", args, out.String())
	}
	return errOut.String(), status
}

func TestEtcdFlagsNeedEtcd(t *testing.T) {
	for _, name := range etcdFlagNames()[1:] {
		value := "1"
		if name == "etcd-ttl" {
			value = "5s"
		}
		stderr, status := genWithEnv(t, nil, "-"+name, value)
		if status != 2 || !strings.Contains(stderr, "-"+name+" needs -etcd") {
			t.Errorf("-%s without -etcd: status %d, stderr %q", name, status, stderr)
		}
		e, _, errOut := testEnv("", nil)
		if status := run([]string{"gen", "-" + name, value}, e); status != 2 || !strings.Contains(errOut.String(), "applies to -format scru64 only") {
			t.Errorf("-%s with scru128: status %d, stderr %q", name, status, errOut.String())
		}
	}
}

// TestEtcdUserHelpSaysHowToKeepThePasswordOutOfPs: the help of
// -etcd-user says, beside the flag, that a password in it shows in ps, and
// which variable keeps it out.
func TestEtcdUserHelpSaysHowToKeepThePasswordOutOfPs(t *testing.T) {
	_, entry, _ := strings.Cut(genUsage, "\n  -etcd-user")
	if end := strings.Index(entry, "\n  -"); end >= 0 {
		entry = entry[:end]
	}
	if end := strings.Index(entry, "\n\n"); end >= 0 {
		entry = entry[:end]
	}
	for _, want := range []string{"SCRU128_ETCD_PASSWORD", "ps"} {
		if !strings.Contains(entry, want) {
			t.Errorf("the help of -etcd-user does not say %q:\n  -etcd-user%s", want, entry)
		}
	}
}

// TestMessagesShowNoControlCharacters: whatever a message quotes (etcd's
// text, a key), stderr gets one line of printable text: control
// characters, C1 controls, bidirectional overrides and invalid UTF-8 are
// shown escaped.
func TestMessagesShowNoControlCharacters(t *testing.T) {
	const text = "a\x1b[31mb\r\x07c\u009bd\u202ee\xfff\ng\x7f"
	e, _, errOut := testEnv("", nil)
	Failure(e, errors.New(text))
	UsageFailure(e, "gen", text)
	got := errOut.String()
	for line := range strings.Lines(got) {
		line = strings.TrimSuffix(line, "\n")
		for i, r := range line {
			if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == 0x202e || (r == utf8.RuneError && !strings.HasPrefix(line[i:], "\uFFFD")) {
				t.Errorf("stderr line %q holds %U", line, r)
			}
		}
	}
	if !strings.Contains(got, `a\x1b[31mb`) || strings.Count(got, "\n") != 3 {
		t.Errorf("stderr %q: want each message on one line, the escape shown as \\x1b", got)
	}
}
