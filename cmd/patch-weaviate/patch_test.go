package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// weaviateSource returns the pinned Weaviate source folder in the module cache.
func weaviateSource(t *testing.T) string {
	t.Helper()
	_, dir, err := pinnedSource("../..")
	if err != nil {
		t.Fatalf("pinned Weaviate source: %v", err)
	}
	return dir
}

// copyPatchedFiles copies the files the patches touch into a temp tree.
func copyPatchedFiles(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	if err := copyPatched(src, dst); err != nil {
		t.Fatal(err)
	}
	return dst
}

// TestCheckAnchors: -check-anchors on the pinned version finds every anchor
// (the same check on another version is how a bump is judged first).
func TestCheckAnchors(t *testing.T) {
	version, _, err := pinnedSource("../..")
	if err != nil {
		t.Fatal(err)
	}
	if err := checkAnchorsIn("../..", version); err != nil {
		t.Fatal(err)
	}
}

func TestApplyToPinnedWeaviate(t *testing.T) {
	tree := copyPatchedFiles(t, weaviateSource(t))
	if err := Apply(tree, Patches); err != nil {
		t.Fatalf("Apply: %v", err)
	}
	for _, p := range Patches {
		b, err := os.ReadFile(filepath.Join(tree, p.File))
		if err != nil {
			t.Fatal(err)
		}
		src := string(b)
		if n := strings.Count(src, Marker+p.ID); n != 1 {
			t.Errorf("%s: marker found %d times, want 1", p.ID, n)
		}
		firstLine := strings.Split(p.Insert, "\n")[0]
		anchorAt := strings.Index(src, p.Anchor)
		insertAt := strings.Index(src, firstLine)
		switch {
		case anchorAt < 0 || insertAt < 0:
			t.Errorf("%s: anchor or inserted statement missing", p.ID)
		case p.Before && insertAt > anchorAt:
			t.Errorf("%s: inserted statement not before the anchor", p.ID)
		case !p.Before && insertAt < anchorAt:
			t.Errorf("%s: inserted statement not after the anchor", p.ID)
		}
		if _, err := os.Stat(filepath.Join(tree, p.Package(), p.GlueName)); err != nil {
			t.Errorf("%s: glue file missing: %v", p.ID, err)
		}
		if p.GlueTest != "" {
			if _, err := os.Stat(filepath.Join(tree, p.Package(), p.TestName())); err != nil {
				t.Errorf("%s: glue test file missing: %v", p.ID, err)
			}
		}
	}
	// A second run on the patched tree refuses instead of patching twice.
	if err := Apply(tree, Patches); err == nil || !strings.Contains(err.Error(), "already patched") {
		t.Errorf("second Apply: got %v, want an 'already patched' error", err)
	}
}

func TestApplyFailsOnMovedAnchor(t *testing.T) {
	src := weaviateSource(t)
	cases := []struct {
		name   string
		patch  string
		mutate func(string) string
		want   string
	}{
		{"anchor edited", "register", func(s string) string {
			return strings.Replace(s, "appState.Modules = modules.NewProvider(", "appState.Modules = modules.NewProviderV2(", 1)
		}, "found 0 times"},
		{"function renamed", "selection-argument", func(s string) string {
			return strings.Replace(s, "func (r *resolver) resolveGet(", "func (r *resolver) resolveGetV2(", 1)
		}, "function resolveGet not found"},
		{"anchor duplicated", "mutable-config", func(s string) string {
			return strings.Replace(s, "for module := range updatedModConf {", "for module := range updatedModConf {\n\t}\n\tfor module := range updatedModConf {", 1)
		}, "found 3 times"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tree := copyPatchedFiles(t, src)
			var target Patch
			for _, p := range Patches {
				if p.ID == tc.patch {
					target = p
				}
			}
			path := filepath.Join(tree, target.File)
			b, _ := os.ReadFile(path)
			mutated := tc.mutate(string(b))
			if mutated == string(b) {
				t.Fatal("mutation did not apply")
			}
			os.WriteFile(path, []byte(mutated), 0o644)
			before := snapshot(t, tree)
			err := Apply(tree, Patches)
			var ae *AnchorError
			if !errors.As(err, &ae) {
				t.Fatalf("got %v, want an AnchorError", err)
			}
			msg := err.Error()
			for _, want := range []string{tc.want, target.ID, target.File} {
				if !strings.Contains(msg, want) {
					t.Errorf("error %q does not name %q", msg, want)
				}
			}
			if after := snapshot(t, tree); after != before {
				t.Error("a failed Apply changed the tree")
			}
		})
	}
}

func snapshot(t *testing.T, root string) string {
	var b strings.Builder
	filepath.Walk(root, func(path string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			data, _ := os.ReadFile(path)
			b.WriteString(path)
			b.Write(data)
		}
		return nil
	})
	return b.String()
}

func TestInsertIndentsInsideBlock(t *testing.T) {
	src := "package x\n\nfunc f() {\n\tfor i := range xs {\n\t\tuse(i)\n\t}\n}\n"
	p := Patch{ID: "t", Func: "f", Anchor: "for i := range xs {", Insert: "if skip(i) {\n\tcontinue\n}"}
	out, err := insert(p, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := "\tfor i := range xs {\n\t\t" + Marker + "t\n\t\tif skip(i) {\n\t\t\tcontinue\n\t\t}\n\t\tuse(i)"
	if !strings.Contains(string(out), want) {
		t.Errorf("got\n%s\nwant it to contain\n%s", out, want)
	}
}

func TestInsertBeforeAnchor(t *testing.T) {
	src := "package x\n\nfunc f() {\n\tprepare()\n\tif ready {\n\t\trun()\n\t}\n}\n"
	p := Patch{ID: "t", Func: "f", Anchor: "if ready {", Before: true, Insert: "if done {\n\treturn\n}"}
	out, err := insert(p, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := "\tprepare()\n\t" + Marker + "t\n\tif done {\n\t\treturn\n\t}\n\tif ready {\n\t\trun()"
	if !strings.Contains(string(out), want) {
		t.Errorf("got\n%s\nwant it to contain\n%s", out, want)
	}
}

// TestCheckRequires: the pinned source holds every declaration the glue
// calls; a changed one is reported with its patch and file.
func TestCheckRequires(t *testing.T) {
	src := weaviateSource(t)
	if err := CheckRequires(src, Patches); err != nil {
		t.Fatal(err)
	}
	changed := []Patch{{ID: "x", Requires: []Requirement{{"usecases/modules/modules.go", "func (p *Provider) GetAllV2() []modulecapabilities.Module {"}}}}
	if err := CheckRequires(src, changed); err == nil || !strings.Contains(err.Error(), `patch "x": usecases/modules/modules.go no longer declares`) {
		t.Errorf("a changed declaration: %v", err)
	}
}

// TestEveryPatchTested: every statement brings its test into the patched
// package, which make test-weaviate runs.
func TestEveryPatchTested(t *testing.T) {
	for _, p := range Patches {
		if p.GlueTest == "" {
			t.Errorf("patch %s has no GlueTest", p.ID)
		}
	}
}
