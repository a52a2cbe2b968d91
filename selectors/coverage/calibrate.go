package coverage

import (
	"math"
	"slices"

	"github.com/diverse-select/diverse-select/selectors"
)

// Relevance calibration per pool ("relevanceScale"): how the dense
// relevance is put on [0, 1] before it is fused with the lexical match.
// "minmax" (the default) maps the pool's range to [0, 1]; "z" maps the
// z-score over the pool through the normal CDF (a pool's outliers do not
// stretch the scale); "rank" uses the relevance rank alone (1 for the
// best, 0 for the worst, ties sharing their mean rank).
const (
	scaleMinMax = "minmax"
	scaleZ      = "z"
	scaleRank   = "rank"
)

func calibratedRelevance(c []selectors.Candidate, scale string) []float64 {
	switch scale {
	case scaleZ:
		return zRelevance(c)
	case scaleRank:
		return rankRelevance(c)
	}
	return denseRelevance(c)
}

func zRelevance(c []selectors.Candidate) []float64 {
	n := float64(len(c))
	var mean, sq float64
	for _, x := range c {
		mean += x.Relevance
	}
	mean /= n
	for _, x := range c {
		sq += (x.Relevance - mean) * (x.Relevance - mean)
	}
	sd := math.Sqrt(sq / n)
	out := make([]float64, len(c))
	for i, x := range c {
		out[i] = 1
		if sd > 0 {
			out[i] = 0.5 * math.Erfc(-(x.Relevance-mean)/sd/math.Sqrt2)
		}
	}
	return out
}

func rankRelevance(c []selectors.Candidate) []float64 {
	n := len(c)
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		switch {
		case c[a].Relevance > c[b].Relevance:
			return -1
		case c[a].Relevance < c[b].Relevance:
			return 1
		}
		return 0
	})
	out := make([]float64, n)
	for i := 0; i < n; {
		j := i
		for j < n && c[idx[j]].Relevance == c[idx[i]].Relevance {
			j++
		}
		r := 1.0
		if n > 1 {
			r = 1 - float64(i+j-1)/2/float64(n-1)
		}
		for _, k := range idx[i:j] {
			out[k] = r
		}
		i = j
	}
	return out
}
