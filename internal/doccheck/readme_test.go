package doccheck

import (
	"path"
	"slices"
	"strings"
	"testing"
)

// readmeSections is the README's order: what a newcomer must know first.
var readmeSections = []string{
	"What it is, and what it is not",
	"Before and after",
	"Two commands",
	"Docker compose",
	"Use it from your client",
	"Choose a strategy",
	"Where the selection sits",
	"Where each setting is documented",
	"Limits",
}

// readmeShapeErrors checks the README's length, sections, pictures and
// client snippets.
func readmeShapeErrors(readme string) []string {
	var errs []string
	if n := strings.Count(strings.TrimRight(readme, "\n"), "\n") + 1; n > 400 {
		errs = append(errs, "the README has "+itoa(n)+" lines, at most 400")
	}
	var got []string
	lines, _ := prose(readme)
	for _, l := range lines {
		if h, ok := strings.CutPrefix(l, "## "); ok {
			got = append(got, h)
		}
	}
	if !slices.Equal(got, readmeSections) {
		errs = append(errs, "the README's sections are "+strings.Join(got, " | ")+"; want "+strings.Join(readmeSections, " | "))
	}
	for _, pic := range []string{"](docs/quality-budget.png)", "](docs/query-path.svg)"} {
		if !strings.Contains(readme, pic) {
			errs = append(errs, "the README does not show "+pic)
		}
	}
	_, clients, _ := strings.Cut(readme, "\n## Use it from your client\n")
	clients, _, _ = strings.Cut(clients, "\n## ")
	for _, fence := range []string{"```js\n", "```python\n", "```go\n", "```graphql\n"} {
		if strings.Count(clients, fence) != 1 {
			errs = append(errs, "the client section should hold one "+strings.TrimSpace(fence)+" snippet")
		}
	}
	return errs
}

func itoa(n int) string {
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}

// TestREADMEShape: at most 400 lines, the sections in order, the quality plot
// and the query-path picture, one snippet per client.
func TestREADMEShape(t *testing.T) {
	for _, e := range readmeShapeErrors(read(t, "README.md")) {
		t.Error(e)
	}
}

// TestREADMEShapeCatch: a long README, a section out of order and a second
// snippet of one client are reported.
func TestREADMEShapeCatch(t *testing.T) {
	readme := read(t, "README.md")
	swapped := strings.Replace(strings.Replace(readme, "\n## Limits\n", "\n## LIMITS\n", 1), "\n## Two commands\n", "\n## Limits\n", 1)
	for name, broken := range map[string]string{
		"long":     readme + strings.Repeat("\nmore", 400),
		"order":    swapped,
		"snippets": strings.Replace(readme, "```graphql\n", "```go\nx\n```\n```graphql\n", 1),
	} {
		if len(readmeShapeErrors(broken)) == 0 {
			t.Errorf("%s: not reported", name)
		}
	}
}

// TestDocsReachable: every docs/*.md is reachable from the README through
// relative links.
func TestDocsReachable(t *testing.T) {
	seen := map[string]bool{"README.md": true}
	queue := []string{"README.md"}
	for len(queue) > 0 {
		f := queue[0]
		queue = queue[1:]
		lines, _ := prose(read(t, f))
		for _, l := range lines {
			for _, m := range reLink.FindAllStringSubmatch(l, -1) {
				file, _, _ := strings.Cut(m[1], "#")
				if file == "" || strings.Contains(file, "://") || !strings.HasSuffix(file, ".md") {
					continue
				}
				target := path.Clean(path.Join(path.Dir(f), file))
				if !seen[target] {
					seen[target] = true
					queue = append(queue, target)
				}
			}
		}
	}
	for _, f := range markdownFiles(t) {
		if !seen[f] {
			t.Errorf("%s is not reachable from the README", f)
		}
	}
}
