package all_test

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/diverse-select/diverse-select/selectors"
)

// bytesReader hands out fuzz bytes, zeros once they run out.
type bytesReader struct{ b []byte }

func (r *bytesReader) next() byte {
	if len(r.b) == 0 {
		return 0
	}
	x := r.b[0]
	r.b = r.b[1:]
	return x
}

// adversarial float values, picked by a byte; other bytes map to [-1,1].
var specials = []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, 1, -1, math.MaxFloat64, -math.MaxFloat64,
	math.SmallestNonzeroFloat64, 1e-300, 1e300, math.MaxFloat32, -math.MaxFloat32, 1e-40, 0.5, 2}

func (r *bytesReader) float() float64 {
	x := r.next()
	if int(x) < len(specials) {
		return specials[x]
	}
	return float64(x)/127.5 - 1
}

// problem decodes a selection problem with adversarial values.
func (r *bytesReader) problem() *selectors.Problem {
	n := int(r.next() % 17)
	dim := int(r.next() % 6)
	p := &selectors.Problem{Query: "statin side effects"}
	switch f := r.next(); f % 8 {
	case 1, 2:
		p.Budget = int(r.next() % 8) // tiny
	case 3, 4, 5:
		p.Budget = int(r.next())*4 + 1
	case 6:
		p.Budget = -int(r.next() % 3) // invalid when < 0
	}
	p.MaxResults = int(r.next()%40) - 1
	p.Order = []selectors.Order{"", "", "", selectors.OrderSelection, selectors.OrderRelevance, selectors.OrderEdges,
		selectors.OrderEdges, "bogus"}[r.next()%8]
	switch d := r.next(); d % 4 {
	case 0:
		p.DedupThreshold = r.float() // adversarial
	case 1:
		p.DedupThreshold = float64(r.next()) / 255
	}
	for i := 0; i < n; i++ {
		flags := r.next()
		if flags%5 == 0 && i > 0 { // duplicate of the previous candidate
			p.Candidates = append(p.Candidates, p.Candidates[i-1])
			continue
		}
		c := selectors.Candidate{Relevance: r.float(), Tokens: int(r.next()%80) - 1}
		if flags%7 != 1 { // otherwise no vector at all
			c.Vector = make([]float32, dim)
			if flags%3 != 0 { // otherwise a zero vector
				for j := range c.Vector {
					c.Vector[j] = float32(r.float())
				}
			}
		}
		c.Text = strings.Repeat(words[int(r.next())%len(words)]+" ", int(flags%4))
		c.Source = words[int(r.next())%len(words)]
		p.Candidates = append(p.Candidates, c)
	}
	return p
}

// params picks, per spec, the default or an extreme allowed value.
func (r *bytesReader) params(specs []selectors.ParamSpec) map[string]any {
	out := map[string]any{}
	for _, s := range specs {
		x := r.next()
		switch s.Kind {
		case selectors.KindBool:
			if x%3 != 0 {
				out[s.Name] = x%3 == 1
			}
		case selectors.KindString:
			if x%2 == 1 && len(s.Enum) > 0 {
				out[s.Name] = s.Enum[int(x/2)%len(s.Enum)]
			}
		default:
			lo, hi := s.Min, s.Max
			cands := []float64{lo, hi, (lo + hi) / 2, lo + 1, 1e6, 1e300, 0.5, 3}
			v := cands[int(x/2)%len(cands)]
			if x%2 == 0 || math.IsInf(v, 0) || math.IsNaN(v) {
				continue // keep the default
			}
			if s.Kind == selectors.KindInt {
				v = math.Min(math.Trunc(v), 1e6)
			}
			out[s.Name] = v
		}
	}
	return out
}

func FuzzAllStrategies(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{5, 3, 0, 0, 0, 0, 20, 200, 3, 100, 30, 40, 50, 1, 1, 21, 150, 4, 60, 70, 80, 2, 2})
	f.Add([]byte{8, 2, 1, 3, 5, 2, 1, 0, 16, 3, 0, 17, 4, 1, 2, 0, 0, 5})        // NaN, Inf
	f.Add([]byte{10, 4, 2, 50, 3, 3, 0, 17, 6, 200, 25, 0, 0, 0, 0, 5, 5, 5, 5}) // duplicates, zeros
	f.Add([]byte{16, 5, 2, 255, 19, 1, 3, 200, 20, 60, 22, 17, 128, 129, 130, 131, 132, 21, 7, 9})
	f.Add([]byte{3, 1, 1, 1, 0, 2, 0, 9, 255, 255, 255, 255, 255, 255, 255, 255, 255})
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, name := range selectors.Names() {
			d, _ := selectors.Lookup(name)
			r := &bytesReader{b: data}
			p := r.problem()
			raw := r.params(d.Params)
			s, err := selectors.New(name, raw)
			if err != nil {
				continue // parameter combinations may be rejected
			}
			q := clone(p)
			res, err := s.Run(context.Background(), q)
			if err != nil {
				if strings.Contains(err.Error(), "panicked") {
					t.Fatalf("%s params %v: %v", name, raw, err)
				}
				continue
			}
			checkValid(t, q, res)
			// Page 2 never repeats page 1 and never panics.
			pg, err := s.RunPage(context.Background(), clone(p), len(res.Items), true)
			if err != nil {
				if strings.Contains(err.Error(), "panicked") {
					t.Fatalf("%s params %v, page 2: %v", name, raw, err)
				}
				continue
			}
			first := map[int]bool{}
			for _, it := range res.Items {
				first[it.Index] = true
			}
			for _, it := range pg.Items {
				if first[it.Index] {
					t.Fatalf("%s params %v: candidate %d on pages 1 and 2", name, raw, it.Index)
				}
			}
		}
	})
}
