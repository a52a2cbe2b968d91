package diverseselect

import (
	"go/ast"
	"go/parser"
	gotoken "go/token"
	"path/filepath"
	"strings"
	"testing"
)

// readOnlyTables are the package-level variables that are tables built once
// and only read: a query's state lives in its query value, the module's in
// the engine.
var readOnlyTables = map[string]bool{"commonArgs": true, "errorKinds": true, "explainFields": true, "routes": true}

// TestNoPackageState: the module keeps no package-level variable but
// sentinel errors, interface assertions and read-only tables - nothing a
// query could share with another (no globals, no context keys).
func TestNoPackageState(t *testing.T) {
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
					if id.Name == "_" || strings.HasPrefix(id.Name, "err") || readOnlyTables[id.Name] {
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
