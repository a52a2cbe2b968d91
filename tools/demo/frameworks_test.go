package main

import (
	"strconv"
	"strings"
	"testing"

	"github.com/diverse-select/diverse-select/internal/corpus"
)

// TestStatsOf: what the side-by-side counts in a selection, from the corpus's labels.
func TestStatsOf(t *testing.T) {
	byID := map[string]corpus.Chunk{}
	for _, c := range corpus.Chunks() {
		byID[c.ID] = c
	}
	var statins corpus.Query
	for _, q := range corpus.Queries() {
		if q.ID == "q-statins" {
			statins = q
		}
	}
	for _, c := range []struct {
		name                                string
		ids                                 []string
		facets, nearCopies, paraphrasePairs int
	}{
		{"one chunk", []string{"statins-liver-enzymes"}, 1, 0, 0},
		{"a near-copy after its original", []string{"statins-liver-enzymes", "statins-liver-enzymes-dup3"}, 1, 1, 0},
		{"two copies, no original", []string{"statins-liver-enzymes-dup1", "statins-liver-enzymes-dup2"}, 1, 1, 0},
		{"a paraphrase and its original, either order", []string{"statins-rhabdo-para", "statins-rhabdo"}, 1, 0, 1},
		{"two facets", []string{"statins-rhabdo-risk", "statins-liver-enzymes", "statins-rhabdo"}, 2, 0, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			st, err := statsOf(c.ids, statins, byID)
			if err != nil {
				t.Fatal(err)
			}
			tokens := 0
			for _, id := range c.ids {
				tokens += promptTokens.Count(byID[id].Body)
			}
			want := rowStats{chunks: len(c.ids), facets: c.facets, totalFacets: len(statins.Facets),
				nearCopies: c.nearCopies, paraphrasePairs: c.paraphrasePairs, tokens: tokens}
			if st != want {
				t.Errorf("got %+v, want %+v", st, want)
			}
		})
	}
	if _, err := statsOf([]string{"no-such-chunk"}, statins, byID); err == nil || !strings.Contains(err.Error(), "no-such-chunk") {
		t.Errorf("an unknown chunk: %v", err)
	}
}

// TestFrameworksTable: one summary row per method (sums, tokens per query, the median time) and one row per query.
func TestFrameworksTable(t *testing.T) {
	qs := corpus.Queries()
	rows := []frameworkRow{
		{"LangChain", "top-k", qs[0].Text, []string{"statins-liver-enzymes", "statins-liver-enzymes-dup1"}, 30},
		{"LangChain", "top-k", qs[1].Text, nil, 10},
		{"LangChain", "top-k", qs[2].Text, nil, 20},
	}
	got, err := frameworksTable(rows, "hash", 600, 40)
	if err != nil {
		t.Fatal(err)
	}
	tokens := 0
	for _, id := range rows[0].Chunks {
		for _, c := range corpus.Chunks() {
			if c.ID == id {
				tokens += promptTokens.Count(c.Body)
			}
		}
	}
	totalFacets := len(qs[0].Facets) + len(qs[1].Facets) + len(qs[2].Facets)
	summary := "| LangChain | top-k | 2 | 1/" + strconv.Itoa(totalFacets) + " | 1 | 0 | " + strconv.Itoa(tokens/3) + " | 20.0 |"
	if !strings.Contains(got, summary) {
		t.Errorf("no summary row %q in\n%s", summary, got)
	}
	if n := strings.Count(got, "| LangChain | top-k | q-"); n != 3 {
		t.Errorf("%d per-query rows, want 3:\n%s", n, got)
	}
	if _, err := frameworksTable([]frameworkRow{{"X", "y", "not a demo query", nil, 1}}, "hash", 600, 40); err == nil {
		t.Error("a row for an unknown query is not an error")
	}
}
