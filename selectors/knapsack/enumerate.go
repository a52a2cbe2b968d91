package knapsack

import (
	"context"

	"github.com/diverse-select/diverse-select/selectors"
)

// enumerate3 is the partial enumeration of Sviridenko (2004): the best of
// every feasible set of at most two items and of the greedy completion of
// every feasible three-item seed. The incumbent (the fast greedy's answer)
// is kept unless a set is strictly better, so enumerate never does worse.
// Seeds are listed in lexicographic index order: deterministic.
func (in *instance) enumerate3(ctx context.Context, incumbent []int, stats map[string]float64) []int {
	n := len(in.c)
	scratch := make([]bool, len(in.w))
	best, bestV := incumbent, in.value(incumbent)
	// consider takes a set in selection order (small sets are ordered first).
	consider := func(set []int) {
		if in.hasCopies(set) {
			return
		}
		if v := in.valueWith(set, scratch); v > bestV {
			best, bestV = set, v
		}
	}
	tok := func(d int) int { return in.c[d].Tokens }
	fitsAll := func(t int) bool { return in.budget <= 0 || t <= in.budget }
	for i := 0; i < n && in.k >= 1; i++ {
		if fitsAll(tok(i)) {
			consider([]int{i})
		}
		for j := i + 1; j < n && in.k >= 2; j++ {
			if fitsAll(tok(i) + tok(j)) {
				consider(in.orderSeed([]int{i, j}))
			}
		}
	}
	covered := make([]bool, len(in.w))
	q := &queue{}
	seeds := 0
	for i := 0; i < n && in.k >= 3; i++ {
		if ctx.Err() != nil {
			break
		}
		for j := i + 1; j < n; j++ {
			for l := j + 1; l < n; l++ {
				used := tok(i) + tok(j) + tok(l)
				if !fitsAll(used) {
					continue
				}
				seed := in.orderSeed([]int{i, j, l})
				if in.hasCopies(seed) {
					continue
				}
				seeds++
				clear(covered)
				for _, d := range seed {
					in.cover(d, covered)
				}
				consider(in.greedy(ctx, seed, covered, used, q))
			}
		}
	}
	stats["seeds"] = float64(seeds)
	return best
}

// orderSeed orders a small set the way the greedy would pick it (largest
// key first, ties by selectors.Better), so ranks and gains explain it.
func (in *instance) orderSeed(set []int) []int {
	out := make([]int, 0, len(set))
	rest := append([]int(nil), set...)
	covered := make([]bool, len(in.w))
	for len(rest) > 0 {
		bi, bk := 0, -1.0
		for x, d := range rest {
			k := in.key(in.gain(d, covered), d)
			if k > bk || (k == bk && selectors.Better(in.c, d, rest[bi])) {
				bi, bk = x, k
			}
		}
		out = append(out, rest[bi])
		in.cover(rest[bi], covered)
		rest = append(rest[:bi], rest[bi+1:]...)
	}
	return out
}

// hasCopies reports whether a set holds two near-copies (selectors.CopyGuard).
func (in *instance) hasCopies(set []int) bool {
	for a := 1; a < len(set); a++ {
		if in.guard.CopyOf(set[:a], set[a]) {
			return true
		}
	}
	return false
}
