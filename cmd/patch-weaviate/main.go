// Command patch-weaviate prepares the Weaviate build with diverse-select built in.
//
// Weaviate has no plugin loader, so the project builds its own server binary
// from the pinned Weaviate source (the version required in go.mod, the one
// place it is pinned). patch-weaviate:
//
//  1. takes that source from the Go module cache and copies it to
//     <out>/weaviate (the go command refuses overlays inside the module cache);
//  2. inserts the statements of the Patches table after their anchors,
//     verifying every anchor first and failing with the anchor's name and
//     file when a Weaviate upgrade moved it, and adds our glue files;
//  3. writes <out>/go.work using both the copy and this repository, so the
//     copy's glue can import our module package.
//
// A stamp (version, patch table, glue) makes a second run a no-op, so
// rebuilds after changing only our code stay incremental.
//
// With -test it then runs Weaviate's own tests of the patched packages and of
// the packages we rely on (TestPackages) in the patched tree, prints a table
// per package and names every failing test (make test-weaviate).
//
// Usage:
//
//	patch-weaviate -out build          prepare build/weaviate and build/go.work
//	patch-weaviate -out build -test    ... and run Weaviate's tests there
//	patch-weaviate -out build -test -pristine
//	                                   ... and on an unpatched copy (build/pristine),
//	                                   to tell Weaviate's own failures from ours
//	patch-weaviate -out build -pristine
//	                                   only prepare the unpatched copy (build/pristine): stock
//	                                   Weaviate of the pinned version (make weaviate-stock)
//	patch-weaviate -list               print the patch table and the tested packages
//	patch-weaviate -packages           print the patched Go packages
package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
)

const weaviateModule = "github.com/weaviate/weaviate"

func main() {
	out := flag.String("out", "build", "build folder (receives weaviate/ and go.work)")
	repo := flag.String("repo", ".", "root of the diverse-select repository")
	list := flag.Bool("list", false, "print the patch table and exit")
	pkgs := flag.Bool("packages", false, "print the patched Go packages (import paths) and exit")
	test := flag.Bool("test", false, "after preparing, run Weaviate's tests of the patched and relied-on packages in the patched tree")
	pristine := flag.Bool("pristine", false, "with -test: also run the same tests on an unpatched copy (out/pristine) and compare; "+
		"alone: only prepare that copy (stock Weaviate of the pinned version)")
	version := flag.String("version", "", "with -pristine alone: prepare this other Weaviate version (a release tag, fetched through "+
		"the module proxy) unpatched in out/pristine-<version>, built on its own (GOWORK=off); default: the pinned one")
	timeout := flag.String("test-timeout", "20m", "with -test: go test -timeout (per test binary)")
	checkAnchors := flag.String("check-anchors", "", "apply the patch table to the files it patches in this other Weaviate "+
		"version (a release tag, fetched through the module proxy) and report whether every anchor is found; builds nothing")
	flag.Parse()
	switch {
	case *list:
		for _, p := range Patches {
			fmt.Printf("%s\t%s\t%s\tafter %q\tinsert %q\n\t%s\n", p.ID, p.File, p.Func, p.Anchor, p.Insert, p.Why)
		}
		fmt.Println("\nWeaviate tests run by -test (make test-weaviate):")
		for _, p := range TestPackages() {
			fmt.Printf("%s\t%s\n", p.Dir, p.Why)
		}
		return
	case *pkgs:
		seen := map[string]bool{}
		for _, p := range Patches {
			if !seen[p.Package()] {
				seen[p.Package()] = true
				fmt.Println(weaviateModule + "/" + p.Package())
			}
		}
		return
	}
	if *checkAnchors != "" {
		if err := checkAnchorsIn(*repo, *checkAnchors); err != nil {
			fmt.Fprintln(os.Stderr, "patch-weaviate:", err)
			os.Exit(1)
		}
		return
	}
	if *pristine && !*test && *version != "" { // another version, stock (make weaviate-stock-old)
		if err := prepareVersion(*repo, filepath.Join(*out, "pristine-"+*version), *version); err != nil {
			fmt.Fprintln(os.Stderr, "patch-weaviate:", err)
			os.Exit(1)
		}
		return
	}
	if *pristine && !*test { // only the unpatched copy: stock Weaviate (make weaviate-stock)
		if err := prepare(*repo, filepath.Join(*out, "pristine"), nil); err != nil {
			fmt.Fprintln(os.Stderr, "patch-weaviate:", err)
			os.Exit(1)
		}
		return
	}
	err := prepare(*repo, *out, Patches)
	if err == nil && *test {
		err = testWeaviate(*repo, *out, *timeout, *pristine)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "patch-weaviate:", err)
		os.Exit(1)
	}
}

// prepare copies the pinned source to out/weaviate, applies patches (none for
// the unpatched comparison copy) and writes out/go.work.
func prepare(repo, out string, patches []Patch) error {
	version, dir, err := pinnedSource(repo)
	if err != nil {
		return err
	}
	if err := checkLicence(dir); err != nil {
		return fmt.Errorf("Weaviate %s: %w", version, err)
	}
	stamp, err := stampFor(version, patches)
	if err != nil {
		return err
	}
	tree := filepath.Join(out, "weaviate")
	stampFile := filepath.Join(tree, ".diverse-select-stamp")
	if old, err := os.ReadFile(stampFile); err == nil && string(old) == stamp {
		fmt.Printf("patch-weaviate: %s already patched (%s)\n", tree, version)
	} else {
		if err := os.RemoveAll(tree); err != nil {
			return err
		}
		if err := copyTree(dir, tree); err != nil {
			return fmt.Errorf("copy Weaviate %s source: %w", version, err)
		}
		if err := CheckRequires(tree, patches); err != nil {
			return err
		}
		if err := Apply(tree, patches); err != nil {
			return err
		}
		if err := os.WriteFile(stampFile, []byte(stamp), 0o644); err != nil {
			return err
		}
		fmt.Printf("patch-weaviate: Weaviate %s copied to %s, %d patches applied\n", version, tree, len(patches))
	}
	return writeWorkspace(repo, out, tree)
}

// prepareVersion copies another Weaviate version's source, unpatched, to
// out/weaviate: the stock server of an older release the gateway is tested
// against. It is built with its own go.mod (GOWORK=off), not in our
// workspace, whose requirements would move its dependencies.
func prepareVersion(repo, out, version string) error {
	dir, err := sourceOf(repo, version)
	if err != nil {
		return err
	}
	if err := checkLicence(dir); err != nil {
		return fmt.Errorf("Weaviate %s: %w", version, err)
	}
	tree := filepath.Join(out, "weaviate")
	stampFile := filepath.Join(tree, ".diverse-select-stamp")
	if old, err := os.ReadFile(stampFile); err == nil && string(old) == version {
		fmt.Printf("patch-weaviate: %s already prepared (%s)\n", tree, version)
		return nil
	}
	if err := os.RemoveAll(tree); err != nil {
		return err
	}
	if err := copyTree(dir, tree); err != nil {
		return fmt.Errorf("copy Weaviate %s source: %w", version, err)
	}
	fmt.Printf("patch-weaviate: Weaviate %s copied to %s, unpatched\n", version, tree)
	return os.WriteFile(stampFile, []byte(version), 0o644)
}

// checkAnchorsIn applies the patch table to a copy of the files it patches in
// Weaviate version (not the pinned one), so a bump can be judged before it
// is made: every anchor found once where the table expects it, the patched
// file still Go, and every declaration the glue calls (Requires) in place.
// The glue is not compiled against that version.
func checkAnchorsIn(repo, version string) error {
	dir, err := sourceOf(repo, version)
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "patch-weaviate-anchors-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if err := copyPatched(dir, tmp); err != nil {
		return fmt.Errorf("Weaviate %s: %w", version, err)
	}
	if err := Apply(tmp, Patches); err != nil {
		return fmt.Errorf("Weaviate %s: %w", version, err)
	}
	if err := CheckRequires(dir, Patches); err != nil {
		return fmt.Errorf("Weaviate %s: %w", version, err)
	}
	fmt.Printf("patch-weaviate: every anchor of the %d patches, and every declaration their glue calls, found in Weaviate %s\n", len(Patches), version)
	return nil
}

// copyPatched copies the files the patch table patches from the Weaviate
// source src into dst, at the same paths.
func copyPatched(src, dst string) error {
	for _, p := range Patches {
		b, err := os.ReadFile(filepath.Join(src, p.File))
		if err != nil {
			return fmt.Errorf("patch %q: %w", p.ID, err)
		}
		if err := os.MkdirAll(filepath.Join(dst, p.Package()), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dst, p.File), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// pinnedSource returns the Weaviate version go.mod requires and its source
// folder in the module cache, downloading it if needed.
func pinnedSource(repo string) (string, string, error) {
	cmd := exec.Command("go", "list", "-m", "-f", "{{.Version}}", weaviateModule)
	cmd.Dir = repo
	cmd.Env = append(os.Environ(), "GOWORK=off")
	v, err := cmd.Output()
	if err != nil {
		return "", "", fmt.Errorf("go list -m %s: %w", weaviateModule, err)
	}
	version := strings.TrimSpace(string(v))
	dir, err := sourceOf(repo, version)
	return version, dir, err
}

// sourceOf is the source folder of a Weaviate version in the module cache,
// downloaded if needed.
func sourceOf(repo, version string) (string, error) {
	cmd := exec.Command("go", "mod", "download", "-json", weaviateModule+"@"+version)
	cmd.Dir = repo
	cmd.Env = append(os.Environ(), "GOWORK=off")
	raw, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go mod download %s@%s: %w", weaviateModule, version, err)
	}
	var info struct{ Dir, Error string }
	if err := json.Unmarshal(raw, &info); err != nil || info.Dir == "" {
		return "", fmt.Errorf("go mod download %s@%s: no source folder (%s)", weaviateModule, version, info.Error)
	}
	return info.Dir, nil
}

// stampFor identifies a patched tree: the version, the patch table and the glue.
func stampFor(version string, patches []Patch) (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "%s\n%#v\n", version, patches)
	err := fs.WalkDir(glueFS, "glue", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := glueFS.ReadFile(path)
		h.Write([]byte(path))
		h.Write(b)
		return err
	})
	return version + " " + hex.EncodeToString(h.Sum(nil)), err
}

// copyTree copies a read-only module-cache folder into a writable one.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		in, err := os.Open(path)
		if err != nil {
			return err
		}
		defer in.Close()
		info, err := d.Info()
		if err != nil {
			return err
		}
		outf, err := os.OpenFile(target, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, info.Mode().Perm()|0o200)
		if err != nil {
			return err
		}
		if _, err := io.Copy(outf, in); err != nil {
			outf.Close()
			return err
		}
		return outf.Close()
	})
}

var goDirective = regexp.MustCompile(`(?m)^go (\S+)`)

// writeWorkspace writes out/go.work using the Weaviate copy and our module.
func writeWorkspace(repo, out, tree string) error {
	mod, err := os.ReadFile(filepath.Join(tree, "go.mod"))
	if err != nil {
		return err
	}
	m := goDirective.FindSubmatch(mod)
	if m == nil {
		return fmt.Errorf("%s/go.mod has no go directive", tree)
	}
	absOut, err := filepath.Abs(out)
	if err != nil {
		return err
	}
	absRepo, err := filepath.Abs(repo)
	if err != nil {
		return err
	}
	rel, err := filepath.Rel(absOut, absRepo)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "// Written by cmd/patch-weaviate. DO NOT EDIT.\ngo %s\n\nuse (\n\t./weaviate\n\t%s\n)\n", m[1], filepath.ToSlash(rel))
	path := filepath.Join(out, "go.work")
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, b.Bytes()) {
		return nil
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}
