package doccheck

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// The references of the comments and the docs - a Go file ("refs_test.go",
// "selectors/run.go"), a declaration of one of our packages
// ("selectors.Names", "config.Key.Doc") or a method ("(*Selector).Run") -
// name something that exists. The repository is read with go/parser, all
// four modules of go.work at once: no build, no type check.

// skipDir are the folders that hold no source of ours.
var skipDir = map[string]bool{"build": true, "bin": true, "node_modules": true}

// repoIndex is what a reference may name: the repository's files and each
// package's declarations.
type repoIndex struct {
	files []string // every file, slash-separated, relative to the root
	// glue are the files cmd/patch-weaviate adds to Weaviate's packages
	// (the string literals of its Go files that end in .go).
	glue map[string]bool
	// pkgs maps a package name to the folders of the packages of that name.
	pkgs map[string][]string
	// decls maps a folder to its top-level names, and "T.M" for each field
	// and method of its types (fields of embedded structs not followed).
	decls map[string]map[string]bool
	// inFile maps a Go file to its top-level names (methods as "T.M").
	inFile map[string]map[string]bool
	// embeds maps "folder T" to the types T embeds, as "pkg.E" or "E".
	embeds map[string][]string
}

// indexRepo reads every file name under root and parses every Go file.
func indexRepo(root string) (*repoIndex, []*goFile, error) {
	ix := &repoIndex{pkgs: map[string][]string{}, decls: map[string]map[string]bool{}, embeds: map[string][]string{}, glue: map[string]bool{}, inFile: map[string]map[string]bool{}}
	var gofiles []*goFile
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel != "." && (strings.HasPrefix(d.Name(), ".") || skipDir[d.Name()]) {
				return filepath.SkipDir
			}
			return nil
		}
		ix.files = append(ix.files, rel)
		if !strings.HasSuffix(rel, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		dir := path.Dir(rel)
		name := strings.TrimSuffix(f.Name.Name, "_test")
		if !contains(ix.pkgs[name], dir) {
			ix.pkgs[name] = append(ix.pkgs[name], dir)
		}
		if ix.decls[dir] == nil {
			ix.decls[dir] = map[string]bool{}
		}
		ix.addDecls(dir, f)
		ix.inFile[rel] = map[string]bool{}
		own := &repoIndex{decls: map[string]map[string]bool{dir: ix.inFile[rel]}, embeds: map[string][]string{}}
		own.addDecls(dir, f)
		if dir == "cmd/patch-weaviate" {
			ast.Inspect(f, func(n ast.Node) bool {
				if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING && strings.HasSuffix(lit.Value, `.go"`) {
					ix.glue[strings.Trim(lit.Value, `"`)] = true
				}
				return true
			})
		}
		if !ast.IsGenerated(f) {
			gofiles = append(gofiles, &goFile{rel: rel, dir: dir, f: f, fset: fset})
		}
		return nil
	})
	return ix, gofiles, err
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

// addDecls records the top-level names of f (in folder dir) and the
// members of its types.
func (ix *repoIndex) addDecls(dir string, f *ast.File) {
	names := ix.decls[dir]
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil {
				names[d.Name.Name] = true
				continue
			}
			t := d.Recv.List[0].Type
			if s, ok := t.(*ast.StarExpr); ok {
				t = s.X
			}
			switch x := t.(type) { // generic receivers: T[K]
			case *ast.IndexExpr:
				t = x.X
			case *ast.IndexListExpr:
				t = x.X
			}
			if id, ok := t.(*ast.Ident); ok {
				names[id.Name+"."+d.Name.Name] = true
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.ValueSpec:
					for _, n := range s.Names {
						names[n.Name] = true
					}
				case *ast.TypeSpec:
					names[s.Name.Name] = true
					var fields *ast.FieldList
					switch t := s.Type.(type) {
					case *ast.StructType:
						fields = t.Fields
					case *ast.InterfaceType:
						fields = t.Methods
					}
					if fields == nil {
						continue
					}
					for _, fl := range fields.List {
						for _, n := range fl.Names {
							names[s.Name.Name+"."+n.Name] = true
						}
						if len(fl.Names) == 0 { // embedded: named by its type
							t := fl.Type
							if st, ok := t.(*ast.StarExpr); ok {
								t = st.X
							}
							key := dir + " " + s.Name.Name
							switch t := t.(type) {
							case *ast.SelectorExpr:
								names[s.Name.Name+"."+t.Sel.Name] = true
								if pkg, ok := t.X.(*ast.Ident); ok {
									ix.embeds[key] = append(ix.embeds[key], pkg.Name+"."+t.Sel.Name)
								}
							case *ast.Ident:
								names[s.Name.Name+"."+t.Name] = true
								ix.embeds[key] = append(ix.embeds[key], t.Name)
							}
						}
					}
				}
			}
		}
	}
}

// goFile is one parsed Go file of the repository.
type goFile struct {
	rel, dir string
	f        *ast.File
	fset     *token.FileSet
}

var (
	// reWord is a word that may be a file path; reGoFile says whether it
	// is one of a Go file or a document ("selectors/run.go", "README.md"; not "*_test.go",
	// a pattern, nor "schema_mutable.go.txt", a glue file's name).
	reWord   = regexp.MustCompile(`[\w./*-]+`)
	reGoFile = regexp.MustCompile(`^(?:[\w-]+/)*[\w-]*[a-zA-Z0-9][\w-]*\.(?:go|md)$`)
	// reDecl is pkg.Name or pkg.Type.Member: a lower-case package name,
	// then an exported name.
	reDecl = regexp.MustCompile(`(?:^|[^\w.*/])([a-z][a-z0-9]*)\.([A-Z]\w*)(?:\.([A-Za-z]\w*))?`)
	// reMember is T.M, a type of the commented package and its member.
	reMember = regexp.MustCompile(`(?:^|[^\w.*/])([A-Z]\w*)\.([A-Za-z]\w*)`)
	// reMethod is (*T).M or (*pkg.T).M, and (T).M.
	reMethod = regexp.MustCompile(`\(\*?(?:([a-z][a-z0-9]*)\.)?([A-Za-z]\w*)\)\.([A-Za-z]\w*)`)
	// reDeclIn is a declaration and the file that holds it: "arrivalOf
	// (engine/stage.go)", "(*Selector).Run (selectors/run.go)", "New in
	// selectors/registry.go".
	reDeclIn = regexp.MustCompile(`(?:^|[^\w.])((?:\(\*?)?[A-Za-z_]\w*(?:\)?\.[A-Za-z_]\w*)?) (?:\((?:in |see )?|in )((?:[\w-]+/)*[\w-]+\.go)\b`)
	// reURL is a URL, whose path may end in .go and name another repository.
	reURL = regexp.MustCompile(`\b\w+://\S+|\bgithub\.com/\S+`)
)

// external are the Go files, packages and paths the code names in other
// repositories (Weaviate's, the libraries'); a reference to them is not
// checked. A path prefix ends with "/".
var external = []string{
	"usecases/", "adapters/", "entities/", "modules/", "cluster/", "test/", "grpc/", // Weaviate's tree
	"shared/data/", "../shared/data/", "SOURCE.md", // the data sets beside the clone, each with its SOURCE.md
}

// refIssue is one reference that names nothing.
type refIssue struct{ where, ref, why string }

func (r refIssue) String() string { return r.where + ": " + r.ref + ": " + r.why }

// checkText returns the references of text (a comment, or a markdown line)
// that name nothing. dir is the folder of the package the text documents
// ("" for markdown: a reference may name any package's declaration, and a
// bare file name any file of the repository).
func (ix *repoIndex) checkText(where, dir, text string) []refIssue {
	var bad []refIssue
	text = reURL.ReplaceAllString(text, " ")
	for _, w := range reWord.FindAllString(text, -1) {
		if w = strings.TrimRight(w, "."); reGoFile.MatchString(w) && !strings.HasPrefix(w, "_") {
			if why := ix.checkFile(dir, w); why != "" {
				bad = append(bad, refIssue{where, w, why})
			}
		}
	}
	if dir != "" {
		for _, m := range reDeclIn.FindAllStringSubmatch(text, -1) {
			name := strings.NewReplacer("(", "", "*", "", ")", "").Replace(m[1])
			file := ix.resolve(dir, m[2])
			// A name in one lower-case word may be English ("settings").
			code := strings.ToLower(name) != name || strings.Contains(name, ".")
			if code && ix.decls[dir][name] && file != "" && path.Dir(file) == dir && !ix.inFile[file][name] {
				bad = append(bad, refIssue{where, m[1] + " (" + m[2] + ")", "declared in another file of " + dir + "/"})
			}
		}
	}
	for _, m := range reMethod.FindAllStringSubmatch(text, -1) {
		pkg, typ, member := m[1], m[2], m[3]
		dirs := []string{dir}
		if pkg != "" {
			if dirs = ix.pkgs[pkg]; len(dirs) == 0 {
				continue // not ours
			}
		} else if dir == "" || !ix.decls[dir][typ] {
			continue // a type of another package, or a markdown reference without its package
		}
		if !ix.member(dirs, typ, member, 0) {
			bad = append(bad, refIssue{where, m[0], fmt.Sprintf("%s has no method or field %s", typ, member)})
		}
	}
	if dir != "" {
		for _, m := range reMember.FindAllStringSubmatch(text, -1) {
			if typ, member := m[1], m[2]; ix.hasMembers([]string{dir}, typ) && !ix.member([]string{dir}, typ, member, 0) {
				bad = append(bad, refIssue{where, typ + "." + member, fmt.Sprintf("%s has no method or field %s", typ, member)})
			}
		}
	}
	for _, m := range reDecl.FindAllStringSubmatch(text, -1) {
		pkg, name, member := m[1], m[2], m[3]
		dirs := ix.pkgs[pkg]
		if len(dirs) == 0 || pkg == "main" {
			continue // not one of our packages
		}
		ref := pkg + "." + name
		if !ix.any(dirs, name) {
			bad = append(bad, refIssue{where, ref, fmt.Sprintf("package %s (%s) declares no %s", pkg, strings.Join(dirs, ", "), name)})
			continue
		}
		// pkg.T.M: M is a member of T when T is a type with members; a
		// constant or variable followed by a method call is not checked.
		if member != "" && ix.hasMembers(dirs, name) && !ix.member(dirs, name, member, 0) {
			bad = append(bad, refIssue{where, ref + "." + member, fmt.Sprintf("%s.%s has no method or field %s", pkg, name, member)})
		}
	}
	return bad
}

// member reports whether the type typ of one of dirs has the field or
// method m, its own or promoted from a type it embeds.
func (ix *repoIndex) member(dirs []string, typ, m string, depth int) bool {
	if ix.any(dirs, typ+"."+m) {
		return true
	}
	if depth > 4 {
		return false
	}
	for _, d := range dirs {
		for _, e := range ix.embeds[d+" "+typ] {
			inner := []string{d}
			if pkg, name, ok := strings.Cut(e, "."); ok {
				inner, e = ix.pkgs[pkg], name
			}
			if ix.member(inner, e, m, depth+1) {
				return true
			}
		}
	}
	return false
}

// any reports whether one of dirs declares name.
func (ix *repoIndex) any(dirs []string, name string) bool {
	for _, d := range dirs {
		if ix.decls[d][name] {
			return true
		}
	}
	return false
}

// hasMembers reports whether name is a type with fields or methods in one of dirs.
func (ix *repoIndex) hasMembers(dirs []string, name string) bool {
	for _, d := range dirs {
		for k := range ix.decls[d] {
			if strings.HasPrefix(k, name+".") {
				return true
			}
		}
	}
	return false
}

// resolve is the file a reference in a comment of dir names, or "".
func (ix *repoIndex) resolve(dir, ref string) string {
	for _, f := range ix.files {
		if f == path.Join(dir, ref) || f == ref {
			return f
		}
	}
	return ""
}

// checkFile resolves a Go file reference: a bare name in the folder dir (in
// a comment) or anywhere (in markdown); a path relative to the root, to
// dir, or as the end of a path of the repository ("coverage/greedy.go").
func (ix *repoIndex) checkFile(dir, ref string) string {
	for _, e := range external {
		if strings.HasPrefix(ref, e) {
			return ""
		}
	}
	if ix.glue[ref] {
		return ""
	}
	for _, f := range ix.files {
		switch {
		case f == ref, dir != "" && f == path.Join(dir, ref):
			return ""
		case strings.Contains(ref, "/") && strings.HasSuffix(f, "/"+ref):
			return ""
		case dir == "" && path.Base(f) == ref:
			return ""
		}
	}
	if dir != "" && !strings.Contains(ref, "/") {
		return "no such file in " + dir + "/"
	}
	return "no such file in the repository"
}

// goRefIssues checks the comments of the parsed files.
func goRefIssues(ix *repoIndex, files []*goFile) []refIssue {
	var bad []refIssue
	for _, gf := range files {
		for _, cg := range gf.f.Comments {
			for _, c := range cg.List {
				line := gf.fset.Position(c.Slash).Line
				for i, l := range strings.Split(c.Text, "\n") {
					if strings.HasPrefix(l, "//go:") || strings.HasPrefix(l, "//line ") {
						continue
					}
					bad = append(bad, ix.checkText(fmt.Sprintf("%s:%d", gf.rel, line+i), gf.dir, l)...)
				}
			}
		}
	}
	return bad
}

// mdRefIssues checks the prose of the README and docs/ (the CHANGELOG is
// history: it names what was there then).
func mdRefIssues(t *testing.T, ix *repoIndex) []refIssue {
	var bad []refIssue
	for _, rel := range markdownFiles(t) {
		if rel == "CHANGELOG.md" {
			continue
		}
		lines, numbers := prose(read(t, rel))
		for i, l := range lines {
			bad = append(bad, ix.checkText(fmt.Sprintf("%s:%d", rel, numbers[i]), "", l)...)
		}
	}
	return bad
}

// TestDocReferences: every Go file, document, declaration and method named
// in a comment of the repository (its four modules) or in the README and
// docs/ exists, and a declaration said to be in a file of its package
// ("arrivalOf (engine/stage.go)") is in that file.
func TestDocReferences(t *testing.T) {
	ix, files, err := indexRepo(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 300 || len(ix.pkgs["selectors"]) != 1 {
		t.Fatalf("indexed %d Go files, packages %d: the walk missed the repository", len(files), len(ix.pkgs))
	}
	bad := append(goRefIssues(ix, files), mdRefIssues(t, ix)...)
	sort.Slice(bad, func(i, j int) bool { return bad[i].where < bad[j].where })
	for _, b := range bad {
		t.Error(b)
	}
}

// TestDocReferencesCatch: the checker finds a missing file, function,
// method and field, a declaration said to be in a file it is not in, and
// accepts what exists.
func TestDocReferencesCatch(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, s string) {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("sel/run.go", "package sel\n\n// Selector runs (see run.go, sel/run.go, and Selector.Name).\ntype Selector struct{ Name string }\n\n"+
		"// Run is (*Selector).Run; gone.go, sel/gone.go, (*Selector).Stop, Selector.Size, sel.Walk and sel.Selector.Size are not.\n"+
		"func (s *Selector) Run() {}\n\n// New: sel.New, sel.Selector.Run, os.Exit, https://example.org/x/y.go and sel.go.\nfunc New() {}\n\n"+
		"// Page: Page.Name and sel.Page.Run (promoted), not Page.Size.\ntype Page struct{ *Selector }\n")
	write("sel/other.go", "package sel\n\n// NewThing: Selector.Run (run.go) holds; (*Selector).Run in other.go and NewThing (run.go) do not.\nfunc NewThing() {}\n")
	want := []string{
		"sel/other.go:3: (*Selector).Run (other.go): declared in another file of sel/",
		"sel/other.go:3: NewThing (run.go): declared in another file of sel/",
		"sel/run.go:6: gone.go: no such file in sel/",
		"sel/run.go:6: sel/gone.go: no such file in the repository",
		"sel/run.go:6: (*Selector).Stop: Selector has no method or field Stop",
		"sel/run.go:6: Selector.Size: Selector has no method or field Size",
		"sel/run.go:6: sel.Walk: package sel (sel) declares no Walk",
		"sel/run.go:6: sel.Selector.Size: sel.Selector has no method or field Size",
		"sel/run.go:9: sel.go: no such file in sel/",
		"sel/run.go:12: Page.Size: Page has no method or field Size",
	}
	if ix, files, err := indexRepo(dir); err != nil {
		t.Fatal(err)
	} else if got := fmt.Sprintf("%s", goRefIssues(ix, files)); got != fmt.Sprintf("%s", want) {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}
