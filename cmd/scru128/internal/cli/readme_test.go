//go:build (unix && !aix) || windows

package cli

import (
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestREADMEAndUsage guards the command-line guide, docs/cli.md: it shows
// the top-level usage as the program prints it, and it mentions every flag
// and only flags that exist.
func TestREADMEAndUsage(t *testing.T) {
	data, err := os.ReadFile("../../../../docs/cli.md")
	if err != nil {
		t.Fatal(err)
	}
	guide := string(data)
	if !strings.Contains(guide, "```\n$ scru128 help\n"+topUsage+"```") {
		t.Errorf("docs/cli.md does not show `scru128 help` as it prints:\n%s", topUsage)
	}
	defined := map[string]bool{}
	for _, cmd := range commands {
		cmd.flags().VisitAll(func(f *flag.Flag) { defined[f.Name] = true })
	}
	for _, word := range strings.FieldsFunc(guide, func(r rune) bool { return strings.ContainsRune(" \n\t`'(),;|[]", r) }) {
		if name, ok := strings.CutPrefix(word, "-"); ok && name != "" && name[0] >= 'a' && name[0] <= 'z' {
			name, _, _ = strings.Cut(name, "=")
			if !defined[name] && name != "h" && name != "help" {
				t.Errorf("docs/cli.md mentions %s, which no command defines", word)
			}
		}
	}
	for name := range defined {
		if !strings.Contains(guide, "-"+name) {
			t.Errorf("docs/cli.md does not mention -%s", name)
		}
	}
}

// TestREADMEGoSamplesAreExamples checks that every Go sample in the README
// and in the guides under docs/ is held by an example or test of the
// repository, so that it compiles and cannot rot: its lines, without
// comments and blank lines, must appear in that order in one _test.go file.
func TestREADMEGoSamplesAreExamples(t *testing.T) {
	docs, err := filepath.Glob("../../../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	docs = append([]string{"../../../../README.md"}, docs...)
	var files [][]string
	err = filepath.WalkDir("../../../..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && strings.HasPrefix(d.Name(), ".") && path != "../../../.." {
			return filepath.SkipDir
		}
		if strings.HasSuffix(path, "_test.go") {
			src, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			files = append(files, codeLines(string(src)))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, doc := range docs {
		data, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		samples := strings.Split(string(data), "```go\n")[1:]
		total += len(samples)
		for _, sample := range samples {
			sample, _, _ = strings.Cut(sample, "```")
			want := codeLines(sample)
			found := false
			for _, lines := range files {
				if isSubsequence(want, lines) {
					found = true
					break
				}
			}
			if !found {
				t.Errorf("no example or test holds this sample of %s:\n%s", strings.TrimPrefix(doc, "../../../../"), sample)
			}
		}
	}
	if total == 0 {
		t.Fatal("no Go samples found in the README or docs/")
	}
}

// codeLines returns src's lines without comments, surrounding space and
// blank lines.
func codeLines(src string) []string {
	var out []string
	for _, line := range strings.Split(src, "\n") {
		line = strings.TrimSpace(stripComment(line))
		if line != "" {
			out = append(out, line)
		}
	}
	return out
}

// stripComment cuts a // comment that is not inside a string literal.
func stripComment(line string) string {
	inString := byte(0)
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case inString != 0 && c == '\\' && inString != '`':
			i++
		case inString != 0 && c == inString:
			inString = 0
		case inString == 0 && (c == '"' || c == '`' || c == '\''):
			inString = c
		case inString == 0 && c == '/' && i+1 < len(line) && line[i+1] == '/':
			return line[:i]
		}
	}
	return line
}

func isSubsequence(want, lines []string) bool {
	i := 0
	for _, l := range lines {
		if i < len(want) && l == want[i] {
			i++
		}
	}
	return i == len(want)
}
