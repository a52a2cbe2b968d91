package main

import (
	"fmt"
	"os"
	"slices"
	"strings"
)

// shownQuery is one demo query as printed, with its figures.
type shownQuery struct {
	text string
	pair pair
}

// legend says what the marks of the columns mean.
const legend = "≈ near-copy of a chunk above it in the list, ~ paraphrase of one above it"

// medianGain picks the query shown in the README: the first demo query whose
// facet gain (the facets the default covers beyond top-k's) is the median
// gain of all (the lower middle for an even count) - neither the best case
// nor the worst.
func medianGain(shown []shownQuery) shownQuery {
	gains := make([]int, len(shown))
	for i, s := range shown {
		gains[i] = gain(s.pair)
	}
	slices.Sort(gains)
	median := gains[(len(gains)-1)/2]
	i := slices.IndexFunc(shown, func(s shownQuery) bool { return gain(s.pair) == median })
	return shown[i]
}

func gain(p pair) int { return p.diverse.facets - p.topk.facets }

// overall sums every demo query's figures, top-k against the default.
func overall(shown []shownQuery) string {
	var t, d figures
	for _, s := range shown {
		for _, x := range []struct {
			sum *figures
			f   figures
		}{{&t, s.pair.topk}, {&d, s.pair.diverse}} {
			x.sum.chunks += x.f.chunks
			x.sum.tokens += x.f.tokens
			x.sum.facets += x.f.facets
			x.sum.allFacets += x.f.allFacets
			x.sum.nearCopies += x.f.nearCopies
			x.sum.paraphrases += x.f.paraphrases
		}
	}
	return fmt.Sprintf("All %d queries, top-k -> diverse-select: facets %d -> %d of %d, near-copies %d -> %d, paraphrases %d -> %d, tokens %d -> %d",
		len(shown), t.facets, d.facets, t.allFacets, t.nearCopies, d.nearCopies, t.paraphrases, d.paraphrases, t.tokens, d.tokens)
}

// readmeBlock is the README's demo block: the rule, the query it picks as
// printed, the legend and the summary over all queries.
func readmeBlock(shown []shownQuery) string {
	m := medianGain(shown)
	return fmt.Sprintf("The first of the %d demo queries whose facet gain (diverse-select's facets minus top-k's) is the median:\n\n%s%s\n%s\n",
		len(shown), m.text, legend, overall(shown))
}

// The README's demo block (readmeBlock) between these markers; make
// demo-readme writes it.
const (
	demoBegin = "<!-- BEGIN demo -->"
	demoEnd   = "<!-- END demo -->"
)

// spliceDemo replaces the demo block of file by the comparison shown.
func spliceDemo(file, shown string) error {
	return spliceFile(file, func(doc string) (string, error) { return spliceDemoText(doc, shown) })
}

// spliceFile rewrites file with splice.
func spliceFile(file string, splice func(doc string) (string, error)) error {
	data, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	out, err := splice(string(data))
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	return os.WriteFile(file, []byte(out), 0o644)
}

func spliceDemoText(doc, shown string) (string, error) {
	lines := strings.Split(strings.Trim(shown, "\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return spliceBlock(doc, demoBegin, demoEnd, "```\n"+strings.Join(lines, "\n")+"\n```\n")
}

// spliceBlock puts body between the lines begin and end of doc, in place of what was there.
func spliceBlock(doc, begin, end, body string) (string, error) {
	i, j := strings.Index(doc, begin), strings.Index(doc, end)
	if i < 0 || j < i {
		return "", fmt.Errorf("no %s ... %s block", begin, end)
	}
	return doc[:i] + begin + "\n" + body + doc[j:], nil
}
