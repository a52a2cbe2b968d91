// Package textprob builds selection problems with texts and sources for the
// tests of the text-based strategies (relcost, cliff, knapsack, ngram), and
// decodes adversarial problems from fuzz input. It is test support only.
package textprob

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/diverse-select/diverse-select/selectors"
)

// Words is the vocabulary random texts draw from: few enough words that
// candidates share concepts, as chunks retrieved for one query do.
var Words = strings.Fields(`statin muscle pain liver enzyme cholesterol heart attack stroke risk dose
	diabetes kidney patient trial placebo study effect side benefit therapy the of and with`)

// Hosts are the sources random candidates come from.
var Hosts = []string{"https://a.example.org/x", "https://b.example.org/y", "http://A.example.org:8080/z", "doc-7", ""}

// Options shape a random problem.
type Options struct {
	N          int
	Budget     int
	MaxResults int
	MaxTokens  int // default 50
	MaxWords   int // words per text, default 12
	Dim        int // 0 = no vectors
	Sources    bool
	Query      string
	// Vocab > 0 draws words from a Zipf-distributed synthetic vocabulary of
	// that size instead of Words (for benchmarks with realistic dictionaries).
	Vocab int
}

// Random draws a problem from rng.
func Random(rng *rand.Rand, o Options) *selectors.Problem {
	if o.MaxTokens < 1 {
		o.MaxTokens = 50
	}
	if o.MaxWords < 1 {
		o.MaxWords = 12
	}
	cands := make([]selectors.Candidate, o.N)
	for i := range cands {
		words := make([]string, rng.IntN(o.MaxWords+1))
		var zipf *rand.Zipf
		if o.Vocab > 0 {
			zipf = rand.NewZipf(rng, 1.1, 1, uint64(o.Vocab-1))
		}
		for j := range words {
			if zipf != nil {
				words[j] = fmt.Sprintf("w%dx", zipf.Uint64())
			} else {
				words[j] = Words[rng.IntN(len(Words))]
			}
		}
		c := selectors.Candidate{
			ID:        fmt.Sprint(i),
			Relevance: math.Round(rng.Float64()*100) / 100, // coarse: ties happen
			Tokens:    1 + rng.IntN(o.MaxTokens),
			Text:      strings.Join(words, " "),
		}
		if o.Sources {
			c.Source = Hosts[rng.IntN(len(Hosts))]
		}
		if o.Dim > 0 {
			c.Vector = make([]float32, o.Dim)
			for j := range c.Vector {
				c.Vector[j] = float32(rng.NormFloat64())
			}
		}
		cands[i] = c
	}
	return &selectors.Problem{Candidates: cands, Budget: o.Budget, MaxResults: o.MaxResults, Query: o.Query}
}

// Check verifies a result against the problem: distinct in-range indices,
// within maxResults and budget, ranks 1..n, tokens matching the candidates.
func Check(p *selectors.Problem, res *selectors.Result) error {
	if res == nil {
		return fmt.Errorf("nil result")
	}
	if len(res.Items) > p.K() {
		return fmt.Errorf("%d items exceed K=%d", len(res.Items), p.K())
	}
	seen := map[int]bool{}
	used := 0
	for _, it := range res.Items {
		if it.Index < 0 || it.Index >= len(p.Candidates) || seen[it.Index] {
			return fmt.Errorf("bad or repeated index %d", it.Index)
		}
		seen[it.Index] = true
		if it.Tokens != p.Candidates[it.Index].Tokens {
			return fmt.Errorf("item %d reports %d tokens, candidate has %d", it.Index, it.Tokens, p.Candidates[it.Index].Tokens)
		}
		used += it.Tokens
	}
	if p.Budget > 0 && used > p.Budget {
		return fmt.Errorf("%d tokens exceed budget %d", used, p.Budget)
	}
	if res.TokensUsed != used {
		return fmt.Errorf("TokensUsed %d, items sum to %d", res.TokensUsed, used)
	}
	return nil
}

// reader hands out fuzz bytes, zeros once exhausted.
type reader struct{ b []byte }

func (r *reader) byte() byte {
	if len(r.b) == 0 {
		return 0
	}
	v := r.b[0]
	r.b = r.b[1:]
	return v
}

func (r *reader) bytes(n int) []byte {
	out := make([]byte, n)
	for i := range out {
		out[i] = r.byte()
	}
	return out
}

// Decode builds an adversarial problem from fuzz input: up to 31 candidates
// with arbitrary relevance bits (NaN, Inf), token costs from 0, vectors with
// arbitrary float32 bits (zero vectors, NaN, Inf, missing), texts from the
// vocabulary with duplicates, odd sources and tiny or absent budgets. When
// the first byte is even, non-finite numbers and zero costs are repaired so
// that the strategies themselves, not validation, meet the odd input.
func Decode(data []byte) *selectors.Problem {
	r := &reader{b: data}
	flags := r.byte()
	repair := flags%2 == 0
	n := int(r.byte() % 32)
	dim := int(r.byte() % 4)
	p := &selectors.Problem{Budget: int(r.byte()) % 64, MaxResults: int(r.byte() % 8)}
	if flags&2 != 0 {
		p.Query = "statin side effects of the Liver"
	}
	if flags&4 != 0 {
		p.DedupThreshold = 0.9
	}
	p.Candidates = make([]selectors.Candidate, n)
	for i := range p.Candidates {
		c := &p.Candidates[i]
		kind := r.byte()
		if kind%5 == 0 && i > 0 { // exact duplicate of the previous candidate
			*c = p.Candidates[i-1]
			continue
		}
		c.Relevance = math.Float64frombits(binary.LittleEndian.Uint64(r.bytes(8)))
		if kind%3 == 0 {
			c.Relevance = float64(int8(r.byte())) / 64 // small, often tied or negative
		}
		c.Tokens = int(r.byte() % 40)
		if kind&8 == 0 {
			c.Vector = make([]float32, dim)
			for j := range c.Vector {
				if kind&16 == 0 {
					c.Vector[j] = math.Float32frombits(binary.LittleEndian.Uint32(r.bytes(4)))
				}
			}
		}
		words := make([]string, r.byte()%10)
		for j := range words {
			words[j] = Words[int(r.byte())%len(Words)]
		}
		c.Text = strings.Join(words, " ")
		if kind&32 != 0 {
			c.Text += " \xff\u0301 Größe 東京"
		}
		c.Source = Hosts[int(kind>>5)%len(Hosts)]
		if kind&64 != 0 {
			c.Source = "http://[::1"
		}
		if repair {
			fix(c, dim)
		}
	}
	return p
}

func fix(c *selectors.Candidate, dim int) {
	if math.IsNaN(c.Relevance) || math.IsInf(c.Relevance, 0) {
		c.Relevance = 0
	}
	if c.Tokens < 1 {
		c.Tokens = 1
	}
	if c.Vector == nil {
		c.Vector = make([]float32, dim)
	}
	for j, x := range c.Vector {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			c.Vector[j] = 0
		}
	}
}

// Fuzz runs the named strategy on a decoded problem and fails unless it
// returns an error or a valid selection. Run converts a strategy panic into
// an error, so such errors fail too; Select is also called directly, where
// a panic crashes the fuzz run outright.
func Fuzz(name string, params map[string]any, data []byte) error {
	p := Decode(data)
	sel, err := selectors.New(name, params)
	if err != nil {
		return fmt.Errorf("bad fuzz setup: %w", err)
	}
	res, err := sel.Run(context.Background(), p)
	if err != nil {
		if strings.Contains(err.Error(), "panicked") {
			return err
		}
		return nil
	}
	if err := Check(p, res); err != nil {
		return err
	}
	if p.Validate() == nil && len(p.Candidates) > 0 {
		impl, _ := sel.Def.New(sel.Params)
		if _, err := impl.Select(context.Background(), p); err != nil && strings.Contains(err.Error(), "panicked") {
			return err
		}
	}
	return nil
}
