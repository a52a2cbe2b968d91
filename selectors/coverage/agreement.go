package coverage

import (
	"cmp"
	"math"
	"slices"
)

// rankAgreement is Spearman's rank correlation of a and b (equal lengths):
// the Pearson correlation of their ranks, ties given their mean rank. It is
// 0 when either is constant or fewer than two values are given, so a pool
// that cannot tell its candidates apart never counts as agreeing.
// O(n log n) time, O(n) memory.
func rankAgreement(a, b []float64) float64 {
	if len(a) < 2 || len(a) != len(b) {
		return 0
	}
	ra, rb := ranks(a), ranks(b)
	mean := float64(len(a)-1) / 2 // the mean of 0..n-1, ties or not
	var ab, aa, bb float64
	for i := range ra {
		x, y := ra[i]-mean, rb[i]-mean
		ab += x * y
		aa += x * x
		bb += y * y
	}
	if aa == 0 || bb == 0 {
		return 0
	}
	return ab / math.Sqrt(aa*bb)
}

// ranks returns each value's rank in x from 0 (the smallest), equal values
// sharing their mean rank. NaN sorts first, as slices.Sort puts it.
func ranks(x []float64) []float64 {
	order := make([]int, len(x))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(i, j int) int { return cmp.Compare(x[i], x[j]) })
	r := make([]float64, len(x))
	for i := 0; i < len(order); {
		j := i + 1
		for j < len(order) && cmp.Compare(x[order[j]], x[order[i]]) == 0 {
			j++
		}
		for _, d := range order[i:j] {
			r[d] = float64(i+j-1) / 2
		}
		i = j
	}
	return r
}
