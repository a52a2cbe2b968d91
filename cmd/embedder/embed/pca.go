package embed

import (
	"math"

	"github.com/x448/float16"
	"gonum.org/v1/gonum/mat"
)

// pcaBlock is the number of rows decoded into one block of the covariance's
// rank-k update.
const pcaBlock = 256

// principalDirections returns the mean of the rows of the rows x dims
// half-float matrix and the top k unit eigenvectors of the covariance of
// the centred rows, largest eigenvalue first, each signed so that its
// largest component is positive. The dims x dims covariance is accumulated
// by gonum's rank-k update over blocks of rows and decomposed by
// mat.EigenSym; directions whose variance is zero up to rounding are left
// out.
func principalDirections(halves []uint16, dims, k int) (mean []float64, dirs [][]float64) {
	rows := len(halves) / dims
	mean = make([]float64, dims)
	for r := 0; r < rows; r++ {
		for i, h := range halves[r*dims : (r+1)*dims] {
			mean[i] += float64(float16.Frombits(h).Float32())
		}
	}
	for i := range mean {
		mean[i] /= float64(rows)
	}
	if k == 0 || rows == 0 {
		return mean, nil
	}
	cov := mat.NewSymDense(dims, nil)
	block := mat.NewDense(min(pcaBlock, rows), dims, nil)
	for from := 0; from < rows; from += pcaBlock {
		n := min(pcaBlock, rows-from)
		b := block.Slice(0, n, 0, dims).(*mat.Dense)
		for r := range n {
			row := b.RawRowView(r)
			for i, h := range halves[(from+r)*dims : (from+r+1)*dims] {
				row[i] = float64(float16.Frombits(h).Float32()) - mean[i]
			}
		}
		cov.SymRankK(cov, 1, b.T())
	}
	var eig mat.EigenSym
	if !eig.Factorize(cov, true) {
		return mean, nil // no convergence; the caller removes only the mean
	}
	values := eig.Values(nil) // ascending
	var vecs mat.Dense
	eig.VectorsTo(&vecs)
	first := values[dims-1]
	for c := dims - 1; c >= 0 && len(dirs) < k; c-- {
		if values[c] <= 1e-9*first {
			break // the remaining variance is zero up to rounding
		}
		dirs = append(dirs, signed(mat.Col(nil, c, &vecs)))
	}
	return mean, dirs
}

// signed flips v so that its largest component is positive: an eigenvector's
// sign is arbitrary, and a fixed one keeps the directions deterministic.
func signed(v []float64) []float64 {
	big := 0
	for i, x := range v {
		if math.Abs(x) > math.Abs(v[big]) {
			big = i
		}
	}
	if v[big] < 0 {
		for i := range v {
			v[i] = -v[i]
		}
	}
	return v
}

// projectOut removes from v its components along the unit vectors dirs.
func projectOut(v []float64, dirs [][]float64) {
	for _, u := range dirs {
		var dot float64
		for i, x := range u {
			dot += v[i] * x
		}
		for i, x := range u {
			v[i] -= dot * x
		}
	}
}
