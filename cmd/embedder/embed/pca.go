package embed

import (
	"math"

	"github.com/x448/float16"
)

// principalDirections returns the mean of the rows of the rows x dims
// half-float matrix and the top k unit eigenvectors of the covariance of
// the centred rows, largest eigenvalue first. The dims x dims covariance is
// accumulated once (0.5 G multiply-adds for 100k x 100) and its
// eigenvectors found by power iteration with deflation, which is exact
// enough for removing a few dominant directions.
func principalDirections(halves []uint16, dims, k int) (mean []float64, dirs [][]float64) {
	rows := len(halves) / dims
	mean = make([]float64, dims)
	row := make([]float64, dims)
	for r := 0; r < rows; r++ {
		for i, h := range halves[r*dims : (r+1)*dims] {
			mean[i] += float64(float16.Frombits(h).Float32())
		}
	}
	for i := range mean {
		mean[i] /= float64(rows)
	}
	if k == 0 {
		return mean, nil
	}
	cov := make([]float64, dims*dims)
	for r := 0; r < rows; r++ {
		for i, h := range halves[r*dims : (r+1)*dims] {
			row[i] = float64(float16.Frombits(h).Float32()) - mean[i]
		}
		// Upper triangle only; mirrored below.
		for i, ri := range row {
			c := cov[i*dims : (i+1)*dims]
			for j := i; j < dims; j++ {
				c[j] += ri * row[j]
			}
		}
	}
	for i := 0; i < dims; i++ {
		for j := 0; j < i; j++ {
			cov[i*dims+j] = cov[j*dims+i]
		}
	}
	var first float64
	for ; k > 0; k-- {
		v, lambda := powerIteration(cov, dims)
		if first == 0 {
			first = lambda
		}
		if lambda <= 1e-9*first {
			break // the remaining variance is zero up to rounding
		}
		dirs = append(dirs, v)
		// Deflate: cov -= lambda v v^T.
		for i := 0; i < dims; i++ {
			for j := 0; j < dims; j++ {
				cov[i*dims+j] -= lambda * v[i] * v[j]
			}
		}
	}
	return mean, dirs
}

// powerIteration returns the dominant unit eigenvector of the symmetric
// positive semi-definite n x n matrix m and its eigenvalue.
func powerIteration(m []float64, n int) ([]float64, float64) {
	v := make([]float64, n)
	for i := range v {
		// A fixed, non-symmetric start keeps the result deterministic and
		// unlikely to be orthogonal to the dominant eigenvector.
		v[i] = 1 + float64(i)/float64(n)
	}
	w := make([]float64, n)
	var lambda float64
	for iter := 0; iter < 500; iter++ {
		for i := range w {
			var s float64
			for j, x := range m[i*n : (i+1)*n] {
				s += x * v[j]
			}
			w[i] = s
		}
		var norm float64
		for _, x := range w {
			norm += x * x
		}
		norm = math.Sqrt(norm)
		if norm == 0 {
			return v, 0
		}
		var change float64
		for i := range w {
			x := w[i] / norm
			change += math.Abs(x - v[i])
			v[i] = x
		}
		lambda = norm
		if change < 1e-12 {
			break
		}
	}
	return v, lambda
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
