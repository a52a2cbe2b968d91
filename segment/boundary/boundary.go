// Package boundary scores a segmentation against a reference: Pk (Beeferman
// et al. 1999), WindowDiff (Pevzner and Hearst 2002) and boundary F1. A
// segmentation is the set of unit positions (words, say) where a new segment
// starts, 0 < b < n for a text of n units. Pk and WindowDiff are O(n), F1
// O(h·r) for h hypothesis and r reference boundaries.
package boundary

// Pk is the share of positions i (0 <= i < n-k) where the reference and the
// hypothesis disagree on whether units i and i+k are in one segment. k <= 0
// takes half the mean reference segment length. Lower is better; 0 is exact.
func Pk(ref, hyp []int, n, k int) float64 {
	k = window(ref, n, k)
	r, h := cumulative(ref, n), cumulative(hyp, n)
	miss := 0
	for i := 0; i+k < n; i++ {
		if (r[i+k] == r[i]) != (h[i+k] == h[i]) {
			miss++
		}
	}
	return ratio(miss, n-k)
}

// WindowDiff is the share of windows of k units over which the reference
// and the hypothesis hold a different number of boundaries (k as in Pk).
// Lower is better.
func WindowDiff(ref, hyp []int, n, k int) float64 {
	k = window(ref, n, k)
	r, h := cumulative(ref, n), cumulative(hyp, n)
	miss := 0
	for i := 0; i+k < n; i++ {
		if r[i+k]-r[i] != h[i+k]-h[i] {
			miss++
		}
	}
	return ratio(miss, n-k)
}

// F1 counts a hypothesis boundary as correct when a reference boundary lies
// within tol units of it, each reference boundary matched once (greedily, in
// order); precision, recall and their harmonic mean.
func F1(ref, hyp []int, tol int) (p, r, f float64) {
	used := make([]bool, len(ref))
	hit := 0
	for _, b := range hyp {
		for j, x := range ref {
			if !used[j] && x-tol <= b && b <= x+tol {
				used[j] = true
				hit++
				break
			}
		}
	}
	p, r = ratio(hit, len(hyp)), ratio(hit, len(ref))
	if p+r > 0 {
		f = 2 * p * r / (p + r)
	}
	return p, r, f
}

// window is k, or half the mean reference segment length (at least 1).
func window(ref []int, n, k int) int {
	if k > 0 {
		return k
	}
	return max(1, n/(len(ref)+1)/2)
}

// cumulative[i] is the number of boundaries at or before unit i.
func cumulative(bs []int, n int) []int {
	c := make([]int, n+1)
	for _, b := range bs {
		if b > 0 && b < n {
			c[b]++
		}
	}
	for i := 1; i <= n; i++ {
		c[i] += c[i-1]
	}
	return c
}

func ratio(a, b int) float64 {
	if b <= 0 {
		return 0
	}
	return float64(a) / float64(b)
}
