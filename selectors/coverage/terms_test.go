package coverage

import (
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/diverse-select/diverse-select/selectors"
	"github.com/diverse-select/diverse-select/selectors/text"
)

func TestQueryTermsHandComputed(t *testing.T) {
	// Query terms (stemmed): statin, liver, risk. N = 3.
	// statin in 0 and 1 (df 2): log(4/2.5); liver in 0 (df 1): log(4/1.5);
	// risk nowhere: dropped.
	p := &selectors.Problem{Query: "Statins and liver risk", Candidates: []selectors.Candidate{
		cand(0.5, 1, "statin liver damage"), cand(0.5, 1, "statins lower cholesterol"), cand(0.5, 1, "exercise"),
	}}
	has, w, lex, ids := queryTerms(p, text.NewAnalyzer(), nil, nil)
	assert.Equal(t, map[string]int32{"statin": 0, "liver": 1}, ids)
	ws, wl := math.Log(4/2.5), math.Log(4/1.5)
	sum := ws + wl
	require.Len(t, w, 2)
	assert.InDelta(t, ws/sum, w[0], 1e-12) // statin appears first in the query
	assert.InDelta(t, wl/sum, w[1], 1e-12)
	assert.Equal(t, [][]int32{{0, 1}, {0}, nil}, has)
	// lex: candidate 0 has both (1 before scaling, the pool's largest), 1 has statin only.
	assert.InDeltaSlice(t, []float64{1, ws / sum, 0}, lex, 1e-12)

	// Precomputed terms are used as given.
	p.Candidates[2].Terms = []string{"liver"}
	has, _, _, _ = queryTerms(p, text.NewAnalyzer(), nil, nil)
	assert.Equal(t, []int32{1}, has[2])

	for _, q := range []string{"", "the of and", "unrelated words"} {
		p.Query = q
		has, w, lex, _ = queryTerms(p, text.NewAnalyzer(), nil, nil)
		assert.Nil(t, has, q)
		assert.Nil(t, w, q)
		assert.Nil(t, lex, q)
	}
}

// TestQueryIndex: the query's terms are found by a scan of their hashes
// (short queries) or in a map (long ones), each once per candidate; a word
// that shares a term's hash is not the term; and in the scan, once a term is
// found in a candidate, the candidate's later words of its hash are not read.
func TestQueryIndex(t *testing.T) {
	long := strings.Fields("alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa quebec")
	require.Greater(t, len(long), maxScannedTerms)
	for _, tc := range []struct {
		name  string
		terms []string
	}{{"short", []string{"statin", "liver", "pain"}}, {"long", append(long, "statin")}} {
		var q queryIndex
		byTerm := map[string]int32{}
		for i, w := range tc.terms {
			q.add(w)
			byTerm[w] = int32(i)
		}
		if len(tc.terms) > maxScannedTerms {
			q.byTerm = byTerm
		}
		q.seen = make([]int32, len(tc.terms))
		for i, w := range tc.terms {
			h := text.TermHash(w)
			require.True(t, q.filter.hasHash(h), "%s: %q", tc.name, w)
			for d := range 2 {
				got, ok := q.foundIn(d, h, []string{"x", w}, 1)
				require.True(t, ok, "%s: %q in candidate %d", tc.name, w, d)
				require.Equal(t, int32(i), got, "%s: %q", tc.name, w)
				_, ok = q.foundIn(d, h, []string{w}, 0)
				require.False(t, ok, "%s: %q found in candidate %d before", tc.name, w, d)
			}
		}
		require.Equal(t, text.TermHash("statin"), text.TermHash("stbtin"), "the words share a hash")
		_, ok := q.foundIn(2, text.TermHash("stbtin"), []string{"stbtin"}, 0)
		require.False(t, ok, "%s: a word with a term's hash", tc.name)
		_, ok = q.foundIn(2, text.TermHash("muscl"), []string{"muscl"}, 0)
		require.False(t, ok, "%s: another word", tc.name)
		if q.byTerm == nil {
			require.NotPanics(t, func() { q.foundIn(1, text.TermHash("statin"), nil, 7) }, "the word is not read")
		}
	}
}
