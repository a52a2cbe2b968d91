package pkgcheck

import (
	"errors"
	"fmt"
	"go/parser"
	gotoken "go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// NoImport fails t when the package in the working directory imports
// forbidden, directly or through other packages of this repository: the
// gateway stands on the engine and the segmentation endpoint's handler, never
// on the module's adapters. forbidden is an import path, and names the
// packages under it too.
func NoImport(t testing.TB, forbidden string) {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	chain, err := ImportChain(dir, forbidden)
	if err != nil {
		t.Fatal(err)
	}
	if chain != nil {
		t.Errorf("%s imports %s: %s", chain[0], forbidden, strings.Join(chain, " -> "))
	}
}

// ImportChain is a chain of imports from the package in dir to forbidden
// (or a package under it), through packages of the Go module dir is in, or
// nil when there is none. The imports are read with go/parser from every
// non-test Go file of each package, whatever its build tags: no build.
func ImportChain(dir, forbidden string) ([]string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	root, modPath, err := goModule(dir)
	if err != nil {
		return nil, err
	}
	rel, err := filepath.Rel(root, dir)
	if err != nil {
		return nil, err
	}
	start := modPath
	if rel != "." {
		start += "/" + filepath.ToSlash(rel)
	}
	matches := func(p string) bool { return p == forbidden || strings.HasPrefix(p, forbidden+"/") }
	fset := gotoken.NewFileSet()
	parent := map[string]string{start: ""}
	queue := []string{start}
	for len(queue) > 0 {
		pkg := queue[0]
		queue = queue[1:]
		pkgDir := filepath.Join(root, filepath.FromSlash(strings.TrimPrefix(strings.TrimPrefix(pkg, modPath), "/")))
		files, err := filepath.Glob(filepath.Join(pkgDir, "*.go"))
		if err != nil {
			return nil, err
		}
		for _, name := range files {
			if strings.HasSuffix(name, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(fset, name, nil, parser.ImportsOnly)
			if err != nil {
				return nil, err
			}
			for _, im := range f.Imports {
				p := strings.Trim(im.Path.Value, `"`)
				if _, seen := parent[p]; seen {
					continue
				}
				parent[p] = pkg
				if matches(p) {
					var chain []string
					for q := p; q != ""; q = parent[q] {
						chain = append([]string{q}, chain...)
					}
					return chain, nil
				}
				if p == modPath || strings.HasPrefix(p, modPath+"/") {
					queue = append(queue, p)
				}
			}
		}
	}
	return nil, nil
}

// goModule is the root folder and the module path of the go.mod dir is in.
func goModule(dir string) (root, modPath string, err error) {
	for d := dir; ; d = filepath.Dir(d) {
		data, err := os.ReadFile(filepath.Join(d, "go.mod"))
		if err == nil {
			for _, line := range strings.Split(string(data), "\n") {
				if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "module "); ok {
					return d, strings.Trim(strings.TrimSpace(rest), `"`), nil
				}
			}
			return "", "", fmt.Errorf("%s: no module line", filepath.Join(d, "go.mod"))
		}
		if !errors.Is(err, os.ErrNotExist) {
			return "", "", err
		}
		if filepath.Dir(d) == d {
			return "", "", fmt.Errorf("no go.mod above %s", dir)
		}
	}
}
