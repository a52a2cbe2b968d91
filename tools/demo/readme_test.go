package main

import "testing"

func TestSpliceDemoText(t *testing.T) {
	doc := "intro\n<!-- BEGIN demo -->\n```\nold\n```\n<!-- END demo -->\nafter\n"
	got, err := spliceDemoText(doc, "\nQ: new   \n  = 3 chunks\n\n")
	if err != nil {
		t.Fatal(err)
	}
	want := "intro\n<!-- BEGIN demo -->\n```\nQ: new\n  = 3 chunks\n```\n<!-- END demo -->\nafter\n"
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if _, err := spliceDemoText("no block", "x"); err == nil {
		t.Error("a file without the block is not an error")
	}
}

func TestMedianGain(t *testing.T) {
	q := func(name string, topk, diverse int) shownQuery {
		return shownQuery{text: name, pair: pair{query: name, topk: figures{facets: topk}, diverse: figures{facets: diverse}}}
	}
	for _, tc := range []struct {
		name  string
		shown []shownQuery
		want  string
	}{
		{"the middle gain of five, not the best", []shownQuery{q("a", 3, 4), q("b", 1, 1), q("c", 2, 5), q("d", 3, 4), q("e", 4, 5)}, "a"},
		{"on a tie the first in the demo's order", []shownQuery{q("a", 1, 2), q("b", 1, 2), q("c", 1, 2)}, "a"},
		{"the lower middle of an even count", []shownQuery{q("a", 1, 5), q("b", 1, 1), q("c", 1, 3), q("d", 1, 2)}, "d"},
		{"one query", []shownQuery{q("a", 2, 2)}, "a"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := medianGain(tc.shown).text; got != tc.want {
				t.Errorf("picked %q, want %q", got, tc.want)
			}
		})
	}
}

func TestOverall(t *testing.T) {
	shown := []shownQuery{
		{pair: pair{topk: figures{chunks: 6, tokens: 545, facets: 1, allFacets: 8, nearCopies: 4, paraphrases: 0},
			diverse: figures{chunks: 5, tokens: 408, facets: 2, allFacets: 8, nearCopies: 0, paraphrases: 1}}},
		{pair: pair{topk: figures{chunks: 7, tokens: 537, facets: 3, allFacets: 7, nearCopies: 2, paraphrases: 1},
			diverse: figures{chunks: 7, tokens: 600, facets: 5, allFacets: 7, nearCopies: 0, paraphrases: 0}}},
	}
	want := "All 2 queries, top-k -> diverse-select: facets 4 -> 7 of 15, near-copies 6 -> 0, paraphrases 1 -> 1, tokens 1082 -> 1008"
	if got := overall(shown); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}
