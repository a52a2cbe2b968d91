package doccheck

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// generatedBlocks are the block names whose content a project command
// writes or a test checks: figures inside them are not typed by hand.
var generatedBlocks = map[string]string{
	"demo":            "make demo-readme (tools/demo)",
	"speed-selection": "make bench (tools/benchtab)",
	"speed-server":    "make bench-server (tools/bench)",
	"keys":            "config/docs_test.go against config.Keys",
	"env":             "config/docs_test.go against config.Env",
	"versions":        "TestWeaviateVersionNamed against go.mod",
	"params":          "selectors/all against each strategy's parameter specs",
}

// handWritten are the reports that still hold hand-written prose figures
// beside their generated tables (to be converted; TestNoHandWrittenFigures
// covers every other markdown file).
var handWritten = map[string]bool{
	"docs/quality.md":            true,
	"docs/performance.md":        true,
	"docs/reliability.md":        true,
	"docs/strategies-vector.md":  true,
	"docs/strategies-text.md":    true,
	"docs/strategies-quality.md": true,
	"docs/embedder.md":           true,
}

var (
	reBegin      = regexp.MustCompile(`<!-- BEGIN ([\w-]+)`)
	reEnd        = regexp.MustCompile(`<!-- END ([\w-]+)`)
	reInlineCode = regexp.MustCompile("`[^`]*`")
	reLinkTarget = regexp.MustCompile(`\]\([^)]*\)`)
	reComment    = regexp.MustCompile(`<!--.*?-->`)
	reRelease    = regexp.MustCompile(`\bv?\d+\.\d+\.\d+\b`) // versions are not figures
	// reFigure is a measured figure: a number with a unit of time, rate,
	// share or size, or any decimal number.
	reFigure = regexp.MustCompile(`(?i)(?:\b\d+(?:[.,]\d+)*\s?(?:ms|µs|us|ns|s|sec|seconds?|mins?|minutes?|hours?|%|x|×|GFLOP/s|[KMG]i?B)(?:[\s),.;:!?]|$))|(?:\b\d+\.\d+\b)`)
)

// handFigures returns, as "file:line: figure", the figures of a markdown
// document outside fenced code, inline code, link targets and the
// generated blocks; unknown block names are reported too.
func handFigures(file, doc string) []string {
	var bad []string
	lines, numbers := prose(doc)
	block := ""
	for i, l := range lines {
		where := fmt.Sprintf("%s:%d: ", file, numbers[i])
		if m := reBegin.FindStringSubmatch(l); m != nil {
			if _, ok := generatedBlocks[m[1]]; !ok {
				bad = append(bad, where+"block "+m[1]+" is not a known generated block")
			}
			block = m[1]
			continue
		}
		if m := reEnd.FindStringSubmatch(l); m != nil {
			block = ""
			continue
		}
		if block != "" {
			continue
		}
		l = reComment.ReplaceAllString(reLinkTarget.ReplaceAllString(reInlineCode.ReplaceAllString(l, "``"), "]"), "")
		l = reRelease.ReplaceAllString(l, "VERSION")
		for _, f := range reFigure.FindAllString(l, -1) {
			bad = append(bad, where+strings.TrimRight(strings.TrimSpace(f), ",.;:!?)"))
		}
	}
	return bad
}

// TestNoHandWrittenFigures: no measured figure is typed by hand in the
// README, the CHANGELOG or docs/ (but the reports listed in handWritten):
// figures live in blocks a project command writes or a test checks.
func TestNoHandWrittenFigures(t *testing.T) {
	checked := 0
	for _, f := range markdownFiles(t) {
		if handWritten[f] {
			continue
		}
		checked++
		for _, b := range handFigures(f, read(t, f)) {
			t.Errorf("%s (a figure typed by hand: put it in a generated block, or drop it)", b)
		}
	}
	if checked < 10 {
		t.Errorf("only %d files checked", checked)
	}
	for f := range handWritten {
		read(t, f) // a listed file that is gone must leave the list
	}
}

// TestNoHandWrittenFiguresCatch: the figures prose uses are caught, and
// code, link targets and generated blocks are not.
func TestNoHandWrittenFiguresCatch(t *testing.T) {
	doc := strings.Join([]string{
		"kernel 148-192 GFLOP/s on one core, 1.43 ms, 85.9% of clusters", // caught: 192 GFLOP/s, 1.43 ms, 85.9%
		"about 5 minutes, 3-5x faster, image 428 MB",                     // caught: 5 minutes, 5x, 428 MB
		"`-fuzztime 30s` and [docs](x.md#7-memory-under-concurrency), v1.38.14, 3 nodes",
		"<!-- BEGIN speed-server -->", "default 2.64 ms", "<!-- END speed-server -->",
		"```", "took 9.7 s", "```",
		"<!-- BEGIN made-up -->", "1.5 ms", "<!-- END made-up -->",
	}, "\n")
	got := handFigures("x.md", doc)
	want := []string{"x.md:1: 192 GFLOP/s", "x.md:1: 1.43 ms", "x.md:1: 85.9%", "x.md:2: 5 minutes", "x.md:2: 5x",
		"x.md:2: 428 MB", "x.md:10: block made-up is not a known generated block"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}
