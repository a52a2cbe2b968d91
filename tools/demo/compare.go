package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/diverse-select/diverse-select/integration/stack"
	"github.com/diverse-select/diverse-select/internal/corpus"
)

// hit is one returned chunk with its diverse-select explanation.
type hit struct {
	Title    string `json:"title"`
	Facet    string `json:"facet"`
	DupGroup string `json:"dupGroup"`
	Add      struct {
		DS struct {
			Rank     int    `json:"rank"`
			Tokens   int    `json:"tokens"`
			Strategy string `json:"strategy"`
		} `json:"diverseSelect"`
	} `json:"_additional"`
}

// compare prints top-k and diverse selection for one query, side by side.
func compare(ctx context.Context, url string, w io.Writer, q corpus.Query, budget, candidates int, strategy string) error {
	topk, err := selection(ctx, url, q.Text, fmt.Sprintf(`strategy: "topk", tokenBudget: %d, candidates: %d`, budget, candidates))
	if err != nil {
		return err
	}
	args := fmt.Sprintf(`tokenBudget: %d, candidates: %d`, budget, candidates)
	if strategy != "" {
		args += fmt.Sprintf(`, strategy: %q`, strategy)
	}
	diverse, err := selection(ctx, url, q.Text, args)
	if err != nil {
		return err
	}
	name := "diverse-select"
	if len(diverse) > 0 {
		name += " (" + diverse[0].Add.DS.Strategy + ")"
	}
	fmt.Fprintf(w, "Q: %s   [budget %d tokens, pool %d]\n", q.Text, budget, candidates)
	left, right := column(topk, "top-k"), column(diverse, name)
	for i := 0; i < len(left) || i < len(right); i++ {
		fmt.Fprintf(w, "  %-62s %s\n", at(left, i), at(right, i))
	}
	fmt.Fprintf(w, "  %-62s %s\n\n", summary(topk, q), summary(diverse, q))
	return nil
}

func column(hits []hit, name string) []string {
	out := []string{name, strings.Repeat("-", len(name))}
	seen := map[string]bool{}
	for _, h := range hits {
		mark := "  "
		if h.DupGroup != "" {
			if seen[h.DupGroup] {
				mark = "≈ " // a copy of a chunk already selected
			}
			seen[h.DupGroup] = true
		}
		out = append(out, fmt.Sprintf("%s%-46s %4d tok", mark, clip(h.Title, 46), h.Add.DS.Tokens))
	}
	return out
}

func summary(hits []hit, q corpus.Query) string {
	tokens, dups := 0, 0
	seen, facets := map[string]bool{}, map[string]bool{}
	for _, h := range hits {
		tokens += h.Add.DS.Tokens
		if h.DupGroup != "" {
			if seen[h.DupGroup] {
				dups++
			}
			seen[h.DupGroup] = true
		}
		for _, f := range q.Facets {
			if f.Facet == h.Facet {
				facets[h.Facet] = true
			}
		}
	}
	return fmt.Sprintf("= %d chunks, %d tokens, %d/%d facets, %d near-copies", len(hits), tokens, len(facets), len(q.Facets), dups)
}

func at(col []string, i int) string {
	if i < len(col) {
		return col[i]
	}
	return ""
}

func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// selection runs one nearText query with the given diverseSelect arguments.
func selection(ctx context.Context, url, text, dsArgs string) ([]hit, error) {
	query := fmt.Sprintf(`{ Get { %s(nearText: {concepts: [%q]}, diverseSelect: {%s}) {
		title facet dupGroup _additional { diverseSelect { rank tokens strategy } } } } }`, Class, text, dsArgs)
	var hits []hit
	if err := stack.QueryGet(ctx, url, Class, query, &hits); err != nil {
		return nil, fmt.Errorf("query %q: %w", text, err)
	}
	return hits, nil
}
