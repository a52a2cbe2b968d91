package simcache_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/diverse-select/diverse-select/selectors"
	"github.com/diverse-select/diverse-select/selectors/text"
	"github.com/diverse-select/diverse-select/simcache"
)

// benchGrid is the (N, d) grid of BenchmarkStrategies: N in {100, 1000,
// 2000} x d = 768 (where the speed targets are) by default,
// N in {50, 100, 200, 500, 1000, 2000} x d in {128, 384, 768, 1536} with
// SIMCACHE_BENCH_GRID=full (make bench BENCH_GRID=full).
func benchGrid() (ns, ds []int) {
	if os.Getenv("SIMCACHE_BENCH_GRID") == "full" {
		return []int{50, 100, 200, 500, 1000, 2000}, []int{128, 384, 768, 1536}
	}
	return []int{100, 1000, 2000}, []int{768}
}

// benchStrategies are every registered strategy with its defaults, plus
// knapsack's vector variant.
func benchStrategies() []struct {
	label, name string
	params      map[string]any
} {
	var out []struct {
		label, name string
		params      map[string]any
	}
	for _, name := range selectors.Names() {
		out = append(out, struct {
			label, name string
			params      map[string]any
		}{name, name, nil})
		if name == "knapsack" {
			out = append(out, struct {
				label, name string
				params      map[string]any
			}{"knapsack-clusters", name, map[string]any{"concepts": "clusters"}})
		}
	}
	return out
}

// BenchmarkStrategies is selection only, as the module runs it once the
// search has returned: pack and normalise the candidates' vectors into a
// (pooled) engine, then run the strategy - K = 10, a budget of 1500 tokens,
// token costs 50..300, vectors around 20 centres, English texts from the demo
// corpus with their analysed terms already in the feature cache (warm).
// ns/op, B/op and allocs/op are per query; cpu-ns/op is the CPU time the
// whole process spent per query (every thread: the cores a large matrix is
// split over, and the collector), which other work on a shared machine
// inflates less than the wall clock; engine-B is the memory the
// engine's (pooled, reused) buffers hold for the query: O(N*d) for the
// vectors, plus O(N^2) when the strategy asked for the matrix.
func BenchmarkStrategies(b *testing.B) {
	ns, ds := benchGrid()
	for _, st := range benchStrategies() {
		s, err := selectors.New(st.name, st.params)
		if err != nil {
			b.Fatal(err)
		}
		for _, d := range ds {
			for _, n := range ns {
				p := randomProblem(rand.New(rand.NewPCG(uint64(n), uint64(d))), problemOpts{n: n, dim: d, clusters: 20,
					budget: 1500, maxResults: 10, minTokens: 50, maxTokens: 300, texts: true})
				// As the module builds it: vectors only for the strategies that
				// read them, terms and their hashes (from the feature cache) for
				// those that use them.
				useVectors := s.UsesVectors() || p.DedupThreshold > 0
				vecs := make([][]float32, n)
				for i := range p.Candidates {
					vecs[i] = p.Candidates[i].Vector
					if !useVectors {
						p.Candidates[i].Vector = nil
					}
					if s.UsesTerms() {
						c := &p.Candidates[i]
						c.Terms = text.Terms([]string{}, c.Text)
						c.TermHashes = text.TermHashes(make([]uint32, 0, len(c.Terms)), c.Terms)
					}
				}
				b.Run(fmt.Sprintf("s=%s/N=%d/d=%d", st.label, n, d), func(b *testing.B) {
					b.ReportAllocs()
					var engineBytes int64
					cpu0 := processCPU()
					for b.Loop() {
						var e *simcache.Engine
						if useVectors {
							e = must(simcache.New(vecs))
							p.Similarities = e
						}
						if _, err := s.Run(context.Background(), p); err != nil {
							b.Fatal(err)
						}
						if e != nil {
							engineBytes = e.Bytes()
							e.Release()
						}
						p.Similarities = nil
					}
					b.ReportMetric(float64(engineBytes), "engine-B")
					if cpu := processCPU() - cpu0; cpu > 0 {
						b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
					}
				})
			}
		}
	}
}
