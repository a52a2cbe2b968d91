package coverage

import (
	"math"
	"runtime"

	"github.com/diverse-select/diverse-select/internal/workshare"
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
	out, ld, _ := kernelGains(sims, targets, nil, center, power)
	return out, ld
}

// kernelGains is kernel, and with weights w (one per target) also each
// candidate's facility-location gain on the empty selection,
// base[i] = sum_t w_t s(i, targets[t]), summed in the order gain sums it
// (so the first gains are the same to the last bit). The rows are turned
// into the kernel and summed while they are in cache, split over the cores
// for large blocks.
func kernelGains(sims selectors.Similarities, targets []int, w []float64, center bool, power float64) ([]float32, int, []float64) {
	n := sims.Len()
	out, ld := selectors.Cross(sims, targets)
	m := len(targets)
	k := kernelRows{out: out, ld: ld, m: m, power: power, w: w, center: center}
	if center {
		rowMean, mean := rowMeans(sims, targets, out, ld)
		k.shift = make([]float32, n)
		k.inv = make([]float32, n)
		for i := range n {
			// 1 for a unit vector, 0 for a zero vector (from the block when
			// it holds the diagonal: the same rounding as the other cosines).
			var self float64
			if m == n {
				self = float64(out[i*ld+i])
			} else {
				self = float64(sims.At(i, i))
			}
			k.shift[i] = float32(mean - rowMean[i])
			if d2 := self - 2*rowMean[i] + mean; self > 0 && d2 > 1e-12 {
				k.inv[i] = float32(1 / math.Sqrt(d2))
			}
		}
		// The targets' m_j and 1/|v_j - mu|, contiguous for the inner loop.
		k.trm, k.tinv = make([]float32, m), make([]float32, m)
		for t, j := range targets {
			k.trm[t], k.tinv[t] = float32(rowMean[j]), k.inv[j]
		}
	}
	// A chunk covers itself fully, whatever its vector.
	k.self = make([]int32, n)
	for i := range k.self {
		k.self[i] = -1
	}
	for t, j := range targets {
		k.self[j] = int32(t)
	}
	if w != nil {
		k.base = make([]float64, n)
	}
	// Chunks of rows, on several cores for large blocks.
	workers := 1
	if n*m >= parallelKernel {
		workers = min(runtime.GOMAXPROCS(0), maxKernelWorkers)
	}
	workshare.Ranges(workers, n, kernelChunk, func(_, from, to int) { k.rows(from, to) })
	return out, ld, k.base
}

const (
	// parallelKernel is the block size (candidates x targets) from which
	// the rows are turned into the kernel on several cores: 256 x 256 takes
	// about 0.1 ms on one, well above the hand-off.
	parallelKernel   = 1 << 16
	maxKernelWorkers = 4
	// kernelChunk is the number of rows in one unit of that work (a
	// multiple of 4, the rows summed together).
	kernelChunk = 32
)

// kernelRows turns the block of cosines into the kernel, row by row.
type kernelRows struct {
	out        []float32
	ld, m      int
	power      float64
	center     bool
	shift, inv []float32 // per candidate: m - m_i (rounded once from float64) and 1/|v_i - mu|
	trm, tinv  []float32 // per target: m_j and 1/|v_j - mu|
	self       []int32   // per candidate, its target index or -1
	w, base    []float64 // the targets' weights; the first gains (nil: not asked)
}

// rows turns rows [i0, i1) into the kernel and sums their first gains.
func (k *kernelRows) rows(i0, i1 int) {
	for i := i0; i < i1; i++ {
		k.row(i)
	}
	if k.base == nil {
		return
	}
	// Four rows at a time: each sum runs over t in order, as gain's does,
	// but four independent sums keep the adder busy. An entry of 0 adds
	// exactly nothing, so no branch is needed where gain tests k > 0.
	w := k.w[:k.m]
	i := i0
	for ; i+4 <= i1; i += 4 {
		r0 := k.out[i*k.ld : i*k.ld+len(w)]
		r1 := k.out[(i+1)*k.ld : (i+1)*k.ld+len(w)]
		r2 := k.out[(i+2)*k.ld : (i+2)*k.ld+len(w)]
		r3 := k.out[(i+3)*k.ld : (i+3)*k.ld+len(w)]
		var g0, g1, g2, g3 float64
		for t, wt := range w {
			g0 += wt * float64(r0[t])
			g1 += wt * float64(r1[t])
			g2 += wt * float64(r2[t])
			g3 += wt * float64(r3[t])
		}
		k.base[i], k.base[i+1], k.base[i+2], k.base[i+3] = g0, g1, g2, g3
	}
	for ; i < i1; i++ {
		var g float64
		for t, x := range k.out[i*k.ld : i*k.ld+len(w)] {
			g += w[t] * float64(x)
		}
		k.base[i] = g
	}
}

// row turns row i of the block into the kernel, in float32: the N x M
// loop is the strategy's main cost after the cosines, and the kernel is
// stored as float32 anyway.
func (k *kernelRows) row(i int) {
	oi := k.out[i*k.ld : i*k.ld+k.m]
	if k.center && (k.power == 1 || k.power == 2) {
		// The default: centred, clamped and squared in one pass.
		centre(oi, k.shift[i], k.inv[i], k.trm, k.tinv, k.power == 2)
	} else {
		if k.center {
			centre(oi, k.shift[i], k.inv[i], k.trm, k.tinv, false)
		} else {
			for t, x := range oi {
				oi[t] = min(max(x, 0), 1)
			}
		}
		k.pow(oi)
	}
	if t := k.self[i]; t >= 0 {
		oi[t] = 1
	}
}

// centre turns a row of cosines x with candidate i into clamped centred
// cosines, min(1, max(0, (x[t] + a - trm[t]) * ii * tinv[t])), squared when
// square is set: eight lanes at a time where the CPU has them
// (centreBlock, the same float32 operations in the same order), the rest
// here.
func centre(x []float32, a, ii float32, trm, tinv []float32, square bool) {
	trm, tinv = trm[:len(x)], tinv[:len(x)]
	for t := centreBlock(x, a, ii, trm, tinv, square); t < len(x); t++ {
		// min/max rather than branches: the sign is unpredictable.
		v := min(max((x[t]+a-trm[t])*ii*tinv[t], 0), 1)
		if square {
			v *= v
		}
		x[t] = v
	}
}

// pow raises a row of clamped cosines to the kernel's power.
func (k *kernelRows) pow(oi []float32) {
	switch k.power {
	case 1:
	case 2: // a multiply, not math.Pow
		for t, x := range oi {
			oi[t] = x * x
		}
	default:
		for t, x := range oi {
			if x > 0 {
				oi[t] = float32(math.Pow(float64(x), k.power))
			}
		}
	}
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
		// Four rows at a time, each summed in column order: four
		// independent sums keep the adder busy.
		sum := func(i int) float64 {
			var s float64
			for _, x := range block[i*ld : i*ld+n] {
				s += float64(x)
			}
			return s
		}
		i := 0
		for ; i+4 <= n; i += 4 {
			r0, r1, r2, r3 := block[i*ld:i*ld+n], block[(i+1)*ld:(i+1)*ld+n], block[(i+2)*ld:(i+2)*ld+n], block[(i+3)*ld:(i+3)*ld+n]
			var s0, s1, s2, s3 float64
			for j := range r0 {
				s0 += float64(r0[j])
				s1 += float64(r1[j])
				s2 += float64(r2[j])
				s3 += float64(r3[j])
			}
			out[i], out[i+1], out[i+2], out[i+3] = s0, s1, s2, s3
		}
		for ; i < n; i++ {
			out[i] = sum(i)
		}
		for i, s := range out {
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
