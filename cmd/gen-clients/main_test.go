package main

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// TestGeneratedFilesUpToDate fails when a committed helper table differs
// from what the generator writes from config.Keys and the strategies:
// run make clients-gen after changing a key or a parameter.
func TestGeneratedFilesUpToDate(t *testing.T) {
	out, err := files()
	if err != nil {
		t.Fatal(err)
	}
	for p, want := range out {
		got, err := os.ReadFile(filepath.Join("..", "..", filepath.FromSlash(p)))
		if err != nil {
			t.Errorf("%s: %v (run make clients-gen)", p, err)
			continue
		}
		if string(got) != string(want) {
			t.Errorf("%s differs from what cmd/gen-clients writes: run make clients-gen", p)
		}
	}
}

// TestSpecCoversTheRerankRoute: every common key but those the rerank route
// sets itself is an option, and every strategy parameter too.
func TestSpecCoversTheRerankRoute(t *testing.T) {
	s := buildSpec()
	have := map[string]bool{}
	for _, o := range all(s) {
		if have[o.Wire] {
			t.Errorf("%s twice", o.Wire)
		}
		have[o.Wire] = true
	}
	for _, k := range []string{"strategy", "tokenBudget", "maxResults", "evidence", "offset", "widenTo", "lambda", "targets"} {
		if !have[k] {
			t.Errorf("option %s missing", k)
		}
	}
	for _, k := range []string{"candidates", "textProperty", "query"} {
		if have[k] {
			t.Errorf("option %s is set by the rerank route itself", k)
		}
	}
}

// TestFactoryNames: every built-in strategy's name can be a factory of
// Select in Python and TypeScript: an identifier, not a keyword, and not
// one of Select's other members.
func TestFactoryNames(t *testing.T) {
	ident := regexp.MustCompile(`^[a-z][a-z0-9]*$`)
	others := map[string]bool{"configured": true, "from_wire": true, "fromWire": true}
	for _, n := range buildSpec().Keys[0].Enum {
		if !ident.MatchString(n) || pyKeywords[n] || others[n] {
			t.Errorf("strategy %q cannot be a factory Select.%s: name it with lowercase letters and digits, not %v",
				n, n, []string{"a Python keyword", "configured", "from_wire", "fromWire"})
		}
	}
}
