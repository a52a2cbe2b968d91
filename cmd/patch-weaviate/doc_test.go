package main

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// patchRows returns the rows of the patch table of docs/internals.md
// ("| patch | file, function | anchor | why |").
func patchRows(doc string) []string {
	_, rest, ok := strings.Cut(doc, "\n| patch | file, function | anchor | why |\n")
	if !ok {
		return nil
	}
	var rows []string
	for i, line := range strings.Split(rest, "\n") {
		if i == 0 { // |---|
			continue
		}
		if !strings.HasPrefix(line, "|") {
			break
		}
		rows = append(rows, line)
	}
	return rows
}

// patchTableErrors compares the doc's patch table with Patches: one row per
// patch, in order, naming its ID, file and function, and its anchor (up to
// the anchor's first parenthesis, which the table may abbreviate) after
// "before" or "after", as the statement goes.
func patchTableErrors(doc string) []string {
	rows := patchRows(doc)
	var errs []string
	if len(rows) != len(Patches) {
		errs = append(errs, fmt.Sprintf("the patch table has %d rows, cmd/patch-weaviate has %d patches", len(rows), len(Patches)))
	}
	for i, p := range Patches {
		if i >= len(rows) {
			break
		}
		want := fmt.Sprintf("| %s | `%s`, `%s` | ", p.ID, p.File, p.Func)
		if !strings.HasPrefix(rows[i], want) {
			errs = append(errs, fmt.Sprintf("row %d should start %q: %s", i+1, want, rows[i]))
			continue
		}
		anchor, _, _ := strings.Cut(p.Anchor, "(")
		cols := strings.Split(rows[i], " | ")
		where := "after "
		if p.Before {
			where = "before "
		}
		if len(cols) < 4 || !strings.Contains(cols[2], anchor) || !strings.HasPrefix(cols[2], where) {
			errs = append(errs, fmt.Sprintf("row %d (%s) does not name the anchor %q %s it", i+1, p.ID, anchor, where))
		}
	}
	return errs
}

// TestPatchTableDocumented: docs/internals.md lists every patch of the build
// with its file, function and anchor, in the order of Patches.
func TestPatchTableDocumented(t *testing.T) {
	b, err := os.ReadFile("../../docs/internals.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range patchTableErrors(string(b)) {
		t.Error("docs/internals.md: " + e)
	}
}

// TestPatchTableDocumentedCatch: a missing row, a wrong function and a wrong
// anchor are each reported.
func TestPatchTableDocumentedCatch(t *testing.T) {
	b, err := os.ReadFile("../../docs/internals.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	rows := patchRows(doc)
	if len(rows) < 2 {
		t.Fatal("no patch table")
	}
	first := Patches[0]
	anchor, _, _ := strings.Cut(first.Anchor, "(")
	for name, broken := range map[string]string{
		"missing row":    strings.Replace(doc, rows[1]+"\n", "", 1),
		"wrong function": strings.Replace(doc, "`, `"+first.Func+"` |", "`, `"+first.Func+"X` |", 1),
		"wrong anchor":   strings.Replace(doc, rows[0], strings.Replace(rows[0], anchor, "somethingElse", 1), 1),
	} {
		if len(patchTableErrors(broken)) == 0 {
			t.Errorf("%s: not reported", name)
		}
	}
}

// TestREADMENamesEveryPatch: the README's "Where the selection sits" lists
// every statement of the build by its ID.
func TestREADMENamesEveryPatch(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, _ := strings.Cut(string(b), "\n## Where the selection sits\n")
	section, _, _ = strings.Cut(section, "\n## ")
	for _, p := range Patches {
		if !strings.Contains(section, "- `"+p.ID+"` (") {
			t.Errorf("README.md, Where the selection sits: no item for patch %s", p.ID)
		}
	}
}
