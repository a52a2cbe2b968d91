package simcache_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/diverse-select/diverse-select/selectors"
	"github.com/diverse-select/diverse-select/selectors/text"
	"github.com/diverse-select/diverse-select/simcache"
)

// multiSets gives each of n candidates tok vectors of dim components: the
// tokens of one of 20 topics (each topic tok random vectors), perturbed, so
// the pool holds near-copies as a late-interaction retrieval does.
func multiSets(rng *rand.Rand, n, tok, dim int) [][][]float32 {
	topics := make([][][]float32, 20)
	for k := range topics {
		topics[k] = make([][]float32, tok)
		for t := range topics[k] {
			topics[k][t] = make([]float32, dim)
			for j := range topics[k][t] {
				topics[k][t][j] = float32(rng.NormFloat64())
			}
		}
	}
	out := make([][][]float32, n)
	for i := range out {
		base := topics[rng.IntN(len(topics))]
		out[i] = make([][]float32, tok)
		for t := range out[i] {
			out[i][t] = make([]float32, dim)
			for j := range out[i][t] {
				out[i][t][j] = base[t][j] + 0.5*float32(rng.NormFloat64())
			}
		}
	}
	return out
}

// BenchmarkMultiVector is selection on a multi-vector target as the module
// runs it, N = 100 and 500 candidates of 32 vectors of 128 dimensions each
// (K = 10, a budget of 1500 tokens): mode=maxsim packs the vectors into a
// MultiEngine (the symmetric Chamfer similarity), mode=mean pools each
// candidate to one vector for the ordinary engine (pooling included). The
// strategies cover the seam's three reads: rows (mmr, dpp), pair sums and
// rows (adagres), the N x N matrix (coverage, facility). s=matrix is the
// MaxSim matrix alone. engine-B is the memory the engine holds; cpu-ns/op
// the process's CPU time per query (all its threads: on a shared machine it
// leaves out the time other processes held the cores).
func BenchmarkMultiVector(b *testing.B) {
	const tok, dim = 32, 128
	for _, n := range []int{100, 500} {
		rng := rand.New(rand.NewPCG(uint64(n), 32))
		sets := multiSets(rng, n, tok, dim)
		p := randomProblem(rng, problemOpts{n: n, dim: dim, budget: 1500, maxResults: 10, minTokens: 50, maxTokens: 300, texts: true})
		for i := range p.Candidates {
			p.Candidates[i].Vector = simcache.MeanPool(sets[i])
			p.Candidates[i].Terms = text.Terms([]string{}, p.Candidates[i].Text)
		}
		b.Run(fmt.Sprintf("s=matrix/mode=maxsim/N=%d", n), func(b *testing.B) {
			cpu0 := processCPU()
			for b.Loop() {
				e := simcache.NewMulti(sets)
				e.Matrix()
				e.Release()
			}
			b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N), "cpu-ns/op")
		})
		for _, st := range []string{"mmr", "dpp", "adagres", "coverage", "facility"} {
			s, err := selectors.New(st, nil)
			if err != nil {
				b.Fatal(err)
			}
			for _, mode := range []string{"maxsim", "mean"} {
				b.Run(fmt.Sprintf("s=%s/mode=%s/N=%d", st, mode, n), func(b *testing.B) {
					b.ReportAllocs()
					var engineBytes int64
					cpu0 := processCPU()
					for b.Loop() {
						var release func()
						if mode == "maxsim" {
							e := simcache.NewMulti(sets)
							p.Similarities, release = e, e.Release
						} else {
							pooled := make([][]float32, n)
							for i, set := range sets {
								pooled[i] = simcache.MeanPool(set)
							}
							e := must(simcache.New(pooled))
							p.Similarities, release = e, e.Release
						}
						if _, err := s.Run(context.Background(), p); err != nil {
							b.Fatal(err)
						}
						if e, ok := p.Similarities.(interface{ Bytes() int64 }); ok {
							engineBytes = e.Bytes()
						}
						release()
						p.Similarities = nil
					}
					b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N), "cpu-ns/op")
					b.ReportMetric(float64(engineBytes), "engine-B")
				})
			}
		}
	}
}
