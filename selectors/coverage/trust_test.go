package coverage

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/diverse-select/diverse-select/selectors"
)

func TestTrustedTop(t *testing.T) {
	tests := []struct {
		name   string
		c      []selectors.Candidate
		kmax   int
		minGap float64
		want   []int
	}{
		// Even steps are sqrt(12)/n standard deviations: 0.29 for 12.
		{"flat curve: no head", rels(0.80, 0.79, 0.78, 0.77, 0.76, 0.75, 0.74, 0.73, 0.72, 0.71, 0.70, 0.69), 3, 0.5, nil},
		{"a small pool's even steps count as drops", rels(0.80, 0.79, 0.78, 0.77, 0.76, 0.75), 3, 0.5, []int{0, 1}},
		{"a drop after two", rels(0.60, 0.90, 0.50, 0.88, 0.55, 0.52), 3, 0.5, []int{1, 3}},
		{"a drop after one only: no head", rels(0.90, 0.60, 0.59, 0.58, 0.57, 0.56), 3, 0.5, nil},
		{"the drop after three is beyond kmax 2", rels(0.90, 0.89, 0.88, 0.50, 0.49, 0.48), 2, 0.5, nil},
		{"the widest drop within kmax", rels(0.90, 0.89, 0.88, 0.50, 0.49, 0.48), 4, 0.5, []int{0, 1, 2}},
		{"off", rels(0.60, 0.90, 0.50, 0.88, 0.55, 0.52), 3, 0, nil},
		{"equal relevance", rels(0.5, 0.5, 0.5, 0.5), 3, 0.5, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, trustedTop(tc.c, tc.kmax, tc.minGap))
		})
	}
}

// TestTrustedHeadKeepsAlikePair is the failure the rule was made for: the
// two chunks a question needs are the two most relevant, far above the
// rest, and alike; the rest is a cluster that covers itself. Without the
// rule the second of the pair is traded for the cluster; with it both are
// kept, and a flat pool (no drop) is diversified as before.
func TestTrustedHeadKeepsAlikePair(t *testing.T) {
	pool := func(second float64) []selectors.Candidate {
		c := []selectors.Candidate{
			cand(0.95, 20, "", 1, 0.7, 0, 0, 0),
			cand(second, 20, "", 1, 0.3, 0.4, 0, 0),
		}
		for i := range 8 {
			c = append(c, cand(0.60-0.01*float64(i), 20, "", 0, 0, 0.2, 1, 0.1*float32(i%3)))
		}
		return c
	}
	tests := []struct {
		name     string
		second   float64
		params   map[string]any
		wantPair bool
	}{
		{"decisive, without the rule", 0.93, map[string]any{"trustGap": 0.0}, false},
		{"decisive, the default", 0.93, nil, true},
		{"flat, the default", 0.62, nil, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := run(t, tc.params, &selectors.Problem{Candidates: pool(tc.second), MaxResults: 2})
			sel := res.Indices()
			t.Logf("selected %v", sel)
			pair := len(sel) == 2 && sel[0]+sel[1] == 1
			assert.Equal(t, tc.wantPair, pair, "selected %v, stats %v", sel, res.Stats)
		})
	}
}

// BenchmarkTrustedTop is the rule's own cost, beside BenchmarkCoverage's
// whole selection at the same pool sizes.
func BenchmarkTrustedTop(b *testing.B) {
	for _, n := range []int{100, 1000} {
		c := make([]selectors.Candidate, n)
		for i := range c {
			c[i] = cand(float64((i*7919)%n)/float64(n), 10, "")
		}
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			for b.Loop() {
				trustedTop(c, 6, DefaultTrustGap)
			}
		})
	}
}
