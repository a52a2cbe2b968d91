package knapsack

import (
	"context"
	"fmt"
	"math"

	"github.com/diverse-select/diverse-select/selectors"
	"github.com/diverse-select/diverse-select/selectors/text"
)

// instance is a coverage problem: candidate d covers the universe concepts
// ids[off[d]:off[d+1]] (dense ids 0..len(w)-1, distinct within d).
type instance struct {
	c       []selectors.Candidate
	off     []int32
	ids     []int32
	w       []float64
	budget  int
	k       int
	density bool // rank by gain/t_d (a budget is set) rather than by gain
	// guard keeps near-copies of a selected item out (selectors.CopyGuard).
	guard *selectors.CopyGuard
}

func (in *instance) concepts(d int) []int32 { return in.ids[in.off[d]:in.off[d+1]] }

// build extracts the concepts of every candidate, restricts them to the
// universe of the top-pool candidates by relevance and weighs them.
func build(ctx context.Context, p *selectors.Problem, kind string, pool int) (*instance, map[string]float64, error) {
	n := len(p.Candidates)
	stats := map[string]float64{}
	var off, raw []int32
	var err error
	if kind == "clusters" {
		off, raw, err = clusterConcepts(p, stats)
	} else {
		off, raw, err = textConcepts(ctx, p, kind)
	}
	if err != nil {
		return nil, nil, err
	}
	// Universe: concepts of the top-pool candidates, renumbered densely in
	// order of first appearance (deterministic).
	dense := map[int32]int32{}
	for _, d := range selectors.ByRelevance(p.Candidates)[:min(pool, n)] {
		for _, u := range raw[off[d]:off[d+1]] {
			if _, ok := dense[u]; !ok {
				dense[u] = int32(len(dense))
			}
		}
	}
	in := &instance{guard: selectors.NewCopyGuard(p), c: p.Candidates, off: make([]int32, n+1), ids: raw[:0], w: make([]float64, len(dense)),
		budget: p.Budget, k: p.K(), density: p.Budget > 0}
	// Filter in place: the write position never passes the read position.
	for d := 0; d < n; d++ {
		start := len(in.ids)
		for _, u := range raw[off[d]:off[d+1]] {
			if id, ok := dense[u]; ok {
				in.ids = append(in.ids, id)
			}
		}
		r := max(0, p.Candidates[d].Relevance)
		for _, u := range in.ids[start:] {
			in.w[u] = math.Max(in.w[u], r)
		}
		in.off[d+1] = int32(len(in.ids))
	}
	stats["universe"] = float64(len(dense))
	return in, stats, nil
}

// textConcepts returns each candidate's set of term (and, for "ngrams",
// bigram) ids in CSR form.
func textConcepts(ctx context.Context, p *selectors.Problem, kind string) (off, ids []int32, err error) {
	bytes := 0
	for i := range p.Candidates {
		bytes += len(p.Candidates[i].Text)
		for _, t := range p.Candidates[i].Terms {
			bytes += len(t) + 1
		}
	}
	if bytes == 0 {
		return nil, nil, fmt.Errorf("%w: knapsack concepts=%s needs candidate texts, and none of the %d candidates has one (check textProperty)",
			selectors.ErrInvalidProblem, kind, len(p.Candidates))
	}
	maxN := 1
	if kind == "ngrams" {
		maxN = 2
	}
	an, dict := text.NewAnalyzer(), text.NewDict(text.WordHint(bytes), maxN)
	off = make([]int32, len(p.Candidates)+1)
	var terms []int32 // reused scratch
	for d := range p.Candidates {
		if d%64 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, nil, err
			}
		}
		if c := &p.Candidates[d]; c.Terms != nil {
			terms = dict.TermIDs(terms[:0], c.Terms)
		} else {
			terms = an.TermIDs(terms[:0], dict, c.Text)
		}
		ids = dict.NGrams(ids, terms, maxN)
		off[d+1] = int32(len(ids))
	}
	return off, ids, nil
}

// clusterConcepts gives each candidate its k-means cluster as its one concept.
func clusterConcepts(p *selectors.Problem, stats map[string]float64) (off, ids []int32, err error) {
	n := len(p.Candidates)
	vecs := make([][]float32, n)
	for i, c := range p.Candidates {
		if c.Vector == nil {
			return nil, nil, fmt.Errorf("%w: knapsack concepts=clusters needs a vector for every candidate; candidate %d has none",
				selectors.ErrInvalidProblem, i)
		}
		vecs[i] = c.Vector
	}
	m := min(n, max(2, min(32, int(math.Round(math.Sqrt(float64(n)))))))
	// The problem's engine when it can project (simcache's SIMD one in the
	// module), else a dense one of our own.
	proj, ok := p.Sims().(selectors.Projector)
	if !ok {
		proj = selectors.NewDenseSimilarities(vecs)
	}
	labels := kmeans(proj, n, len(vecs[0]), m)
	off = make([]int32, n+1)
	ids = make([]int32, n)
	for i, l := range labels {
		ids[i] = int32(l)
		off[i+1] = int32(i + 1)
	}
	stats["clusters"] = float64(m)
	return off, ids, nil
}
