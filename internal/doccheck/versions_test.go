package doccheck

import (
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

var (
	// reVersionV is a Weaviate-like release ("v1.38.14") anywhere.
	reVersionV = regexp.MustCompile(`\bv1\.[2-9]\d\.\d+\b`)
	// reVersionNamed is a version right after the word Weaviate
	// ("Weaviate 1.37", "Weaviate v1.38.11", "weaviate-server v1.38.14").
	reVersionNamed = regexp.MustCompile(`(?i)\bweaviate(?:-server` + "`" + `?| server)?\s+v?(1\.\d{2}(?:\.\d+)?)\b`)
	// reOtherTools are lines that name another project's v1 release.
	reOtherTools = regexp.MustCompile(`protoc-gen-go|PROTOC_GEN|gRPC-Go`)
	// reWeaviateOld is the Makefile's older stock release for the gateway's tests.
	reWeaviateOld = regexp.MustCompile(`(?m)^WEAVIATE_OLD \?= (v\d+\.\d+\.\d+)$`)
)

// versionsBlock is the version table of docs/deployment.md: the one place
// other Weaviate versions may be named (as anchors verified, or not supported).
const versionsBegin, versionsEnd = "<!-- BEGIN versions", "<!-- END versions -->"

// otherVersions returns, as "file:line: version", every Weaviate version the
// text names that is not one of allowed (outside the versions block).
func otherVersions(file, text string, allowed ...string) []string {
	var bad []string
	inBlock := false
	for i, l := range strings.Split(text, "\n") {
		switch {
		case strings.Contains(l, versionsBegin):
			inBlock = true
		case strings.Contains(l, versionsEnd):
			inBlock = false
		}
		if inBlock || reOtherTools.MatchString(l) {
			continue
		}
		var found []string
		found = append(found, reVersionV.FindAllString(l, -1)...)
		for _, m := range reVersionNamed.FindAllStringSubmatch(l, -1) {
			if !strings.Contains(l, "v"+m[1]) {
				found = append(found, m[1])
			}
		}
		for _, v := range found {
			ok := false
			for _, a := range allowed {
				ok = ok || strings.TrimPrefix(v, "v") == strings.TrimPrefix(a, "v")
			}
			if !ok {
				bad = append(bad, file+":"+strconv.Itoa(i+1)+": "+v)
			}
		}
	}
	return bad
}

// TestWeaviateVersionNamed: every Weaviate version named in the repository's
// tracked text (docs, Go sources and comments, Docker and Helm files,
// scripts) is the one go.mod pins or the older release the gateway is
// tested against (the Makefile's WEAVIATE_OLD); other versions appear only
// in the version table of docs/deployment.md, whose tested row names the
// pin and whose gateway row names that release.
func TestWeaviateVersionNamed(t *testing.T) {
	pin := pinnedWeaviate(t)
	old := reWeaviateOld.FindStringSubmatch(read(t, "Makefile"))
	if old == nil {
		t.Fatal("the Makefile sets no WEAVIATE_OLD")
	}
	gatewayOld := old[1]
	out, err := exec.Command("git", "-C", root, "ls-files").Output()
	if err != nil {
		t.Skipf("git ls-files: %v (not a git checkout)", err)
	}
	scanned := 0
	for _, f := range strings.Fields(string(out)) {
		base := filepath.Base(f)
		switch {
		case base == "go.mod" || base == "go.sum" || base == "go.work" || base == "go.work.sum" ||
			strings.HasSuffix(f, ".pb.go") || strings.HasPrefix(f, "integration/ts/package"):
			continue
		case strings.HasSuffix(f, ".md") || strings.HasSuffix(f, ".go") || strings.HasSuffix(f, ".yaml") ||
			strings.HasSuffix(f, ".yml") || strings.HasSuffix(f, ".sh") || strings.HasSuffix(f, ".mjs") ||
			base == "Dockerfile" || base == "Makefile":
		default:
			continue
		}
		if f == "internal/doccheck/versions_test.go" {
			continue // the cases below name other versions on purpose
		}
		scanned++
		for _, b := range otherVersions(f, read(t, f), pin, gatewayOld) {
			t.Errorf("%s names a Weaviate version other than go.mod's %s and the gateway's oldest tested %s", b, pin, gatewayOld)
		}
	}
	if scanned < 100 {
		t.Fatalf("only %d files scanned", scanned)
	}

	// The version table: present, and its tested row is the pin.
	dep := read(t, "docs/deployment.md")
	_, block, ok := strings.Cut(dep, versionsBegin)
	block, _, ok2 := strings.Cut(block, versionsEnd)
	if !ok || !ok2 {
		t.Fatal("docs/deployment.md has no versions block")
	}
	tested, gateway := false, false
	for _, l := range strings.Split(block, "\n") {
		if strings.HasPrefix(l, "| gateway tested") {
			gateway = true
			if !strings.Contains(l, gatewayOld) {
				t.Errorf("the gateway row of the version table does not name WEAVIATE_OLD %s: %s", gatewayOld, l)
			}
			continue
		}
		if strings.HasPrefix(l, "| tested") {
			tested = true
			if !strings.Contains(l, pin) || len(reVersionV.FindAllString(l, -1)) != 1 {
				t.Errorf("the tested row of the version table names other than the pin %s: %s", pin, l)
			}
		} else if strings.Contains(l, pin) {
			t.Errorf("the pin %s is in a row other than the tested one: %s", pin, l)
		}
	}
	if !tested {
		t.Error("the version table has no tested row")
	}
	if !gateway {
		t.Error("the version table has no gateway tested row")
	}
}

// TestWeaviateVersionNamedCatch: the patterns catch the forms a doc uses.
func TestWeaviateVersionNamedCatch(t *testing.T) {
	text := strings.Join([]string{
		"an unmodified Weaviate v1.38.11 can",                     // caught
		"the client's built-in MMR (Weaviate 1.37+)",              // caught
		"an unmodified `weaviate-server` v1.38.12 with",           // caught
		"Weaviate v1.38.14, the pin",                              // the pin
		"Go 1.26.8, protoc-gen-go v1.36.11, weaviate-client 3.14", // not Weaviate's
		"<!-- BEGIN versions -->", "| anchors verified | v1.39.7 |", "<!-- END versions -->",
	}, "\n")
	got := otherVersions("x.md", text, "v1.38.14")
	want := []string{"x.md:1: v1.38.11", "x.md:2: 1.37", "x.md:3: v1.38.12"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("got %q, want %q", got, want)
	}
}
