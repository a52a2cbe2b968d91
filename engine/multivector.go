package engine

import (
	"fmt"

	"github.com/weaviate/weaviate/entities/models"
	"github.com/weaviate/weaviate/entities/modelsext"
	schemaConfig "github.com/weaviate/weaviate/entities/schema/config"
	"github.com/weaviate/weaviate/entities/search"

	"github.com/diverse-select/diverse-select/config"
	"github.com/diverse-select/diverse-select/selectors"
	"github.com/diverse-select/diverse-select/simcache"
)

// Multi-vector (ColBERT-style) targets: each candidate carries several
// vectors under the named vector, which Weaviate returns in
// search.Result.Vectors[target] as [][]float32 - on the GraphQL routes when
// the plan asks for the named vector, on the rerank route from its batched
// read, exactly as for a single vector. The selection compares the
// candidates by multiVector: "maxsim" (simcache.MultiEngine, the symmetric
// Chamfer similarity) or "mean" (the cosine of simcache.MeanPool vectors,
// the ordinary engine). Every candidate carries its mean-pooled unit vector
// as Candidate.Vector either way, for what reads single vectors (knapsack's
// clusters, facility's distance kernels, the problem's validation).

// targetIsMultiVector reports whether the class's named vector target is a
// multi-vector.
func targetIsMultiVector(class *models.Class, target string) bool {
	if target == "" {
		return false
	}
	vc, ok := modelsext.ClassGetVectorConfig(class, target)
	if !ok {
		return false
	}
	ic, ok := vc.VectorIndexConfig.(schemaConfig.VectorIndexConfig)
	return ok && ic.IsMultiVector()
}

// multiVectorOf is the multi-vector of res under target, checked to be
// non-empty and of one dimension. Its errors are marked
// selectors.ErrInvalidProblem, as vectorOf's.
func multiVectorOf(res search.Result, target string) ([][]float32, error) {
	switch v := res.Vectors[target].(type) {
	case [][]float32:
		if len(v) == 0 {
			break
		}
		for _, x := range v {
			if len(x) != len(v[0]) || len(x) == 0 {
				return nil, invalidData("multi-vector %q of object %s mixes vectors of %d and %d dimensions", target, res.ID, len(v[0]), len(x))
			}
		}
		return v, nil
	case []float32:
		return nil, invalidData("vector %q of object %s is a single vector, but the class declares a multi-vector", target, res.ID)
	}
	return nil, invalidData("object %s has no multi-vector %q; the strategy compares vectors", res.ID, target)
}

// multiVectorShape is the number of vectors of each candidate and their
// dimension (0 for a candidate without a readable multi-vector).
func multiVectorShape(in []search.Result, target string) (counts []int, dim int) {
	counts = make([]int, len(in))
	for i := range in {
		if v, err := multiVectorOf(in[i], target); err == nil {
			counts[i], dim = len(v), len(v[0])
		}
	}
	return counts, dim
}

// multiVectorBytes is the memory the comparison of in's multi-vectors holds
// beyond the strategy's matrices: the packed vectors (maxsim) or the pooled
// ones (mean).
func multiVectorBytes(p *plan, in []search.Result) int64 {
	counts, dim := multiVectorShape(in, p.target)
	if p.eff.MultiVector == config.MultiVectorMean {
		return simcache.PackedBytes(len(in), dim)
	}
	return simcache.MultiPackedBytes(counts, dim)
}

// setMultiVectors gives the problem's candidates their mean-pooled vectors
// and the problem its similarity engine, under the plan's multiVector mode.
// With maxsim the packed vectors count against the matrix cap
// (DIVERSE_SELECT_MAX_MATRIX_MB) with the strategy's N x N matrices: they
// are the similarity's working set, typically tens of vectors per
// candidate.
func (e *Engine) setMultiVectors(p *plan, in []search.Result, prob *selectors.Problem) error {
	sets := make([][][]float32, len(in))
	for i := range in {
		v, err := multiVectorOf(in[i], p.target)
		if err != nil {
			return err
		}
		sets[i] = v
	}
	if p.eff.MultiVector == config.MultiVectorMean {
		pooled := make([][]float32, len(sets))
		for i, s := range sets {
			pooled[i] = simcache.MeanPool(s)
			prob.Candidates[i].Vector = pooled[i]
		}
		if sims, err := simcache.New(pooled); err == nil {
			prob.Similarities = sims // else the problem's validation names the candidate
		}
		return nil
	}
	if limit := e.defaults.MaxMatrixBytes(); limit > 0 {
		counts, total, dim := make([]int, len(sets)), 0, len(sets[0][0])
		for i, s := range sets {
			counts[i] = len(s)
			total += len(s)
		}
		vectors, matrices := simcache.MultiPackedBytes(counts, dim), p.eff.Selector.MatrixBytes(len(in))
		if vectors+matrices > limit {
			return &markedError{mark: selectors.ErrMatrixTooLarge, err: fmt.Errorf("strategy %q on the multi-vector %q needs %s "+
				"for %d candidates (%s for their %d vectors of %d dimensions, %s of N x N matrices), above the module's cap of %s "+
				"(DIVERSE_SELECT_MAX_MATRIX_MB); use fewer candidates, %s: %q (one pooled vector per candidate), "+
				"or raise DIVERSE_SELECT_MAX_MATRIX_MB", p.eff.Strategy, p.target, selectors.MiB(vectors+matrices), len(in),
				selectors.MiB(vectors), total, dim, selectors.MiB(matrices), selectors.MiB(limit), config.KeyMultiVector, config.MultiVectorMean)}
		}
	}
	multi := simcache.NewMulti(sets)
	for i := range prob.Candidates {
		prob.Candidates[i].Vector = multi.Unit(i)
	}
	prob.Similarities = multi
	return nil
}
