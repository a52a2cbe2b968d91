package evidence_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/diverse-select/diverse-select/selectors"
	_ "github.com/diverse-select/diverse-select/selectors/coverage"
	"github.com/diverse-select/diverse-select/selectors/evidence"
	"github.com/diverse-select/diverse-select/selectors/internal/testprob"
	"github.com/diverse-select/diverse-select/selectors/text"
)

// benchPool is the default's benchmark problem (N = 100, d = 768, K = 10,
// B = 1500) with a text per candidate: five sentences of 15 words drawn from
// a 2,000-word vocabulary, about 100 tokens, terms analysed once as the
// module's feature cache holds them.
func benchPool(n int) (*selectors.Problem, []*evidence.Analysed) {
	rng := rand.New(rand.NewPCG(uint64(n), 7))
	vocab := make([]string, 2000)
	for i := range vocab {
		vocab[i] = fmt.Sprintf("w%dx%c", i, 'a'+rune(i%26))
	}
	sentence := func(words int) string {
		w := make([]string, words)
		for i := range w {
			w[i] = vocab[int(float64(len(vocab))*rng.Float64()*rng.Float64())] // Zipf-like
		}
		return strings.ToUpper(w[0][:1]) + strings.Join(w, " ")[1:] + "."
	}
	p := testprob.Random(rand.New(rand.NewPCG(uint64(n), 768)), testprob.Options{
		N: n, Dim: 768, Clusters: 20, Budget: 1500, MaxResults: 10, MinTokens: 50, MaxTokens: 300})
	p.Query = sentence(8)
	an := text.NewAnalyzer()
	analysed := make([]*evidence.Analysed, n)
	for i := range p.Candidates {
		ss := make([]string, 5)
		for j := range ss {
			ss[j] = sentence(15)
		}
		c := &p.Candidates[i]
		c.Text = strings.Join(ss, " ")
		c.Terms = an.Terms(nil, c.Text)
		analysed[i] = evidence.Analyse(c.Text, an, nil)
	}
	return p, analysed
}

// BenchmarkCards compares the default's selection alone with what cards add
// to it, side by side: the query's weights, every candidate's card cost
// from its cached sentence analysis, and the text of the K selected cards.
func BenchmarkCards(b *testing.B) {
	p, analysed := benchPool(100)
	s, err := selectors.New("coverage", nil)
	if err != nil {
		b.Fatal(err)
	}
	p.Sims().Matrix()
	b.Run("N=100/coverage", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := s.Run(context.Background(), p); err != nil {
				b.Fatal(err)
			}
		}
	})
	an := text.NewAnalyzer()
	b.Run("N=100/cards", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			q := evidence.NewQuery(an.Terms(nil, p.Query), analysed)
			for d := range analysed {
				q.Tokens(d, evidence.Defaults)
			}
			for d := range p.MaxResults {
				q.Card(d, evidence.Defaults)
			}
		}
	})
}
