package doccheck

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

var (
	reLink    = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	reImgSrc  = regexp.MustCompile(`<img[^>]*\ssrc="([^"]+)"`)
	reHeading = regexp.MustCompile(`^#{1,6}\s+(.*?)\s*#*\s*$`)
	reMdLink  = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)
)

// slug is GitHub's anchor for a heading: lower case, punctuation dropped
// (letters, digits, spaces, hyphens and underscores kept), spaces as hyphens.
func slug(heading string) string {
	heading = reMdLink.ReplaceAllString(heading, "$1")
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	return b.String()
}

// anchors returns the heading anchors of a markdown document, duplicates
// numbered as GitHub numbers them.
func anchors(doc string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	lines, _ := prose(doc)
	for _, l := range lines {
		m := reHeading.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		s := slug(m[1])
		if n := seen[s]; n > 0 {
			out[fmt.Sprintf("%s-%d", s, n)] = true
		} else {
			out[s] = true
		}
		seen[s]++
	}
	return out
}

// brokenLinks returns the relative links of the markdown file rel (relative
// to root) whose file or heading does not exist.
func brokenLinks(root, rel, doc string) []string {
	var bad []string
	lines, numbers := prose(doc)
	for i, l := range lines {
		var targets []string
		for _, m := range reLink.FindAllStringSubmatch(l, -1) {
			targets = append(targets, m[1])
		}
		for _, m := range reImgSrc.FindAllStringSubmatch(l, -1) {
			targets = append(targets, m[1])
		}
		for _, target := range targets {
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, anchor, _ := strings.Cut(target, "#")
			where := fmt.Sprintf("%s:%d: %s", rel, numbers[i], target)
			targetRel := rel
			if file != "" {
				targetRel = path.Clean(path.Join(path.Dir(rel), file))
				if strings.HasPrefix(targetRel, "../") {
					bad = append(bad, where+": outside the repository")
					continue
				}
				if _, err := os.Stat(filepath.Join(root, targetRel)); err != nil {
					bad = append(bad, where+": no such file")
					continue
				}
			}
			if anchor == "" {
				continue
			}
			if !strings.HasSuffix(targetRel, ".md") {
				bad = append(bad, where+": an anchor into a file that is not markdown")
				continue
			}
			target := doc
			if file != "" {
				b, err := os.ReadFile(filepath.Join(root, targetRel))
				if err != nil {
					bad = append(bad, where+": "+err.Error())
					continue
				}
				target = string(b)
			}
			if !anchors(target)[anchor] {
				bad = append(bad, where+": no heading with this anchor in "+targetRel)
			}
		}
	}
	return bad
}

// TestDocLinks: every relative link and image in the README, the CHANGELOG
// and docs/ names an existing file inside the repository, and an existing
// heading when it has an anchor.
func TestDocLinks(t *testing.T) {
	files := markdownFiles(t)
	if len(files) < 10 {
		t.Fatalf("only %d markdown files found: %v", len(files), files)
	}
	for _, f := range files {
		for _, b := range brokenLinks(root, f, read(t, f)) {
			t.Error(b)
		}
	}
}

// TestDocLinksCatch: the checker reports a missing file, a missing heading,
// a link out of the repository, and accepts good links.
func TestDocLinksCatch(t *testing.T) {
	dir := t.TempDir()
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(dir, "docs"), 0o755))
	must(os.WriteFile(filepath.Join(dir, "docs", "b.md"), []byte("# B\n\n## What we change in Weaviate, and why\n\n## `offset` (pages)\n"), 0o644))
	doc := strings.Join([]string{
		"[ok](docs/b.md) [ok](docs/b.md#what-we-change-in-weaviate-and-why) [ok](docs/b.md#offset-pages) [ok](#top-heading)",
		"[gone](docs/c.md) [no heading](docs/b.md#limits) [out](../shared/design/x.md) <img src=\"docs/d.svg\">",
		"```", "[in code](nowhere.md)", "```", "# Top heading",
	}, "\n")
	got := brokenLinks(dir, "README.md", doc)
	want := []string{"docs/c.md: no such file", "docs/b.md#limits: no heading", "../shared/design/x.md: outside", "docs/d.svg: no such file"}
	if len(got) != len(want) {
		t.Fatalf("got %d problems, want %d: %q", len(got), len(want), got)
	}
	for i, w := range want {
		if !strings.Contains(got[i], w) {
			t.Errorf("problem %d = %q, want it to mention %q", i, got[i], w)
		}
	}
}
