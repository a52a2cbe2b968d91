package coverage

import (
	"math"

	"github.com/diverse-select/diverse-select/selectors"
)

// kernel returns the coverage kernel of every candidate against the
// targets, row-major with row length ld: s(i, targets[t]) =
// min(1, max(0, k))^power, 1 where the candidate is the target, with k the
// cosine, centred on the pool mean when center is set.
//
// Centring is a rank-one correction of the cosines, not a second matrix:
// for unit vectors v_i with mean mu, (v_i-mu).(v_j-mu) = c_ij - m_i - m_j
// + m, where m_i = v_i.mu (the mean of row i of the cosine matrix) and m =
// mu.mu, and |v_i-mu|^2 = 1 - 2 m_i + m; m_i comes from one pass over the
// vectors (selectors.RowMeaner), so only the N x M block of cosines is
// computed, and it is turned into the kernel in place. A zero vector has
// kernel 0 with every candidate, itself included, as it has cosine 0
// everywhere.
func kernel(sims selectors.Similarities, targets []int, center bool, power float64) ([]float32, int) {
	n := sims.Len()
	out, ld := selectors.Cross(sims, targets)
	m := len(targets)
	var rm, inv []float32 // per candidate: m_i and 1/|v_i - mu|
	var shift []float32   // per candidate: m - m_i, rounded once from float64
	if center {
		rowMean, mean := rowMeans(sims, targets, out, ld)
		shift = make([]float32, n)
		rm, inv = make([]float32, n), make([]float32, n)
		for i := range n {
			rm[i] = float32(rowMean[i])
			// 1 for a unit vector, 0 for a zero vector (from the block when
			// it holds the diagonal: the same rounding as the other cosines).
			self := float64(sims.At(i, i))
			if m == n {
				self = float64(out[i*ld+i])
			}
			shift[i] = float32(mean - rowMean[i])
			if d2 := self - 2*rowMean[i] + mean; self > 0 && d2 > 1e-12 {
				inv[i] = float32(1 / math.Sqrt(d2))
			}
		}
	}
	// The targets' m_j and 1/|v_j - mu|, contiguous for the inner loop.
	trm, tinv := make([]float32, m), make([]float32, m)
	for t, j := range targets {
		if center {
			trm[t], tinv[t] = rm[j], inv[j]
		}
	}
	// float32 from here: the N x M loop is the strategy's main cost after
	// the cosines, and the kernel is stored as float32 anyway.
	for i := range n {
		oi := out[i*ld : i*ld+m]
		if center {
			a, ii := shift[i], inv[i]
			trm, tinv := trm[:len(oi)], tinv[:len(oi)]
			for t, x := range oi {
				// min/max rather than branches: the sign is unpredictable.
				oi[t] = min(max((x+a-trm[t])*ii*tinv[t], 0), 1)
			}
		} else {
			for t, x := range oi {
				oi[t] = min(max(x, 0), 1)
			}
		}
		switch power {
		case 1:
		case 2: // the default: a multiply, not math.Pow
			for t, x := range oi {
				oi[t] = x * x
			}
		default:
			for t, x := range oi {
				if x > 0 {
					oi[t] = float32(math.Pow(float64(x), power))
				}
			}
		}
	}
	// A chunk covers itself fully, whatever its vector.
	for t, j := range targets {
		out[j*ld+t] = 1
	}
	return out, ld
}

// rowMeans returns the mean cosine of each candidate with the pool (m_i =
// v_i.mu) and the mean of the cosine matrix (mu.mu): from the block of
// cosines when the targets are the whole pool, else in O(N d) from the
// engine when its similarity is a dot product (selectors.RowMeaner), else
// row by row (a multi-vector engine's MaxSim, for one).
func rowMeans(sims selectors.Similarities, targets []int, block []float32, ld int) ([]float64, float64) {
	n := sims.Len()
	out := make([]float64, n)
	var mean float64
	if len(targets) == n {
		for i := range n {
			var s float64
			for _, x := range block[i*ld : i*ld+n] {
				s += float64(x)
			}
			out[i] = s / float64(n)
			mean += s
		}
		return out, mean / (float64(n) * float64(n))
	}
	if rm, ok := sims.(selectors.RowMeaner); ok {
		mean = rm.RowMeans(out)
		return out, mean
	}
	// Row by row: no N x N buffer beyond what MatrixBytes declared.
	row := make([]float32, n)
	for i := range n {
		sims.Row(i, row)
		var sum float64
		for _, x := range row {
			sum += float64(x)
		}
		out[i] = sum / float64(n)
		mean += sum
	}
	return out, mean / (float64(n) * float64(n))
}

