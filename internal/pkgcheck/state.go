package pkgcheck

import (
	"go/ast"
	"go/parser"
	gotoken "go/token"
	"path/filepath"
	"strings"
	"testing"
)

// NoPackageState fails t when the package in the working directory keeps a
// package-level variable other than sentinel errors (err...), interface
// assertions (_) and the read-only tables named, or calls
// context.WithValue: a query's state lives in its query value, the
// module's in the engine.
func NoPackageState(t testing.TB, readOnlyTables ...string) {
	t.Helper()
	tables := map[string]bool{}
	for _, name := range readOnlyTables {
		tables[name] = true
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := gotoken.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != gotoken.VAR {
				continue
			}
			for _, spec := range g.Specs {
				for _, id := range spec.(*ast.ValueSpec).Names {
					if id.Name == "_" || strings.HasPrefix(id.Name, "err") || tables[id.Name] {
						continue
					}
					t.Errorf("%s: package-level variable %s: keep a query's state in its query value, the module's in the engine", fset.Position(id.Pos()), id.Name)
				}
			}
		}
		for _, d := range f.Decls {
			ast.Inspect(d, func(n ast.Node) bool {
				if call, ok := n.(*ast.CallExpr); ok {
					if sel, ok := call.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "WithValue" {
						if pkg, ok := sel.X.(*ast.Ident); ok && pkg.Name == "context" {
							t.Errorf("%s: context.WithValue: a query's state travels in its query value", fset.Position(call.Pos()))
						}
					}
				}
				return true
			})
		}
	}
}
