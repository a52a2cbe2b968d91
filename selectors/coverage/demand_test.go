package coverage

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/diverse-select/diverse-select/selectors"
	"github.com/diverse-select/diverse-select/selectors/internal/textprob"
	"github.com/diverse-select/diverse-select/selectors/text"
)

func TestQueryParts(t *testing.T) {
	tests := []struct {
		query string
		want  [][]string
	}{
		{"Which magazine was started first, Arthur's Magazine or First for Women?",
			[][]string{{"first", "magazin", "start"}, {"arthur", "magazin"}, {"first", "women"}}},
		{"Were Scott Derrickson and Ed Wood of the same nationality?",
			[][]string{{"derrickson", "scott"}, {"ed", "nation", "wood"}}},
		{"Arming the police is a good idea", [][]string{{"arm", "good", "idea", "polic"}}},
		{"cats and cats", [][]string{{"cat"}}}, // repeats merged
		{"the and of", nil},                    // no terms
		{"", nil},
	}
	for _, tc := range tests {
		t.Run(tc.query, func(t *testing.T) {
			assert.Equal(t, tc.want, queryParts(tc.query, text.NewAnalyzer()))
		})
	}
}

// TestPartDemandHandComputed: two parts, "Eiffel Tower" and "London
// Bridge"; a chunk covers a part by the share of the part's weight it has.
func TestPartDemandHandComputed(t *testing.T) {
	p := &selectors.Problem{Query: "Eiffel Tower or London Bridge", Candidates: []selectors.Candidate{
		cand(0.5, 1, "the Eiffel Tower in Paris"), // all of part 0
		cand(0.5, 1, "a tower bridge"),            // half of each part by term, less by weight
		cand(0.5, 1, "London Bridge is falling"),  // all of part 1
		cand(0.5, 1, "Eiffel"),
	}}
	has, w, _, ids := queryTerms(p, text.NewAnalyzer(), nil, nil)
	require.Len(t, w, 4)
	pd := newPartDemand(p.Query, text.NewAnalyzer(), ids, w, has, 2)
	require.NotNil(t, pd)
	wE, wT, wL, wB := w[ids["eiffel"]], w[ids["tower"]], w[ids["london"]], w[ids["bridg"]]
	assert.InDelta(t, 1, wE+wT+wL+wB, 1e-12)
	assert.InDeltaSlice(t, []float64{2 * (wE + wT), 2 * (wL + wB)}, pd.weight, 1e-12)
	// Stand-alone gains: 2 * (the part's weight it has).
	assert.InDelta(t, 2*(wE+wT), pd.gain(0, 1), 1e-12)
	assert.InDelta(t, 2*(wT+wB), pd.gain(1, 1), 1e-12)
	assert.InDelta(t, 2*(wL+wB), pd.gain(2, 1), 1e-12)
	assert.InDelta(t, 2*wE, pd.gain(3, 1), 1e-12)
	// After the Eiffel chunk, "tower bridge" gains only its share of part 1,
	// the lone "Eiffel" nothing: part 0 is fully covered.
	pd.add(0, 1)
	assert.InDelta(t, 2*wB, pd.gain(1, 1), 1e-12)
	assert.InDelta(t, 2*(wL+wB), pd.gain(2, 1), 1e-12)
	assert.Zero(t, pd.gain(3, 1))
	pd.reset()
	assert.InDelta(t, 2*wE, pd.gain(3, 1), 1e-12)
	// A gated chunk is credited with its share (termGates): half of the
	// Eiffel chunk covers half of part 0, and the lone "Eiffel" at full
	// credit still adds its share of the rest.
	assert.InDelta(t, (wE + wT), pd.gain(0, 0.5), 1e-12)
	pd.add(0, 0.5)
	assert.InDelta(t, 2*wE-(wE+wT), pd.gain(3, 1), 1e-12)
	pd.reset()

	// One part is query-term coverage over the same terms: no part demand.
	p.Query = "Eiffel Tower"
	has, w, _, ids = queryTerms(p, text.NewAnalyzer(), nil, nil)
	assert.Nil(t, newPartDemand(p.Query, text.NewAnalyzer(), ids, w, has, 2))
	var off *partDemand // nil is off
	assert.Zero(t, off.gain(0, 1))
	off.add(0, 1)
	off.reset()
}

// TestPartDemandInObjective: the default builds the part demand for a
// question with parts, adds it to every gain, and the greedy's gains
// telescope to F with it.
func TestPartDemandInObjective(t *testing.T) {
	p := &selectors.Problem{Query: "Which is older, Eiffel Tower or London Bridge?", Budget: 20, Candidates: []selectors.Candidate{
		cand(0.8, 10, "Eiffel Tower was built in 1889", 1, 0, 0),
		cand(0.8, 10, "A tower by a bridge", 0, 1, 0),
		cand(0.7, 10, "London Bridge opened in 1831", 0, 0, 1),
	}}
	_, o := build(t, nil, p)
	require.NotNil(t, o.parts)
	_, off := build(t, map[string]any{"parts": 0.0}, p)
	require.Nil(t, off.parts)
	for d := range p.Candidates {
		assert.InDelta(t, off.gain(d)+o.parts.gain(d, o.gateOf(d)), o.gain(d), 1e-12)
	}
	items, _, _, err := o.lazyGreedy(t.Context(), p)
	require.NoError(t, err)
	var sum float64
	var sel []int
	for _, it := range items {
		sum += it.Gain
		sel = append(sel, it.Index)
	}
	_, fresh := build(t, nil, p)
	assert.InDelta(t, fresh.value(sel), sum, 1e-9)
	assert.False(t, math.IsNaN(sum))
	assert.ElementsMatch(t, []int{0, 2}, run(t, nil, p).Indices())
}

// BenchmarkPartDemand: the default's cost with and without the part demand
// (warm: a precomputed matrix, as the cache supplies it), on a question of
// three parts.
func BenchmarkPartDemand(b *testing.B) {
	for _, n := range []int{100, 1000} {
		rng := rand.New(rand.NewPCG(1, uint64(n)))
		p := textprob.Random(rng, textprob.Options{N: n, Dim: 384, MaxTokens: 300, MaxWords: 60, Budget: 1500,
			Query: "statin muscle pain, liver risk or cholesterol"})
		p.Sims().Matrix()
		for _, parts := range []float64{0, 1} {
			s, err := selectors.New(Name, map[string]any{"parts": parts})
			if err != nil {
				b.Fatal(err)
			}
			b.Run(fmt.Sprintf("N=%d/parts=%g", n, parts), func(b *testing.B) {
				for b.Loop() {
					if _, err := s.Run(context.Background(), p); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkPartDemandBuild: the part demand's own cost at N = 100 - the
// question split into parts, every candidate's coverage of them, and one
// gain per candidate - without the rest of the strategy.
func BenchmarkPartDemandBuild(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 100))
	p := textprob.Random(rng, textprob.Options{N: 100, Dim: 8, MaxTokens: 300, MaxWords: 60, Budget: 1500,
		Query: "statin muscle pain, liver risk or cholesterol"})
	an := text.NewAnalyzer()
	has, w, _, ids := queryTerms(p, an, nil, nil)
	for b.Loop() {
		pd := newPartDemand(p.Query, an, ids, w, has, 1)
		for d := range has {
			pd.gain(d, 1)
		}
	}
}
