package main

import (
	"bytes"
	"embed"
	"fmt"
	"go/format"
	"os"
	"path/filepath"
	"strings"
)

//go:embed glue/*.go.txt
var glueFS embed.FS

// Patch inserts one statement after an anchor statement inside a named
// function of a Weaviate source file, and adds a glue file to its package.
type Patch struct {
	ID   string
	File string // relative to the Weaviate source root
	Func string // function (or method) the anchor must be in
	// Anchor is the whole statement line (trimmed) to insert after, or
	// before when Before is set.
	Anchor string
	Before bool
	// Count is how often the anchor occurs in Func (default 1); Nth (1-based,
	// default 1) picks the occurrence. A different count means Weaviate changed
	// the function and the patch must be re-checked by a person.
	Count, Nth int
	// Insert is the statement inserted after the anchor, indented like it.
	Insert   string
	Glue     string // file under glue/
	GlueName string // name of the added file in the package
	// GlueTest, if set, is a test file under glue/ added to the package as
	// GlueName with _test.go: make test-weaviate runs it with the package's
	// own tests, checking the patch where it acts.
	GlueTest string
	Why      string
	// Requires are the declarations of Weaviate's that the glue calls,
	// checked with the anchors (CheckRequires): a version that changed one
	// would not build the glue.
	Requires []Requirement
}

// Requirement is a declaration in a Weaviate file, as written (runs of
// white space, line breaks included, compare equal).
type Requirement struct{ File, Decl string }

// CheckRequires reports the first declaration a patch's glue relies on
// that the Weaviate source at root does not hold.
func CheckRequires(root string, patches []Patch) error {
	normalised := map[string]string{} // file -> its text with white space collapsed, read once
	for _, p := range patches {
		for _, r := range p.Requires {
			text, ok := normalised[r.File]
			if !ok {
				b, err := os.ReadFile(filepath.Join(root, r.File))
				if err != nil {
					return fmt.Errorf("patch %q: %w", p.ID, err)
				}
				text = strings.Join(strings.Fields(string(b)), " ")
				normalised[r.File] = text
			}
			if !strings.Contains(text, strings.Join(strings.Fields(r.Decl), " ")) {
				return fmt.Errorf("patch %q: %s no longer declares %q, which its glue calls: update cmd/patch-weaviate",
					p.ID, r.File, r.Decl)
			}
		}
	}
	return nil
}

// Marker tags every inserted statement so a patched tree is recognisable.
const Marker = "// patched: "

// AnchorError names the patch, the file and the anchor that was not found as expected.
type AnchorError struct {
	Patch, File, Func, Anchor string
	Found, Want               int
}

func (e *AnchorError) Error() string {
	if e.Found < 0 {
		return fmt.Sprintf("patch %q: function %s not found in %s (anchor %q): Weaviate moved it; update cmd/patch-weaviate/patches.go",
			e.Patch, e.Func, e.File, e.Anchor)
	}
	return fmt.Sprintf("patch %q: anchor %q found %d times in func %s of %s, want %d: Weaviate changed this code; update cmd/patch-weaviate/patches.go",
		e.Patch, e.Anchor, e.Found, e.Func, e.File, e.Want)
}

// TestName is the name of the added test file: GlueName with _test.go.
func (p Patch) TestName() string { return strings.TrimSuffix(p.GlueName, ".go") + "_test.go" }

// Package returns the Go package directory of the patched file.
func (p Patch) Package() string { return filepath.Dir(p.File) }

// Apply patches the Weaviate source tree at root. It verifies every anchor
// before writing anything, so a failed run leaves the tree as it was.
func Apply(root string, patches []Patch) error {
	type edit struct {
		path string
		src  []byte
	}
	var edits []edit
	patched := map[string]int{} // path -> its edit, for a second patch of the same file
	for _, p := range patches {
		path := filepath.Join(root, p.File)
		var src []byte
		at, again := patched[path]
		if again {
			src = edits[at].src
		} else {
			var err error
			if src, err = os.ReadFile(path); err != nil {
				return fmt.Errorf("patch %q: %w", p.ID, err)
			}
		}
		if bytes.Contains(src, []byte(Marker+p.ID)) {
			return fmt.Errorf("patch %q: %s is already patched; start from a fresh copy", p.ID, p.File)
		}
		out, err := insert(p, src)
		if err != nil {
			return err
		}
		if out, err = format.Source(out); err != nil {
			return fmt.Errorf("patch %q: patched %s does not parse: %w", p.ID, p.File, err)
		}
		if again {
			edits[at].src = out
		} else {
			patched[path] = len(edits)
			edits = append(edits, edit{path, out})
		}
		glue, err := glueFS.ReadFile("glue/" + p.Glue)
		if err != nil {
			return fmt.Errorf("patch %q: %w", p.ID, err)
		}
		edits = append(edits, edit{filepath.Join(root, p.Package(), p.GlueName), glue})
		if p.GlueTest != "" {
			test, err := glueFS.ReadFile("glue/" + p.GlueTest)
			if err != nil {
				return fmt.Errorf("patch %q: %w", p.ID, err)
			}
			edits = append(edits, edit{filepath.Join(root, p.Package(), p.TestName()), test})
		}
	}
	for _, e := range edits {
		if err := os.WriteFile(e.path, e.src, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// insert returns src with p.Insert placed after the chosen anchor line (before
// it with p.Before).
func insert(p Patch, src []byte) ([]byte, error) {
	want, nth := p.Count, p.Nth
	if want == 0 {
		want = 1
	}
	if nth == 0 {
		nth = 1
	}
	lines := strings.Split(string(src), "\n")
	start, end := funcBounds(lines, p.Func)
	if start < 0 {
		return nil, &AnchorError{p.ID, p.File, p.Func, p.Anchor, -1, want}
	}
	var hits []int
	for i := start; i < end; i++ {
		if strings.TrimSpace(lines[i]) == p.Anchor {
			hits = append(hits, i)
		}
	}
	if len(hits) != want {
		return nil, &AnchorError{p.ID, p.File, p.Func, p.Anchor, len(hits), want}
	}
	at := hits[nth-1]
	indent := lines[at][:len(lines[at])-len(strings.TrimLeft(lines[at], " \t"))]
	if strings.HasSuffix(p.Anchor, "{") && !p.Before {
		indent += "\t" // the statement goes inside the block the anchor opens
	}
	block := []string{indent + Marker + p.ID}
	for _, l := range strings.Split(p.Insert, "\n") {
		block = append(block, indent+l)
	}
	if p.Before {
		at-- // the block goes between the line before the anchor and the anchor
	}
	out := append([]string{}, lines[:at+1]...)
	out = append(out, block...)
	out = append(out, lines[at+1:]...)
	return []byte(strings.Join(out, "\n")), nil
}

// funcBounds finds the lines of a top-level func or method named name: from
// its declaration to the closing brace at column 0. It returns -1 if absent.
func funcBounds(lines []string, name string) (int, int) {
	for i, l := range lines {
		if !strings.HasPrefix(l, "func ") {
			continue
		}
		decl := strings.TrimPrefix(l, "func ")
		if strings.HasPrefix(decl, "(") { // method: skip the receiver
			if j := strings.Index(decl, ")"); j >= 0 {
				decl = strings.TrimSpace(decl[j+1:])
			}
		}
		if !strings.HasPrefix(decl, name+"(") {
			continue
		}
		for j := i + 1; j < len(lines); j++ {
			if lines[j] == "}" {
				return i, j
			}
		}
		return i, len(lines)
	}
	return -1, -1
}
