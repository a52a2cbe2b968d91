package gateway

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
)

// TestOrderingVector: the vector ranks the given vectors in their order
// under the metric, as a search would (distances ascending), and there is
// none where it could not be trusted.
func TestOrderingVector(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	random := func(n, dim int) [][]float32 {
		out := make([][]float32, n)
		for i := range out {
			out[i] = make([]float32, dim)
			for j := range out[i] {
				out[i][j] = float32(r.NormFloat64())
			}
		}
		return out
	}
	rank := func(q []float32, vecs [][]float32, metric string) []int {
		score := make([]float64, len(vecs))
		for i, v := range vecs {
			var dot, nv, nq float64
			for k := range v {
				dot += float64(q[k]) * float64(v[k])
				nv += float64(v[k]) * float64(v[k])
				nq += float64(q[k]) * float64(q[k])
			}
			score[i] = dot
			if metric == "cosine" {
				score[i] = float64(float32(1 - dot/math.Sqrt(nv*nq))) // Weaviate's float32 distance
				score[i] = -score[i]
			}
		}
		idx := []int{0}
		for i := 1; i < len(vecs); i++ {
			idx = append(idx, i)
		}
		sort.SliceStable(idx, func(a, b int) bool { return score[idx[a]] > score[idx[b]] })
		return idx
	}
	for _, tc := range []struct {
		name   string
		vecs   [][]float32
		metric string
		ok     bool
	}{
		{"cosine, 10 of 64 dims", random(10, 64), "cosine", true},
		{"cosine, 20 of 768 dims", random(20, 768), "cosine", true},
		{"dot", random(8, 32), "dot", true},
		{"more vectors than dimensions", random(12, 8), "cosine", false},
		{"l2", random(5, 32), "l2-squared", false},
		{"one", random(1, 32), "cosine", false},
	} {
		q := orderingVector(tc.vecs, tc.metric)
		if (q != nil) != tc.ok {
			t.Errorf("%s: vector %v, want one %v", tc.name, q != nil, tc.ok)
			continue
		}
		if q == nil {
			continue
		}
		want := make([]int, len(tc.vecs))
		for i := range want {
			want[i] = i
		}
		if got := rank(q, tc.vecs, tc.metric); !slices.Equal(got, want) {
			t.Errorf("%s: ranks %v", tc.name, got)
		}
	}
	dup := random(4, 32)
	dup[3] = slices.Clone(dup[1])
	if orderingVector(dup, "cosine") != nil {
		t.Error("two equal vectors cannot be put in order")
	}
}
