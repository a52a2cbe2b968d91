package simcache

import (
	"context"
	"fmt"
	"testing"

	"github.com/go-openapi/strfmt"

	"github.com/diverse-select/diverse-select/internal/corpus"
	"github.com/diverse-select/diverse-select/selectors"
	_ "github.com/diverse-select/diverse-select/selectors/all"
	"github.com/diverse-select/diverse-select/selectors/text"
	"github.com/diverse-select/diverse-select/selectors/tokens"
)

// demoTexts are the demo corpus's English chunks (title and body).
func demoTexts() []string {
	var out []string
	for _, c := range corpus.Chunks() {
		out = append(out, c.Text())
	}
	return out
}

func uuidOf(i int) strfmt.UUID {
	return strfmt.UUID(fmt.Sprintf("00000000-0000-4000-8000-%012d", i))
}

// BenchmarkFeatureCost is the per-object cost of each text feature next to a
// cache hit, on real English chunks (ns/op is per chunk): what decides what
// FeatureCache holds.
func BenchmarkFeatureCost(b *testing.B) {
	texts := demoTexts()
	for _, name := range tokens.Names() {
		c, err := tokens.New(name)
		if err != nil {
			b.Fatal(err)
		}
		b.Run("tokens="+name, func(b *testing.B) {
			i := 0
			for b.Loop() {
				c.Count(texts[i%len(texts)])
				i++
			}
		})
	}
	b.Run("terms", func(b *testing.B) {
		// A fresh analyzer per 100 chunks, as one query's pool gets.
		var an *text.Analyzer
		var dst []string
		i := 0
		for b.Loop() {
			if i%100 == 0 {
				an = text.NewAnalyzer()
			}
			dst = an.Terms(dst[:0], texts[i%len(texts)])
			i++
		}
	})
	fc := NewFeatureCache(64 << 20)
	an := text.NewAnalyzer()
	for i, t := range texts {
		fc.Put(FeatureKey{Class: "Chunk", ID: uuidOf(i), Updated: 1, Spec: "body|cl100k_base"},
			&Features{Tokens: 100, Terms: an.Terms([]string{}, t)})
	}
	b.Run("cache-hit", func(b *testing.B) {
		i := 0
		for b.Loop() {
			if _, ok := fc.Get(FeatureKey{Class: "Chunk", ID: uuidOf(i % len(texts)), Updated: 1, Spec: "body|cl100k_base"}); !ok {
				b.Fatal("miss")
			}
			i++
		}
	})
	keys := make([]FeatureKey, len(texts))
	for i := range keys {
		keys[i] = FeatureKey{Class: "Chunk", ID: uuidOf(i), Updated: 1, Spec: "body|cl100k_base"}
	}
	b.Run("cache-hit-key-ready", func(b *testing.B) {
		i := 0
		for b.Loop() {
			fc.Get(keys[i%len(keys)])
			i++
		}
	})
}

// BenchmarkTextStrategies: knapsack and ngram on 100 demo chunks, analysing
// the texts (cold) or given the cached terms (warm), as the module runs them.
func BenchmarkTextStrategies(b *testing.B) {
	texts := demoTexts()
	counter, _ := tokens.New(tokens.CL100K)
	cands := make([]selectors.Candidate, 100)
	for i := range cands {
		t := texts[i%len(texts)]
		cands[i] = selectors.Candidate{Relevance: 1 - float64(i)/100, Tokens: counter.Count(t), Text: t}
	}
	warm := make([]selectors.Candidate, len(cands))
	for i, c := range cands {
		c.Terms = text.Terms([]string{}, c.Text)
		warm[i] = c
	}
	for _, tc := range []struct {
		name   string
		params map[string]any
	}{{"knapsack", nil}, {"knapsack", map[string]any{"concepts": "ngrams"}}, {"ngram", nil}} {
		s, err := selectors.New(tc.name, tc.params)
		if err != nil {
			b.Fatal(err)
		}
		label := tc.name
		if tc.params != nil {
			label += "-ngrams"
		}
		for _, state := range []string{"cold", "warm"} {
			p := &selectors.Problem{Candidates: cands, Budget: 1500, MaxResults: 10, Query: "statin side effects"}
			if state == "warm" {
				p.Candidates = warm
			}
			b.Run(label+"/"+state, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := s.Run(context.Background(), p); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
