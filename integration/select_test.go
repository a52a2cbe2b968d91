package integration

import (
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
)

// healthNear is the nearText search of the Health corpus.
func healthNear(limit int) string {
	return fmt.Sprintf(`nearText: {concepts: [%q]}, limit: %d`, healthQuery, limit)
}

// TestEmbedderVectorsAreReproducible checks the premise of the similarity
// assertions: the server's relevance for nearText equals the cosine of the
// hash vectors the test computes itself.
func TestEmbedderVectorsAreReproducible(t *testing.T) {
	c := health(t)
	hits := get(t, c, plain(c, healthNear(len(healthDocs)), "body"), nil)
	if len(hits) != len(healthDocs) {
		t.Fatalf("plain nearText returned %d objects, want all %d", len(hits), len(healthDocs))
	}
	for _, h := range hits {
		want := math.Max(0, cosine(healthQuery, h.Str("body")))
		if got := 1 - *h.Distance; math.Abs(got-want) > 1e-4 {
			t.Errorf("%q: server similarity %.5f, hash cosine %.5f: the embedder is not the 256-d hash mode the tests assume", h.Str("body"), got, want)
		}
	}
}

// TestDuplicatesTopkVersusDiverse: on the planted near-duplicates, topk fills
// its first results with copies of the most relevant fact; adagres and mmr
// return no two items of the same duplicate group.
func TestDuplicatesTopkVersusDiverse(t *testing.T) {
	c := health(t)
	const budget = 120 // about six of the Health chunks
	search := healthNear(10)
	diverse := func(strategy string) string {
		return fmt.Sprintf(`strategy: %q, tokenBudget: %d, candidates: %d`, strategy, budget, len(healthDocs))
	}

	top := get(t, c, sel(c, search, diverse("topk"), "body"), nil)
	checkSelection(t, top, budget, true)
	topGroups := groupsOf(t, top, healthIdx)
	if len(duplicatePairs(topGroups[:3])) == 0 {
		t.Errorf("topk's first three results %v contain no planted duplicate pair: the corpus no longer tests anything", topGroups)
	}

	for _, s := range []string{"adagres", "mmr"} {
		t.Run(s, func(t *testing.T) {
			hits := get(t, c, sel(c, search, diverse(s), "body"), nil)
			checkSelection(t, hits, budget, true)
			groups := groupsOf(t, hits, healthIdx)
			if len(hits) < 2 {
				t.Fatalf("%s selected %d item(s), want at least 2", s, len(hits))
			}
			if pairs := duplicatePairs(groups); len(pairs) > 0 {
				t.Errorf("%s selected planted duplicates: groups %v, pairs %v", s, groups, pairs)
			}
			if groups[0] != 1 {
				t.Errorf("%s's first pick is from group %d, want the most relevant group 1 (groups %v)", s, groups[0], groups)
			}
			if hits[0].DS.Strategy != s {
				t.Errorf("strategy %q reported, want %q", hits[0].DS.Strategy, s)
			}
		})
	}
}

// TestQueryForms: the top-level argument (limit caps the output, candidates
// sizes the pool) and the _additional field (the query limit is the pool).
func TestQueryForms(t *testing.T) {
	c := health(t)
	t.Run("top-level limit caps output, candidates sizes pool", func(t *testing.T) {
		hits := get(t, c, sel(c, healthNear(3), `strategy: "mmr", candidates: 12`, "body"), nil)
		checkSelection(t, hits, 0, true)
		if len(hits) > 3 {
			t.Errorf("%d objects returned, limit is 3", len(hits))
		}
		for _, h := range hits {
			if h.DS.Candidates != 12 {
				t.Errorf("candidates %d, want the requested pool of 12", h.DS.Candidates)
			}
		}
	})
	t.Run("top-level limit is reached without a budget", func(t *testing.T) {
		hits := get(t, c, sel(c, healthNear(4), `strategy: "topk", candidates: 15`, "body"), nil)
		checkSelection(t, hits, 0, true)
		if len(hits) != 4 || hits[0].DS.Candidates != 15 {
			t.Errorf("%d objects from a pool of %d, want 4 from 15", len(hits), hits[0].DS.Candidates)
		}
	})
	t.Run("_additional field: limit is the pool", func(t *testing.T) {
		hits := get(t, c, field(c, healthNear(7), `strategy: "mmr", tokenBudget: 80`, "body"), nil)
		checkSelection(t, hits, 80, true)
		if hits[0].DS.Candidates != 7 {
			t.Errorf("candidates %d, want the query limit 7", hits[0].DS.Candidates)
		}
		if pairs := duplicatePairs(groupsOf(t, hits, healthIdx)); len(pairs) > 0 {
			t.Errorf("mmr in the _additional form selected duplicates %v", pairs)
		}
	})
	t.Run("argument with a bare _additional field shows the explanation", func(t *testing.T) {
		q := fmt.Sprintf(`{ Get { %s(%s, diverseSelect: {strategy: "dpp", tokenBudget: 50}) { body _additional { diverseSelect { rank strategy budget } } } } }`, c, healthNear(4))
		res := graphql(t, q, nil)
		if len(res.Errors) > 0 || len(res.Data.Get[c]) == 0 {
			t.Fatalf("errors %q, data %v", res.errText(), res.Data.Get)
		}
		ds, _ := res.Data.Get[c][0]["_additional"].(map[string]any)["diverseSelect"].(map[string]any)
		if ds["strategy"] != "dpp" || ds["budget"] != 50.0 {
			t.Errorf("explanation %v does not show the argument's strategy and budget", ds)
		}
	})
	t.Run("arguments in both forms are refused, not silently dropped", func(t *testing.T) {
		q := fmt.Sprintf(`{ Get { %s(%s, diverseSelect: {strategy: "topk"}) { body _additional { diverseSelect(strategy: "mmr") { rank } } } } }`, c, healthNear(4))
		msg := gqlError(t, q, nil)
		for _, w := range []string{"diverseSelect", "both", "one place"} {
			if !strings.Contains(msg, w) {
				t.Errorf("error %q does not mention %q", msg, w)
			}
		}
		assertAlive(t)
	})
	t.Run("both forms select the same set from the same pool", func(t *testing.T) {
		a := get(t, c, sel(c, healthNear(9), `strategy: "adagres", tokenBudget: 100, candidates: 9`, "body"), nil)
		b := get(t, c, field(c, healthNear(9), `strategy: "adagres", tokenBudget: 100`, "body"), nil)
		if !reflect.DeepEqual(ids(a), ids(b)) {
			t.Errorf("top-level %v, _additional %v", groupsOf(t, a, healthIdx), groupsOf(t, b, healthIdx))
		}
	})
}

// TestGraphQLVariables: variables work for the top-level form, as a whole
// input object and as field variables; the _additional form refuses them
// with a clear error.
func TestGraphQLVariables(t *testing.T) {
	c := health(t)
	literal := get(t, c, sel(c, healthNear(6), `strategy: "mmr", tokenBudget: 70, candidates: 11, lambda: 0.6`, "body"), nil)
	checkSelection(t, literal, 70, true)

	wholeQuery := fmt.Sprintf(`query($ds: %sDiverseSelectInpObj) { Get { %s(%s, diverseSelect: $ds) { body _additional { id diverseSelect { %s } } } } }`,
		c, c, healthNear(6), dsFields)
	fieldQuery := fmt.Sprintf(`query($s: String, $b: Int, $n: Int, $l: Float) { Get { %s(%s, diverseSelect: {strategy: $s, tokenBudget: $b, candidates: $n, lambda: $l}) { body _additional { id diverseSelect { %s } } } } }`,
		c, healthNear(6), dsFields)
	for _, tc := range []struct {
		name, query string
		vars        map[string]any
	}{
		{"whole object", wholeQuery, map[string]any{"ds": map[string]any{"strategy": "mmr", "tokenBudget": 70, "candidates": 11, "lambda": 0.6}}},
		{"fields", fieldQuery, map[string]any{"s": "mmr", "b": 70, "n": 11, "l": 0.6}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hits := get(t, c, tc.query, tc.vars)
			checkSelection(t, hits, 70, true)
			if hits[0].DS.Strategy != "mmr" || hits[0].DS.Candidates != 11 {
				t.Errorf("strategy %q, candidates %d: the variables were not applied", hits[0].DS.Strategy, hits[0].DS.Candidates)
			}
			if !reflect.DeepEqual(ids(hits), ids(literal)) {
				t.Errorf("with variables %v, with literals %v", ids(hits), ids(literal))
			}
		})
	}
	t.Run("changing a variable changes the selection", func(t *testing.T) {
		hits := get(t, c, fieldQuery, map[string]any{"s": "topk", "b": 30, "n": 11, "l": nil})
		checkSelection(t, hits, 30, true)
		if hits[0].DS.Strategy != "topk" {
			t.Errorf("strategy %q, want topk", hits[0].DS.Strategy)
		}
	})
	t.Run("_additional form with a variable is a clear error", func(t *testing.T) {
		q := fmt.Sprintf(`query($b: Int) { Get { %s(%s) { body _additional { diverseSelect(strategy: "topk", tokenBudget: $b) { rank } } } } }`, c, healthNear(5))
		msg := gqlError(t, q, map[string]any{"b": 40})
		for _, want := range []string{"tokenBudget", "variable", "top-level"} {
			if !strings.Contains(msg, want) {
				t.Errorf("error %q does not mention %q", msg, want)
			}
		}
		assertAlive(t)
	})
}

// TestSearchOperators: every search operator, and plain Get, gives a valid
// selection in both forms. The dedupThreshold pre-pass compares the stored
// vectors, so it also proves they were loaded on each path (hybrid loads none
// by itself): no two returned bodies may have a hash cosine >= the threshold.
func TestSearchOperators(t *testing.T) {
	c := health(t)
	g1a := uuidOf(c, "/g1a")
	obj, err := client.Data().ObjectsGetter().WithClassName(c).WithID(g1a).WithVector().Do(ctx(t))
	if err != nil || len(obj) != 1 || len(obj[0].Vector) == 0 {
		t.Fatalf("get the vector of g1a: %v", err)
	}
	vec := fmt.Sprint([]float32(obj[0].Vector))
	vec = strings.ReplaceAll(strings.Trim(vec, "[]"), " ", ", ")
	ops := []struct {
		name, search string
		scored       bool // relevance is the pool-normalised score
		ranked       bool // plain Get: relevance from the order
	}{
		{name: "nearText", search: healthNear(12)},
		{name: "nearVector", search: "nearVector: {vector: [" + vec + "]}, limit: 12"},
		{name: "nearObject", search: fmt.Sprintf("nearObject: {id: %q}, limit: 12", g1a)},
		{name: "hybrid", search: `hybrid: {query: "statins cholesterol heart", alpha: 0.5}, limit: 12`, scored: true},
		{name: "bm25", search: `bm25: {query: "statins cholesterol heart"}, limit: 12`, scored: true},
		{name: "plain Get", search: "limit: 12", ranked: true},
	}
	const (
		budget    = 100
		threshold = 0.8
	)
	for _, op := range ops {
		for _, form := range []string{"argument", "field"} {
			t.Run(op.name+"/"+form, func(t *testing.T) {
				var q string
				if form == "argument" {
					q = sel(c, op.search, fmt.Sprintf(`strategy: "mmr", tokenBudget: %d, candidates: 12, dedupThreshold: %v`, budget, threshold), "body")
				} else {
					q = field(c, op.search, fmt.Sprintf(`strategy: "mmr", tokenBudget: %d, dedupThreshold: %v`, budget, threshold), "body")
				}
				hits := get(t, c, q, nil)
				checkSelection(t, hits, budget, true)
				if hits[0].DS.Candidates != 12 {
					t.Errorf("candidates %d, want 12", hits[0].DS.Candidates)
				}
				if len(hits) < 2 {
					t.Errorf("only %d item(s) selected under a budget of %d", len(hits), budget)
				}
				for i := range hits {
					for j := i + 1; j < len(hits); j++ {
						if s := cosine(hits[i].Str("body"), hits[j].Str("body")); s >= threshold {
							t.Errorf("items %d and %d have cosine %.3f >= dedupThreshold %v: vectors missing or unused\n%q\n%q",
								i, j, s, threshold, hits[i].Str("body"), hits[j].Str("body"))
						}
					}
				}
				if !op.ranked && hits[0].DS.Removed == 0 {
					t.Errorf("dedupThreshold %v removed nothing from a pool holding the planted duplicates", threshold)
				}
				for i, h := range hits {
					if h.DS.Relevance < 0 || h.DS.Relevance > 1+1e-6 {
						t.Errorf("hit %d relevance %v outside [0, 1]", i, h.DS.Relevance)
					}
					if !op.scored && !op.ranked && h.Distance != nil && math.Abs(h.DS.Relevance-(1-*h.Distance)) > 1e-5 {
						t.Errorf("hit %d: relevance %v, want 1 - distance = %v", i, h.DS.Relevance, 1-*h.Distance)
					}
				}
				if op.scored && math.Abs(hits[0].DS.Relevance-1) > 1e-9 {
					t.Errorf("mmr's first pick has relevance %v, want 1 (the best score, min-max normalised over the pool)", hits[0].DS.Relevance)
				}
				if op.name == "nearObject" || op.name == "nearVector" {
					if s := cosine(hits[0].Str("body"), healthIdx[g1a].Body); s < 0.999 {
						t.Errorf("%s: first pick %q is not the query object's text (cosine %.3f)", op.name, hits[0].Str("body"), s)
					}
				}
			})
		}
	}
}
