package doccheck

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// root is the repository root, from this package's folder.
const root = "../.."

func read(t *testing.T, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// markdownFiles returns README.md, CHANGELOG.md and every docs/*.md, relative
// to the root.
func markdownFiles(t *testing.T) []string {
	t.Helper()
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	files := []string{"README.md", "CHANGELOG.md"}
	for _, d := range docs {
		files = append(files, filepath.ToSlash(strings.TrimPrefix(d, root+string(filepath.Separator))))
	}
	sort.Strings(files[2:])
	return files
}

var reWeaviatePin = regexp.MustCompile(`(?m)^\s*github\.com/weaviate/weaviate (v\S+)`)

// pinnedWeaviate is the Weaviate version go.mod pins ("v1.38.14").
func pinnedWeaviate(t *testing.T) string {
	t.Helper()
	m := reWeaviatePin.FindStringSubmatch(read(t, "go.mod"))
	if m == nil {
		t.Fatal("go.mod pins no github.com/weaviate/weaviate")
	}
	return m[1]
}

// prose splits markdown into the lines outside fenced code blocks, with
// their 1-based line numbers.
func prose(doc string) (lines []string, numbers []int) {
	fenced := false
	for i, l := range strings.Split(doc, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			fenced = !fenced
			continue
		}
		if !fenced {
			lines = append(lines, l)
			numbers = append(numbers, i+1)
		}
	}
	return lines, numbers
}
