package coverage

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/diverse-select/diverse-select/internal/corpus"
	"github.com/diverse-select/diverse-select/selectors"
	"github.com/diverse-select/diverse-select/selectors/internal/textprob"
	"github.com/diverse-select/diverse-select/selectors/text"
)

// BenchmarkCoverage: selection only, cold (the default similarity engine
// builds the cosine matrix) and warm (a precomputed matrix, as a cache
// supplies it), at d = 384, a budget of 1500 tokens and a query, and warm
// with greedy "density" (the default before "auto") and "both" (the
// second, plain-gain greedy's cost); then warm
// on chunks with a title line that other chunks mention (the second-hop
// demand's links are found and used), with and without the second hop.
func BenchmarkCoverage(b *testing.B) {
	newSel := func(params map[string]any) *selectors.Selector {
		sel, err := selectors.New(Name, params)
		if err != nil {
			b.Fatal(err)
		}
		return sel
	}
	for _, n := range []int{100, 500, 1000, 2000} {
		rng := rand.New(rand.NewPCG(1, uint64(n)))
		p := textprob.Random(rng, textprob.Options{N: n, Dim: 384, MaxTokens: 300, MaxWords: 60, Budget: 1500,
			Query: "statin muscle pain risk"})
		s := newSel(nil)
		b.Run(fmt.Sprintf("N=%d/cold", n), func(b *testing.B) {
			for b.Loop() {
				p.Similarities = nil
				if _, err := s.Run(context.Background(), p); err != nil {
					b.Fatal(err)
				}
			}
		})
		p.Similarities = nil
		p.Sims().Matrix()
		titled := *p
		titled.Candidates = slices.Clone(p.Candidates)
		for i := range titled.Candidates {
			other := strings.Fields(p.Candidates[(i*7+1)%n].Text)
			titled.Candidates[i].Text = strings.Join(other[:min(2, len(other))], " ") + "\n" + p.Candidates[i].Text
		}
		for _, v := range []struct {
			name string
			sel  *selectors.Selector
			p    *selectors.Problem
		}{
			{"warm", s, p},
			{"warm-greedy-density", newSel(map[string]any{"greedy": GreedyDensity}), p},
			{"warm-greedy-both", newSel(map[string]any{"greedy": GreedyBoth}), p},
			{"warm-titled", s, &titled},
			{"warm-titled-hop0", newSel(map[string]any{"hop": 0.0}), &titled},
		} {
			b.Run(fmt.Sprintf("N=%d/%s", n, v.name), func(b *testing.B) {
				for b.Loop() {
					if _, err := v.sel.Run(context.Background(), v.p); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// termsPool is a pool of n chunks as the server's bench corpus has them:
// two or three demo-corpus bodies each (about 100 analysed terms, no title
// line), their terms given as the module's feature cache gives them, with
// their hashes when hashed; vectors of 768 dimensions, the matrix computed
// (warm), a budget of 1500 tokens and K = 10.
func termsPool(n int, hashed bool) *selectors.Problem {
	rng := rand.New(rand.NewPCG(7, uint64(n)))
	p := textprob.Random(rng, textprob.Options{N: n, Dim: 768, MaxTokens: 300, Budget: 1500, MaxResults: 10,
		Query: "What side effects can statins cause, and how are they managed?"})
	chunks := corpus.Chunks()
	for i := range p.Candidates {
		c := &p.Candidates[i]
		bodies := make([]string, 2+rng.IntN(2))
		for j := range bodies {
			bodies[j] = chunks[rng.IntN(len(chunks))].Body
		}
		c.Text = strings.Join(bodies, " ")
		c.Terms = text.Terms([]string{}, c.Text)
		if hashed {
			c.TermHashes = text.TermHashes(make([]uint32, 0, len(c.Terms)), c.Terms)
		}
	}
	p.Sims().Matrix()
	return p
}

// BenchmarkQueryTerms: the query-term pass alone (and the whole selection,
// warm) at N = 1000 on chunks without titles, their terms given, with and
// without their hashes (the module's feature cache gives both).
func BenchmarkQueryTerms(b *testing.B) {
	s, err := selectors.New(Name, nil)
	if err != nil {
		b.Fatal(err)
	}
	for _, hashed := range []bool{false, true} {
		p := termsPool(1000, hashed)
		name := map[bool]string{false: "terms", true: "terms+hashes"}[hashed]
		b.Run("pass/N=1000/"+name, func(b *testing.B) {
			b.ReportAllocs()
			an := text.NewAnalyzer()
			for b.Loop() {
				queryTerms(p, an, nil, nil)
			}
		})
		b.Run("select/N=1000/"+name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := s.Run(context.Background(), p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
