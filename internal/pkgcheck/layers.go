// Package pkgcheck holds the module's and the engine's packages to their
// shape: their files to the layers each package comment describes (Layers, for
// TestLayers), no state shared between queries (NoPackageState), and the
// gateway off the module's adapters (NoImport, ImportChain).
package pkgcheck

import (
	"go/ast"
	"go/parser"
	gotoken "go/token"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Layers fails t when a file of the package in the working directory (a
// test's: its own package) uses a name declared in a file of a layer above
// its own, or is on no layer. layers are the package's files from the top
// down. Names are read from the code (comments and strings do not count); a
// method counts where its name belongs to methods of one file only and to
// no struct field.
func Layers(t testing.TB, layers [][]string) {
	t.Helper()
	layerOf := map[string]int{}
	for l, files := range layers {
		for _, f := range files {
			layerOf[f] = l
		}
	}
	names, _ := filepath.Glob("*.go")
	fset := gotoken.NewFileSet()
	parsed := map[string]*ast.File{}
	declaredIn := map[string]string{}           // top-level name -> file
	methodFiles := map[string]map[string]bool{} // method name -> files declaring one
	fields := map[string]bool{}
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		if _, ok := layerOf[name]; !ok {
			t.Errorf("%s is on no layer: add it to the layers of its TestLayers (and doc.go)", name)
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		parsed[name] = f
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil {
					declaredIn[d.Name.Name] = name
				} else {
					if methodFiles[d.Name.Name] == nil {
						methodFiles[d.Name.Name] = map[string]bool{}
					}
					methodFiles[d.Name.Name][name] = true
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						declaredIn[s.Name.Name] = name
						if st, ok := s.Type.(*ast.StructType); ok {
							for _, fl := range st.Fields.List {
								for _, n := range fl.Names {
									fields[n.Name] = true
								}
							}
						}
					case *ast.ValueSpec:
						for _, n := range s.Names {
							if n.Name != "_" {
								declaredIn[n.Name] = name
							}
						}
					}
				}
			}
		}
	}
	for name, f := range parsed {
		imported := map[string]bool{} // the file's package names
		for _, im := range f.Imports {
			p := strings.Trim(im.Path.Value, `"`)
			if im.Name != nil {
				imported[im.Name.Name] = true
			} else {
				imported[p[strings.LastIndex(p, "/")+1:]] = true
			}
		}
		uses := map[string]bool{}
		why := map[string]string{} // a name that ties name to the file
		ast.Inspect(f, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.SelectorExpr:
				if pkg, ok := x.X.(*ast.Ident); ok && imported[pkg.Name] {
					return false // another package's name
				}
				if files := methodFiles[x.Sel.Name]; len(files) == 1 && !fields[x.Sel.Name] {
					for file := range files {
						uses[file], why[file] = true, x.Sel.Name
					}
				}
				ast.Inspect(x.X, func(m ast.Node) bool {
					if id, ok := m.(*ast.Ident); ok {
						if file, ok := declaredIn[id.Name]; ok {
							uses[file], why[file] = true, id.Name
						}
					}
					return true
				})
				return false
			case *ast.Ident:
				if file, ok := declaredIn[x.Name]; ok {
					uses[file], why[file] = true, x.Name
				}
			}
			return true
		})
		for _, used := range slices.Sorted(maps.Keys(uses)) {
			if layerOf[used] < layerOf[name] {
				t.Errorf("%s (layer %d) uses %s of %s (layer %d), a layer above it", name, layerOf[name], why[used], used, layerOf[used])
			}
		}
	}
}
