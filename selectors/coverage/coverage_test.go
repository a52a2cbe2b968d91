package coverage

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/diverse-select/diverse-select/internal/corpus"
	"github.com/diverse-select/diverse-select/selectors"
	"github.com/diverse-select/diverse-select/selectors/internal/testprob"
	"github.com/diverse-select/diverse-select/selectors/internal/textprob"
	"github.com/diverse-select/diverse-select/selectors/text"
	_ "github.com/diverse-select/diverse-select/selectors/topk"
)

func run(t *testing.T, params map[string]any, p *selectors.Problem) *selectors.Result {
	return testprob.MustRun(t, Name, params, p)
}

// build returns the objective the strategy with these params would use.
func build(t *testing.T, params map[string]any, p *selectors.Problem) (strategy, *objective) {
	t.Helper()
	d, _ := selectors.Lookup(Name)
	v, err := selectors.ValidateParams(Name, d.Params, params)
	require.NoError(t, err)
	impl, err := d.New(v)
	require.NoError(t, err)
	s := impl.(strategy)
	return s, s.objective(p)
}

// value is F(S) computed from scratch (every candidate a target, demand
// o.w: the relevance to the demand power).
func (o *objective) value(sel []int) float64 {
	var v float64
	for u := 0; u < o.n; u++ {
		var m float32
		for _, d := range sel {
			m = max(m, o.s[d*o.n+u])
		}
		v += o.w[u] * float64(m)
	}
	if o.qw != nil {
		covered := map[int32]bool{}
		for _, d := range sel {
			for _, t := range o.terms[d] {
				covered[t] = true
			}
		}
		for t := range covered {
			v += o.qw[t]
		}
	}
	if o.parts != nil {
		for k, w := range o.parts.weight {
			var m float64
			for _, d := range sel {
				for _, pc := range o.parts.covers(d) {
					if int(pc.part) == k {
						m = max(m, pc.c)
					}
				}
			}
			v += w * m
		}
	}
	// The second-hop demand depends on the order: an item gains it when an
	// earlier one is linked to it.
	for i, u := range sel {
		for _, d := range sel[:i] {
			if o.links != nil && slices.Contains(o.links[d], int32(u)) {
				v += o.hopW
				break
			}
		}
	}
	return v
}

func cand(rel float64, tokens int, text string, v ...float32) selectors.Candidate {
	return selectors.Candidate{Relevance: rel, Tokens: tokens, Text: text, Vector: v}
}

// rels is a pool of 10-token candidates with these relevances.
func rels(r ...float64) []selectors.Candidate {
	c := make([]selectors.Candidate, len(r))
	for i := range r {
		c[i] = cand(r[i], 10, "")
	}
	return c
}

func TestDenseRelevanceAndKbar(t *testing.T) {
	c := []selectors.Candidate{cand(0.9, 10, ""), cand(0.5, 30, ""), cand(0.7, 20, "")}
	assert.InDeltaSlice(t, []float64{1, 0, 0.5}, denseRelevance(c), 1e-12)
	assert.Equal(t, []float64{1, 1}, denseRelevance([]selectors.Candidate{cand(0.3, 1, ""), cand(0.3, 1, "")}))
	tests := []struct {
		name      string
		budget, k int
		want      float64
	}{
		{"no budget: K defaults to N", 0, 0, 3},
		{"no budget: K", 0, 2, 2},
		{"budget over mean tokens", 50, 0, 2.5}, // mean 20
		{"budget capped by K", 50, 2, 2},
		{"at least one", 5, 0, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.InDelta(t, tc.want, kbar(&selectors.Problem{Candidates: c, Budget: tc.budget, MaxResults: tc.k}), 1e-12)
		})
	}
}

// TestKernelCentring checks the centred kernel derived from the cosine
// matrix against centring the unit vectors directly.
func TestKernelCentring(t *testing.T) {
	n, dim := 9, 5
	vecs := anisotropic(rand.New(rand.NewPCG(3, 4)), n, dim, 2)
	vecs[4] = make([]float32, dim) // a zero vector
	sims := selectors.NewDenseSimilarities(vecs)
	all := topTargets(make([]float64, n), 0)
	k, ld := kernel(sims, all, true, 1)
	unit := make([][]float64, n)
	mu := make([]float64, dim)
	for i := range n {
		unit[i] = make([]float64, dim)
		for j, x := range sims.Unit(i) {
			unit[i][j] = float64(x)
			mu[j] += float64(x) / float64(n)
		}
	}
	for i := range n {
		for j := range n {
			want := 0.0
			if i == j {
				want = 1 // a chunk covers itself
			} else if i != 4 && j != 4 {
				var dot, ni, nj float64
				for d := range dim {
					a, b := unit[i][d]-mu[d], unit[j][d]-mu[d]
					dot, ni, nj = dot+a*b, ni+a*a, nj+b*b
				}
				want = max(0, dot/math.Sqrt(ni*nj))
			}
			assert.InDelta(t, want, float64(k[i*ld+j]), 1e-5, "k(%d,%d)", i, j)
		}
	}
	// Without centring: the clipped cosine.
	raw, ld := kernel(sims, all, false, 1)
	for i := range n {
		for j := range n {
			want := max(0, sims.At(i, j))
			if i == j {
				want = 1
			}
			assert.InDelta(t, want, raw[i*ld+j], 1e-6, "raw(%d,%d)", i, j)
		}
	}
}

// TestPrefersNewInformation: two near-copies are the most relevant; under
// K = 2 the second pick is the distinct, slightly less relevant candidate,
// where top-k would take the copy.
func TestPrefersNewInformation(t *testing.T) {
	p := &selectors.Problem{MaxResults: 2, Candidates: []selectors.Candidate{
		cand(0.90, 10, "", 1, 0, 0),
		cand(0.89, 10, "", 0.99, 0.1, 0),
		cand(0.85, 10, "", 0, 0, 1),
		cand(0.60, 10, "", 0, 1, 0.2),
	}}
	res := run(t, nil, p)
	assert.Equal(t, []int{0, 2}, res.Indices())
	topk, err := selectors.New("topk", nil)
	require.NoError(t, err)
	tr, err := topk.Run(context.Background(), p)
	require.NoError(t, err)
	assert.Equal(t, []int{0, 1}, tr.Indices())
}

// TestCoversTheQuery: a multi-part question; the second part is named only
// by a less relevant, lexically matching candidate.
func TestCoversTheQuery(t *testing.T) {
	p := &selectors.Problem{Budget: 20, Query: "Which magazine started first, Arthur's Magazine or First for Women?",
		Candidates: []selectors.Candidate{
			cand(0.80, 10, "Arthur's Magazine was an American literary periodical", 1, 0.2, 0),
			cand(0.79, 10, "Godey's Lady's Book was an American periodical", 0.9, 0.3, 0.1),
			cand(0.60, 10, "First for Women is a woman's magazine published by Bauer", 0.2, 1, 0),
		}}
	assert.ElementsMatch(t, []int{0, 2}, run(t, nil, p).Indices())
}

// bridgePool is a bridge question's pool: Ada Quill's chunk names
// Norbury, whose chunk answers the question.
func bridgePool() *selectors.Problem {
	return &selectors.Problem{Budget: 20, Query: "Which river flows through the birthplace of Ada Quill?",
		Candidates: []selectors.Candidate{
			cand(0.9, 10, "Ada Quill\nAda Quill was a poet born in Norbury.", 1, 0, 0),
			cand(0.7, 10, "Quill Prize\nThe Quill Prize honours a poet born each year.", 0.5, 0.8, 0),
			cand(0.5, 10, "Norbury (town)\nNorbury lies on the Teme.", 0, 0.3, 1),
		}}
}

// TestSecondHop: a bridge question names its first hop; the paragraph
// that answers it is about an entity only the first hop's paragraph names.
// With the second-hop demand the bridge is selected over a distractor that
// repeats the question's words; without it, the distractor.
func TestSecondHop(t *testing.T) {
	p := bridgePool()
	assert.Equal(t, []int{0, 2}, run(t, nil, p).Indices())
	assert.Equal(t, []int{0, 1}, run(t, map[string]any{"hop": 0.0}, p).Indices())
	_, o := build(t, nil, p)
	assert.Equal(t, [][]int32{{2}, nil, {0}}, o.links, "Norbury's title, without its qualifier, is named by Ada Quill's text")
}

func TestLazyEqualsNaiveGreedy(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := range 1000 {
		p := randomProblem(rng)
		params := randomParams(rng)
		params["fill"] = false
		params["greedy"] = GreedyDensity // the lazy greedy alone, no second one
		_, o := build(t, params, p)
		want := naiveGreedy(p, o)
		o.reset()
		got := run(t, params, p)
		require.Equal(t, want, got.Indices(), "trial %d params %v", trial, params)
		var sum float64
		for _, it := range got.Items {
			sum += it.Gain
		}
		assert.InDelta(t, o.value(want), sum, 1e-9*max(1, sum), "gains telescope to F(S)")
		assert.InDelta(t, o.value(want), got.Objective, 1e-9*max(1, sum))
	}
}

// naiveGreedy evaluates every candidate's gain each round on a state
// rebuilt from scratch (no stale bounds), then applies the best-single
// guard under a budget. It differs from the strategy only in laziness; the
// gain formula is checked against F from scratch by the telescoping test.
func naiveGreedy(p *selectors.Problem, o *objective) []int {
	c := p.Candidates
	sel := []int{}
	in := make([]bool, len(c))
	used := 0
	var total float64
	o.reset()
	single := make([]float64, len(c))
	for d := range c {
		single[d] = o.gain(d)
	}
	guard := selectors.NewCopyGuard(p)
	state := func() {
		o.reset()
		for _, d := range sel {
			o.add(d)
		}
	}
	for len(sel) < p.K() {
		state()
		best, bestKey, bestG := -1, 0.0, 0.0
		for d := range c {
			if in[d] || !p.Fits(used, c[d].Tokens) {
				continue
			}
			g := o.gain(d)
			key := g
			if p.Budget > 0 {
				key = g / float64(c[d].Tokens)
			}
			if best < 0 || key > bestKey || (key == bestKey && selectors.Better(c, d, best)) {
				best, bestKey, bestG = d, key, g
			}
		}
		if best < 0 || !(bestG > 0) {
			break
		}
		in[best] = true
		if bestG < o.minNovelty*single[best] || guard.CopyOf(sel, best) {
			continue // redundant: dropped
		}
		sel = append(sel, best)
		used += c[best].Tokens
		total += bestG
	}
	if p.Budget > 0 {
		o.reset()
		single, singleF := -1, 0.0
		for d := range c {
			if f := o.gain(d); p.Fits(0, c[d].Tokens) && (single < 0 || f > singleF || (f == singleF && selectors.Better(c, d, single))) {
				single, singleF = d, f
			}
		}
		if single >= 0 && singleF > total {
			return []int{single}
		}
	}
	return sel
}

// TestApproximationGuarantees compares with the brute-force optimum on
// small pools: greedy >= (1-1/e) OPT under K alone, density greedy with the
// guard >= (1-1/e)/2 OPT under a budget. The guarantee is the objective's
// alone: the redundancy rule is off (minNovelty 0) and pools holding a
// near-copy pair are skipped (the near-copy rule is a constraint outside F).
func TestApproximationGuarantees(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for trial := range 200 {
		p := randomProblem(rng)
		if len(p.Candidates) > 10 {
			p.Candidates = p.Candidates[:10]
		}
		if hasNearCopies(p) {
			continue
		}
		params := randomParams(rng)
		params["fill"] = false
		params["minNovelty"] = 0.0
		params["hop"] = 0.0 // the second-hop demand is not submodular
		params["greedy"] = []string{GreedyAuto, GreedyDensity, GreedyBoth}[trial%3]
		_, o := build(t, params, p)
		var opt float64
		testprob.Subsets(p, func(idx []int) { opt = max(opt, o.value(idx)) })
		got := o.value(run(t, params, p).Indices())
		ratio := 1 - 1/math.E
		if p.Budget > 0 {
			ratio /= 2
		}
		require.GreaterOrEqual(t, got, ratio*opt-1e-9, "trial %d: F=%v OPT=%v", trial, got, opt)
	}
}

// TestGreedyBoth: greedy "both" keeps the plain-gain greedy's selection
// only when its F is larger. In the pool a long chunk (100 tokens) is the
// most relevant and four short ones (20 tokens each) gain more per token:
// the density greedy spends the budget on the short ones, and a budget
// with room for the long one and one short one lets the plain gain's pair
// beat both them and the best single chunk.
func TestGreedyBoth(t *testing.T) {
	pool := func() []selectors.Candidate {
		return []selectors.Candidate{
			cand(1, 100, "", 1, 0, 0, 0, 0, 0),
			cand(0.3, 20, "", 0, 1, 0, 0, 0, 0), cand(0.3, 20, "", 0, 0, 1, 0, 0, 0),
			cand(0.3, 20, "", 0, 0, 0, 1, 0, 0), cand(0.3, 20, "", 0, 0, 0, 0, 1, 0),
			cand(0, 10, "", 0, 0, 0, 0, 0, 1),
		}
	}
	for _, tc := range []struct {
		name   string
		budget int
		greedy string
		want   []int
		plain  bool
	}{
		{"density: the short chunks", 120, GreedyDensity, []int{1, 2, 3, 4}, false},
		{"both: the long chunk and a short one", 120, GreedyBoth, []int{0, 1}, true},
		// With room for the long chunk and every short one both greedies
		// take all five, and the density greedy's set is kept.
		{"both: the same set", 180, GreedyBoth, []int{1, 2, 3, 4, 0}, false},
		// The default runs the plain gain only where the density greedy
		// left the long, most relevant chunk out.
		{"auto: the long chunk left out, as both", 120, GreedyAuto, []int{0, 1}, true},
		{"auto: the long chunk taken, as density", 180, GreedyAuto, []int{1, 2, 3, 4, 0}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &selectors.Problem{Budget: tc.budget, Candidates: pool()}
			params := map[string]any{"greedy": tc.greedy, "center": false}
			res := run(t, params, p)
			assert.Equal(t, tc.want, res.Indices())
			assert.Equal(t, tc.plain, res.Stats["plainGain"] == 1)
			_, o := build(t, params, p)
			assert.InDelta(t, o.value(res.Indices()), res.Objective, 1e-9)
		})
	}
}

// TestPassedOverLong: the default's trigger for the plain-gain greedy - the
// most relevant candidate with a first-round gain (NaN when it does not fit
// the budget alone or was shown on an earlier page) is left out of the
// density greedy's items, and it is at least longChunk of the budget.
func TestPassedOverLong(t *testing.T) {
	pool := []selectors.Candidate{{Relevance: 0.9, Tokens: 300}, {Relevance: 0.8, Tokens: 40},
		{Relevance: 0.7, Tokens: 15}, {Relevance: 0.6, Tokens: 30}}
	all, noTop, none := []float64{1, 1, 1, 1}, []float64{math.NaN(), 1, 1, 1}, []float64{math.NaN(), math.NaN(), math.NaN(), math.NaN()}
	for _, tc := range []struct {
		name   string
		budget int
		first  []float64
		items  []int
		want   bool
	}{
		{"the long top chunk left out", 400, all, []int{2, 3}, true},
		{"the top chunk taken", 400, all, []int{0, 2}, false},
		{"the top chunk under a fifth of the budget", 1600, all, []int{2, 3}, false},
		{"exactly a fifth", 1500, all, []int{2, 3}, true},
		{"the top chunk does not fit: the next one", 150, noTop, []int{2, 3}, true},
		{"the top chunk shown on an earlier page: the next one", 200, noTop, []int{2, 3}, true},
		{"the next one taken", 200, noTop, []int{1}, false},
		{"nothing fits", 10, none, nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			items := make([]selectors.Item, len(tc.items))
			for i, d := range tc.items {
				items[i] = selectors.Item{Index: d}
			}
			assert.Equal(t, tc.want, passedOverLong(pool, tc.budget, tc.first, items))
		})
	}
}

// TestFill: with fill on, no fitting candidate is left out while K allows
// unless it is redundant (a near-copy of a selected item, or a gain below
// minNovelty of its stand-alone value), and the fill only adds to the
// greedy selection (without the price, which fill turns off, the greedy
// is the default's).
func TestFill(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	fill := map[string]any{"fill": true}
	for trial := range 200 {
		p := randomProblem(rng)
		with := run(t, fill, p)
		filled := int(with.Stats["filled"])
		if !tightBudget(kbar(p), p) {
			without := run(t, nil, p)
			require.Equal(t, without.Indices(), with.Indices()[:len(with.Items)-filled], "trial %d", trial)
		}
		if len(with.Items) == p.K() {
			require.NotEqual(t, selectors.StopPrice, with.Stop, "trial %d", trial)
			continue
		}
		in := map[int]bool{}
		for _, i := range with.Indices() {
			in[i] = true
		}
		_, o := build(t, fill, p)
		guard := selectors.NewCopyGuard(p)
		for d, c := range p.Candidates {
			if in[d] || !p.Fits(with.TokensUsed, c.Tokens) {
				continue
			}
			o.reset()
			single := o.gain(d)
			for _, i := range with.Indices() {
				o.add(i)
			}
			redundant := o.gain(d) < DefaultMinNovelty*single || guard.CopyOf(with.Indices(), d)
			require.True(t, redundant, "trial %d: candidate %d still fits and is not redundant", trial, d)
		}
	}
}

func TestStatsAndExplanation(t *testing.T) {
	p := &selectors.Problem{Budget: 30, Query: "statin liver",
		Candidates: []selectors.Candidate{
			cand(0.9, 10, "statin liver", 1, 0), cand(0.8, 10, "statin", 0.9, 0.1), cand(0.1, 10, "other", 0, 1),
		}}
	res := run(t, nil, p)
	assert.NotContains(t, res.Stats, "filled")
	res = run(t, map[string]any{"fill": true}, p)
	assert.Equal(t, 2.0, res.Stats["queryTerms"])
	assert.InDelta(t, 3.0, res.Stats["kappa"], 1e-12) // 30 / mean 10
	assert.Contains(t, res.Stats, "filled")
	for _, it := range res.Items {
		assert.GreaterOrEqual(t, it.Redundancy, 0.0)
		assert.Equal(t, p.Candidates[it.Index].Relevance, it.Relevance)
	}
}

func TestPoolCap(t *testing.T) {
	p := &selectors.Problem{Candidates: make([]selectors.Candidate, MaxPool+1)}
	for i := range p.Candidates {
		p.Candidates[i] = cand(0.5, 1, "", 1)
	}
	s, err := selectors.New(Name, nil)
	require.NoError(t, err)
	_, err = s.Run(context.Background(), p)
	require.ErrorIs(t, err, selectors.ErrInvalidProblem)
}

func TestProperties(t *testing.T) {
	textprob.CheckProperties(t, Name, nil, 6, 0)
	textprob.CheckProperties(t, Name, map[string]any{"center": false, "fill": false, "lexicalWeight": 0.0}, 4, 0)
	textprob.CheckProperties(t, Name, map[string]any{"similarityPower": 1.0, "queryCoverage": 0.0}, 3, 0)
}

func FuzzCoverage(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{0, 5, 2, 3, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10})
	f.Add([]byte{1, 9, 3, 0, 2, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xf8, 0x7f, 0, 0, 0})
	f.Add([]byte{6, 3, 1, 1, 1, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5})
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := textprob.Fuzz(Name, nil, data); err != nil {
			t.Fatal(err)
		}
	})
}

func randomParams(rng *rand.Rand) map[string]any {
	return map[string]any{
		"lexicalWeight":   []float64{0, 0.5, 1}[rng.IntN(3)],
		"similarityPower": []float64{1, 2, 4}[rng.IntN(3)],
		"queryCoverage":   []float64{0, 1, 3}[rng.IntN(3)],
		"center":          rng.IntN(2) == 0,
		"minNovelty":      []float64{0, 0.1, 0.3}[rng.IntN(3)],
		"hop":             []float64{0, 1, 3}[rng.IntN(3)],
		"fill":            rng.IntN(2) == 0,
	}
}

// hasNearCopies reports whether two candidates of p are near-copies.
func hasNearCopies(p *selectors.Problem) bool {
	g := selectors.NewCopyGuard(p)
	for d := range p.Candidates {
		all := make([]int, d)
		for i := range all {
			all[i] = i
		}
		if g.CopyOf(all, d) {
			return true
		}
	}
	return false
}

func randomProblem(rng *rand.Rand) *selectors.Problem {
	o := textprob.Options{N: 1 + rng.IntN(14), Dim: 2 + rng.IntN(5), MaxTokens: 40}
	if rng.IntN(2) == 0 {
		o.Budget = 20 + rng.IntN(120)
	}
	if rng.IntN(2) == 0 {
		o.MaxResults = 1 + rng.IntN(5)
	}
	if rng.IntN(4) != 0 {
		o.Query = "statin liver risk with heart dose"
	}
	p := textprob.Random(rng, o)
	if rng.IntN(3) == 0 { // near-duplicates, as retrieval pools have
		for i := 1; i < len(p.Candidates); i += 2 {
			copy(p.Candidates[i].Vector, p.Candidates[i-1].Vector)
			p.Candidates[i].Vector[0] += 0.01
		}
	}
	if rng.IntN(2) == 0 { // titles that other candidates mention: second-hop links
		c := p.Candidates
		for i := range c {
			if w := strings.Fields(c[(i+1)%len(c)].Text); len(w) > 0 && rng.IntN(2) == 0 {
				c[i].Text = w[rng.IntN(len(w))] + "\n" + c[i].Text
			}
		}
	}
	return p
}

// TestKernelTargets: the kernel against part of the pool is the whole
// pool's kernel at those columns - the centring (a rank-one correction from
// the row means over the whole pool) does not depend on which targets are
// computed - and topTargets picks the most relevant, ties to the lower index.
func TestKernelTargets(t *testing.T) {
	n, dim := 23, 7
	vecs := anisotropic(rand.New(rand.NewPCG(5, 6)), n, dim, 1)
	vecs[3] = make([]float32, dim) // a zero vector
	sims := selectors.NewDenseSimilarities(vecs)
	rho := make([]float64, n)
	for i := range rho {
		rho[i] = float64(i%5) / 4
	}
	targets := topTargets(rho, 9)
	require.Equal(t, []int{2, 3, 4, 8, 9, 13, 14, 18, 19}, targets, "the 9 most relevant, ascending")
	for _, power := range []float64{1, 2} {
		all, ldAll := kernel(sims, topTargets(rho, 0), true, power)
		part, ld := kernel(sims, targets, true, power)
		for i := range n {
			for c, j := range targets {
				assert.InDelta(t, all[i*ldAll+j], part[i*ld+c], 1e-5, "power %v: k(%d,%d)", power, i, j)
			}
		}
	}
}

// anisotropic returns n Gaussian vectors sharing the offset in every
// component (the common direction sentence embeddings have).
func anisotropic(rng *rand.Rand, n, dim int, offset float64) [][]float32 {
	vecs := make([][]float32, n)
	for i := range vecs {
		vecs[i] = make([]float32, dim)
		for j := range vecs[i] {
			vecs[i][j] = float32(rng.NormFloat64() + offset)
		}
	}
	return vecs
}

// TestTopTargetsTies: the targets found from the limit-th largest weight
// are those of sorting the candidates (weight descending, ties to the lower
// index), with many ties and with weights that are not numbers.
func TestTopTargetsTies(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for range 2000 {
		n := 1 + rng.IntN(60)
		rho := make([]float64, n)
		levels := 1 + rng.IntN(6)
		for i := range rho {
			rho[i] = float64(rng.IntN(levels)) / float64(levels)
			if rng.IntN(40) == 0 {
				rho[i] = math.NaN()
			}
		}
		limit := rng.IntN(n + 2)
		want := topTargetsSorted(rho, min(limit, n))
		if limit <= 0 || limit >= n {
			want = topTargets(rho, 0)
		}
		require.Equal(t, want, topTargets(rho, limit), "rho=%v limit=%d", rho, limit)
	}
}

// TestPooledLinksReuse: the title links' pooled buffers carry nothing from
// one selection to the next - pools of different sizes and titles, run in
// turn and again, select what each selects alone - and a released buffer
// holds no reference to the query's texts or terms.
func TestPooledLinksReuse(t *testing.T) {
	var pools []*selectors.Problem
	for k, n := range []int{40, 300, 7, 120} {
		p := textprob.Random(rand.New(rand.NewPCG(uint64(k), 9)), textprob.Options{N: n, Dim: 24, MaxTokens: 120,
			MaxWords: 40, Budget: 600, Query: "statin muscle pain risk"})
		for i := range p.Candidates { // a title line naming another chunk's words
			other := strings.Fields(p.Candidates[(i*7+1)%n].Text)
			p.Candidates[i].Text = strings.Join(other[:min(2, len(other))], " ") + "\n" + p.Candidates[i].Text
		}
		pools = append(pools, p)
	}
	s, err := selectors.New(Name, nil)
	require.NoError(t, err)
	alone := make([][]int, len(pools))
	for i, p := range pools {
		res, err := s.Run(context.Background(), p)
		require.NoError(t, err)
		alone[i] = res.Indices()
	}
	for range 3 {
		for i, p := range pools {
			res, err := s.Run(context.Background(), p)
			require.NoError(t, err)
			require.Equal(t, alone[i], res.Indices(), "pool %d", i)
		}
	}
	p := pools[0]
	all := analysed(p.Candidates, text.NewAnalyzer())
	b := linkPool.Get().(*linkBuffers)
	b.hashes.compute(p.Candidates, all)
	require.NotNil(t, titleLinks(b, p.Candidates, text.NewAnalyzer(), all, p.Query), "the pool has title links")
	b.release()
	require.Empty(t, b.byHead)
	for _, x := range b.titles[:cap(b.titles)] {
		require.Nil(t, x)
	}
	for _, x := range b.index.words[:cap(b.index.words)] {
		require.Empty(t, x)
	}
	for _, x := range b.index.slots[:cap(b.index.slots)] {
		require.Empty(t, x.word)
	}
	for _, x := range b.hashes.per[:cap(b.hashes.per)] {
		require.Nil(t, x)
	}
}

// TestTermHashesSelectIdentically: on 360 problems (pools of 1 to 600
// chunks of random words, of demo-corpus chunks with their title lines, or
// of their bodies alone; demo queries and long ones; the default and the second hop,
// query coverage, lexical weight and part demand turned off in turn), the
// candidates with their Terms and TermHashes (and whether each text is one
// line) select exactly what they select with their Terms alone and with
// their text alone: the same items, gains, objective and stats.
func TestTermHashesSelectIdentically(t *testing.T) {
	chunks := corpus.Chunks()
	queries := corpus.Queries()
	variants := []map[string]any{nil, {"hop": 0.0}, {"queryCoverage": 0.0}, {"lexicalWeight": 0.0}, {"parts": 0.0}}
	require.Greater(t, len(text.Terms(nil, strings.Join(textprob.Words, " "))), maxScannedTerms)
	rng := rand.New(rand.NewPCG(17, 18))
	withQueryTerms, withLinks := 0, 0 // trials where the hashes mattered
	for trial := range 360 {
		n := []int{1, 3, 12, 40, 100, 300, 600}[rng.IntN(7)]
		if trial%12 == 0 {
			n = 0
		}
		p := textprob.Random(rng, textprob.Options{N: n, Dim: 16, MaxTokens: 200, MaxWords: 40,
			Budget: 300 + rng.IntN(1200), MaxResults: rng.IntN(12), Query: queries[rng.IntN(len(queries))].Text})
		kind := trial % 3
		switch kind {
		case 0:
			p.Query = "statin side effects of the liver and muscle pain"
			if trial%2 == 0 { // more terms than the query index scans
				p.Query = strings.Join(textprob.Words, " ")
			}
		default:
			for i := range p.Candidates {
				ch := chunks[rng.IntN(len(chunks))]
				if p.Candidates[i].Text = ch.Body; kind == 1 {
					p.Candidates[i].Text = ch.Text()
				}
			}
		}
		params := variants[trial/3%len(variants)]
		plain := run(t, params, p)
		withTerms := *p
		withTerms.Candidates = slices.Clone(p.Candidates)
		for i := range withTerms.Candidates {
			withTerms.Candidates[i].Terms = text.Terms([]string{}, p.Candidates[i].Text)
		}
		withHashes := withTerms
		withHashes.Candidates = slices.Clone(withTerms.Candidates)
		for i := range withHashes.Candidates {
			c := &withHashes.Candidates[i]
			c.TermHashes = text.TermHashes(make([]uint32, 0, len(c.Terms)), c.Terms)
			c.SingleLine = selectors.SingleLine(c.Text) // as the module's feature cache gives it
		}
		for name, got := range map[string]*selectors.Result{
			"terms": run(t, params, &withTerms), "terms+hashes": run(t, params, &withHashes)} {
			require.Equal(t, plain.Items, got.Items, "trial %d (%s): %s", trial, name, params)
			require.Equal(t, plain.Objective, got.Objective, "trial %d (%s)", trial, name)
			require.Equal(t, plain.Stats, got.Stats, "trial %d (%s)", trial, name)
		}
		if plain.Stats["queryTerms"] > 0 {
			withQueryTerms++
		}
		_, o := build(t, params, &withHashes)
		if o.links != nil {
			withLinks++
		}
		o.release()
	}
	assert.Greater(t, withQueryTerms, 200)
	assert.Greater(t, withLinks, 20)
	t.Logf("%d trials with query terms in the pool, %d with title links", withQueryTerms, withLinks)
}

// TestTermHashesAreRead: the query-term pass and the title links read the
// given hashes (hashes of other words make the filter turn the pool's terms
// away), and when hashes are not given they hash the terms themselves.
func TestTermHashesAreRead(t *testing.T) {
	p := bridgePool()
	for i := range p.Candidates {
		p.Candidates[i].Terms = text.Terms([]string{}, p.Candidates[i].Text)
	}
	other := func(c selectors.Candidate) []uint32 {
		h := make([]uint32, len(c.Terms))
		for j := range h {
			h[j] = text.TermHash("zzzzzzzz")
		}
		return h
	}
	right := func(c selectors.Candidate) []uint32 { return text.TermHashes(nil, c.Terms) }
	cases := []struct {
		name       string
		hashes     func(selectors.Candidate) []uint32
		queryTerms int
		linksOfAda []int32
	}{
		{"not given", func(selectors.Candidate) []uint32 { return nil }, 2, []int32{2}},
		{"given", right, 2, []int32{2}},
		{"of other words", other, 0, nil},
	}
	for _, tc := range cases {
		q := *p
		q.Candidates = slices.Clone(p.Candidates)
		for i := range q.Candidates {
			q.Candidates[i].TermHashes = tc.hashes(q.Candidates[i])
		}
		_, o := build(t, nil, &q)
		assert.Equal(t, tc.queryTerms, o.queryTerms, tc.name)
		var ada []int32
		if o.links != nil {
			ada = o.links[0]
		}
		assert.Equal(t, tc.linksOfAda, ada, tc.name)
		o.release()
	}
}

// TestSingleLineIsRead: a candidate given as one line has no title line,
// whatever its text: the second hop finds no link through it.
func TestSingleLineIsRead(t *testing.T) {
	p := bridgePool()
	_, o := build(t, nil, p)
	require.NotNil(t, o.links, "the bridge pool's titles link")
	o.release()
	q := *p
	q.Candidates = slices.Clone(p.Candidates)
	for i := range q.Candidates {
		q.Candidates[i].SingleLine = true
	}
	_, o = build(t, nil, &q)
	assert.Nil(t, o.links)
	o.release()
}
