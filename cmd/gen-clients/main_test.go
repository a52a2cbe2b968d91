package main

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/diverse-select/diverse-select/segmentapi"
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

// TestHelpersSendEverySegmentKey: each helper's segment call takes every
// key of the server's segment request (segmentapi.SegmentRequest), so a
// new bound such as minTokens cannot reach one helper and miss another.
// import_documents and importDocuments take the keys that shape the cut.
func TestHelpersSendEverySegmentKey(t *testing.T) {
	var keys []string
	rt := reflect.TypeOf(segmentapi.SegmentRequest{})
	for i := 0; i < rt.NumField(); i++ {
		name, _, _ := strings.Cut(rt.Field(i).Tag.Get("json"), ",")
		if name != "text" && name != "texts" {
			keys = append(keys, name)
		}
	}
	snake := func(k string) string {
		return strings.ToLower(regexp.MustCompile(`([a-z])([A-Z])`).ReplaceAllString(k, "${1}_$2"))
	}
	cut := map[string]bool{"method": true, "encoder": true, "maxTokens": true, "minTokens": true, "tokenizer": true}
	files := []struct {
		path, from, to string              // the helper's declaration, between from and to
		form           func(string) string // how it spells a key
		onlyCut        bool
	}{
		{"clients/typescript/index.d.ts", "interface SegmentOptions", "}", func(k string) string { return k + "?:" }, false},
		{"clients/python/diverse_select/__init__.py", "def segment(", ")", func(k string) string { return snake(k) + ":" }, false},
		{"clients/python/diverse_select/_import.py", "def import_documents(", ")", func(k string) string { return snake(k) + ":" }, true},
		{"clients/go/segment.go", "type SegmentRequest struct", "\n}", func(k string) string { return `json:"` + k }, false},
	}
	for _, f := range files {
		raw, err := os.ReadFile(filepath.Join("..", "..", filepath.FromSlash(f.path)))
		if err != nil {
			t.Fatal(err)
		}
		_, decl, ok := strings.Cut(string(raw), f.from)
		if !ok {
			t.Fatalf("%s: no %q", f.path, f.from)
		}
		decl, _, _ = strings.Cut(decl, f.to+"\n")
		if f.path == "clients/python/diverse_select/__init__.py" || f.path == "clients/python/diverse_select/_import.py" {
			decl, _, _ = strings.Cut(decl, "->") // the signature, not the body
		}
		for _, k := range keys {
			if f.onlyCut && !cut[k] {
				continue
			}
			if !strings.Contains(decl, f.form(k)) {
				t.Errorf("%s: the segment key %s is missing (want %q)", f.path, k, f.form(k))
			}
		}
	}
}
