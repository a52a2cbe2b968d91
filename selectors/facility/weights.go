package facility

import (
	"math"

	"github.com/diverse-select/diverse-select/selectors"
)

// weightOpts configures the relevance weights q_i.
type weightOpts struct {
	kind                            string // none, onehot, decay
	bottomWeight, multiplier, power float64
	squared                         bool
	base                            float64
	powerIterations                 int
}

// decayBins is the number of equal-width relevance bins of "decay".
const decayBins = 30

// weights returns q_i per the DRAG thesis (see the package comment).
func weights(c []selectors.Candidate, o weightOpts) []float64 {
	n := len(c)
	q := make([]float64, n)
	switch o.kind {
	case "onehot":
		mp := o.multiplier * o.power
		top := mp * 2
		if o.squared {
			top = mp * mp
		}
		nTop := (5*n + 99) / 100      // ceil(5% of N)
		nTopNext := (10*n + 99) / 100 // ceil(10% of N)
		for pos, i := range selectors.ByRelevance(c) {
			switch {
			case pos < nTop:
				q[i] = top
			case pos < nTopNext:
				q[i] = mp
			default:
				q[i] = o.bottomWeight
			}
		}
	case "decay":
		lo, hi := math.Inf(1), math.Inf(-1)
		for i := range c {
			lo, hi = min(lo, c[i].Relevance), max(hi, c[i].Relevance)
		}
		for i := range c {
			bin := decayBins - 1 // all equal: everything is in the top bin
			if hi > lo {
				// Halving keeps hi-lo finite for any finite relevances.
				x := (c[i].Relevance/2 - lo/2) / (hi/2 - lo/2)
				bin = min(decayBins-1, int(x*decayBins))
			}
			d := decayBins - 1 - bin
			q[i] = math.Pow(o.base, float64(max(0, o.powerIterations-d)))
		}
	default:
		for i := range q {
			q[i] = 1
		}
	}
	return q
}
