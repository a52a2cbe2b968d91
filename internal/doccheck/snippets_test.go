package doccheck

import (
	"bytes"
	"cmp"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// snippetDocs names the document of each marked region that does not belong
// in the README: the longer client examples (the raw route, the client's own
// MMR on the same query) are in docs/grpc-route.md. docs/rag.md's blocks are
// whole programs, run as written (integration/snippets_test.go).
var snippetDocs = map[string]string{
	"go-class":   "docs/grpc-route.md",
	"go-graphql": "docs/grpc-route.md",
	"ts query":   "docs/grpc-route.md",
}

// TestREADMEClientSnippets: the README's own blocks run as written
// (integration/snippets_test.go); every region marked "README: <name> begin" ...
// "README: <name> end" in the integration tests' integration/clients_test.go,
// ts/clients.test.mjs and py/test_client.py appears in the README, or in the document snippetDocs names for it (line by
// line, ignoring indentation and blank lines), so the documented client
// snippets are the code these tests run.
func TestREADMEClientSnippets(t *testing.T) {
	norm := func(b []byte) string {
		var out []string
		for _, l := range strings.Split(string(b), "\n") {
			if l = strings.TrimSpace(l); l != "" {
				out = append(out, l)
			}
		}
		return "\n" + strings.Join(out, "\n") + "\n"
	}
	found := 0
	names := map[string]bool{}
	for _, f := range snippetFiles {
		src, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range snippetRegions(src) {
			found++
			names[r.name] = true
			docFile := cmp.Or(snippetDocs[r.name], "README.md")
			doc, err := os.ReadFile(filepath.Join(root, docFile))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(norm(doc), norm(r.body)) {
				t.Errorf("%s lacks the snippet %q of %s (or it differs):\n%s", docFile, r.name, f, r.body)
			}
		}
	}
	if found < len(snippetDocs) {
		t.Errorf("%d regions found, want at least the %d snippetDocs names", found, len(snippetDocs))
	}
	for name := range snippetDocs {
		if !names[name] {
			t.Errorf("snippetDocs names the region %q, which no test source marks", name)
		}
	}
}

type snippetRegion struct {
	name string
	body []byte
}

// snippetRegions returns the marked regions of a source file.
func snippetRegions(src []byte) []snippetRegion {
	var out []snippetRegion
	var cur *snippetRegion
	for _, l := range bytes.Split(src, []byte("\n")) {
		s := strings.TrimSpace(string(l))
		if py, ok := strings.CutPrefix(s, "# README: "); ok { // Python's comment
			s = "// README: " + py
		}
		switch {
		case strings.HasPrefix(s, "// README: ") && strings.HasSuffix(s, " begin"):
			cur = &snippetRegion{name: strings.TrimSuffix(strings.TrimPrefix(s, "// README: "), " begin")}
		case strings.HasPrefix(s, "// README: ") && strings.HasSuffix(s, " end"):
			if cur != nil {
				out = append(out, *cur)
			}
			cur = nil
		case cur != nil:
			cur.body = append(append(cur.body, l...), '\n')
		}
	}
	return out
}

// snippetFiles are the test sources holding the marked regions.
var snippetFiles = []string{"integration/clients_test.go", "integration/ts/clients.test.mjs", "integration/py/test_client.py"}
