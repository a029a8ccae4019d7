package scru128

import (
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEveryExportedNameHasDoc reads every package of the repository as
// go doc does and fails for an exported name that shows no description
// there. A comment the compiler does not attach, such as one separated
// from its declaration by a blank line, looks like documentation in the
// source and shows nothing in go doc or on pkg.go.dev.
func TestEveryExportedNameHasDoc(t *testing.T) {
	dirs := make(map[string]bool)
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != "." && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go") {
			dirs[filepath.Dir(path)] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) < 10 {
		t.Fatalf("found %d package directories, want every package of the repository", len(dirs))
	}
	for dir := range dirs {
		for _, name := range undocumented(t, dir) {
			t.Errorf("%s: %s has no doc comment that go doc shows", dir, name)
		}
	}
}

// undocumented returns the exported names of the package in dir whose
// go/doc documentation is empty. Methods count only on exported types, and
// a name in a const or var group counts as documented when the group or
// its own line has a comment.
func undocumented(t *testing.T, dir string) []string {
	t.Helper()
	fset := token.NewFileSet()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	pkg, err := doc.NewFromFiles(fset, files, "example.com/"+dir)
	if err != nil {
		t.Fatalf("%s: %v", dir, err)
	}
	if pkg.Name == "main" {
		return nil // a command: its names are not an API
	}
	var missing []string
	if strings.TrimSpace(pkg.Doc) == "" {
		missing = append(missing, "package "+pkg.Name)
	}
	values := func(vs []*doc.Value) {
		for _, v := range vs {
			if strings.TrimSpace(v.Doc) != "" {
				continue
			}
			for _, spec := range v.Decl.Specs {
				vspec := spec.(*ast.ValueSpec)
				for _, n := range vspec.Names {
					if n.IsExported() && vspec.Doc == nil && vspec.Comment == nil {
						missing = append(missing, n.Name)
					}
				}
			}
		}
	}
	funcs := func(prefix string, fs []*doc.Func) {
		for _, f := range fs {
			if ast.IsExported(f.Name) && strings.TrimSpace(f.Doc) == "" {
				missing = append(missing, prefix+f.Name)
			}
		}
	}
	values(pkg.Consts)
	values(pkg.Vars)
	funcs("", pkg.Funcs)
	for _, typ := range pkg.Types {
		if strings.TrimSpace(typ.Doc) == "" {
			missing = append(missing, "type "+typ.Name)
		}
		values(typ.Consts)
		values(typ.Vars)
		funcs("", typ.Funcs)
		funcs(typ.Name+".", typ.Methods)
	}
	return missing
}
