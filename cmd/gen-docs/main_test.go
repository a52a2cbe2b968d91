package main

import (
	"strings"
	"testing"
)

// TestDocsUpToDate fails when a committed settings table of docs/ differs
// from what gen-docs writes from the settings' descriptions: run
// make docs-gen after changing a key, a variable or a parameter.
func TestDocsUpToDate(t *testing.T) {
	out, err := rewrite("../..")
	if err != nil {
		t.Fatal(err)
	}
	for p := range out {
		t.Errorf("%s: a settings table differs from what cmd/gen-docs writes: run make docs-gen", p)
	}
}

// TestFill: a block is replaced whole, under the strategy of its heading;
// the text around it is kept; a block that names no strategy, or is never
// closed, is an error.
func TestFill(t *testing.T) {
	doc := "# T\n\n## topk: baseline\n\ntext\n<!-- BEGIN params: old -->\n| old |\n<!-- END params -->\nafter\n"
	got, err := fill("t.md", doc)
	if err != nil {
		t.Fatal(err)
	}
	want := "# T\n\n## topk: baseline\n\ntext\n" + markers["params"] + "\n| parameter | default | allowed | meaning |\n|---|---|---|---|\n" +
		"| `fit` | skip | one of skip, stop | what to do with an item that does not fit the remaining budget: skip it or stop |\n" +
		"<!-- END params -->\nafter\n"
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	for _, bad := range []string{
		"## Tokenizers\n<!-- BEGIN params: x -->\n<!-- END params -->\n",
		"## relcost\n<!-- BEGIN params: x -->\n<!-- END params -->\n",
		"## topk\n<!-- BEGIN params: x -->\n",
	} {
		if _, err := fill("t.md", bad); err == nil || !strings.Contains(err.Error(), "t.md:2:") {
			t.Errorf("%q: error %v, want one naming t.md:2", bad, err)
		}
	}
}
