package knapsack

import (
	"math/rand/v2"

	"github.com/diverse-select/diverse-select/internal/vecmath"
	"github.com/diverse-select/diverse-select/selectors"
)

const (
	kmeansIterations = 20
	kmeansSeed1      = 0x5eed
	kmeansSeed2      = 0xc0ffee
)

// kmeans clusters the n unit vectors of u (dimension dim) into m clusters:
// k-means++ seeding from a fixed seed, then at most 20 Lloyd iterations
// (stopping early at a fixed point, which changes nothing). Ties go to the
// lower cluster index; an empty cluster keeps its centre. Zero vectors stay
// zero and cluster like any point. Deterministic for a given input.
//
// Squared distances are |x|^2 + |c|^2 - 2 x.c with float32 dot products:
// the assignment step is one projection of every point on each centre
// (Projector.Dots, a SIMD pass with the simcache engine), which is where
// the time goes (20 * N * m * dim). The projections of an iteration take
// O(N*m) memory.
func kmeans(u selectors.Projector, n, dim, m int) []int {
	rng := rand.New(rand.NewPCG(kmeansSeed1, kmeansSeed2))
	centres := make([]float32, m*dim)
	cnorm := make([]float32, m)
	xnorm := make([]float32, n)
	for i := range xnorm {
		x := u.Unit(i)
		xnorm[i] = vecmath.Dot(x, x)
	}
	centre := func(c int) []float32 { return centres[c*dim : (c+1)*dim] }
	setCentre := func(c, i int) {
		copy(centre(c), u.Unit(i))
		cnorm[c] = xnorm[i]
	}
	// proj[c*n+i] = x_i . centre_c, refreshed by project(c).
	proj := make([]float32, m*n)
	project := func(c int) { u.Dots(centre(c), proj[c*n:(c+1)*n]) }
	dist := func(i, c int) float64 {
		return max(0, float64(xnorm[i]+cnorm[c]-2*proj[c*n+i]))
	}
	// k-means++: the first centre uniformly, then by squared distance.
	first := rng.IntN(n)
	setCentre(0, first)
	project(0)
	chosen := make([]bool, n)
	chosen[first] = true
	d2 := make([]float64, n)
	for i := range d2 {
		d2[i] = dist(i, 0)
	}
	for c := 1; c < m; c++ {
		var total float64
		for _, d := range d2 {
			total += d
		}
		pick := -1
		if total > 0 {
			x := rng.Float64() * total
			for i, d := range d2 {
				if x -= d; x < 0 && d > 0 {
					pick = i
					break
				}
			}
		}
		if pick < 0 { // all points sit on centres, or rounding ran out: take the farthest unused (first on ties)
			for i := range chosen {
				if !chosen[i] && (pick < 0 || d2[i] > d2[pick]) {
					pick = i
				}
			}
		}
		chosen[pick] = true
		setCentre(c, pick)
		project(c)
		for i := range d2 {
			d2[i] = min(d2[i], dist(i, c))
		}
	}
	labels := make([]int, n)
	sums := make([]float64, m*dim)
	counts := make([]int, m)
	for it := 0; it < kmeansIterations; it++ {
		changed := it == 0
		if it > 0 { // the seeding projected the first iteration's centres
			for c := 0; c < m; c++ {
				project(c)
			}
		}
		for i := range labels {
			best, bestD := 0, dist(i, 0)
			for c := 1; c < m; c++ {
				if d := dist(i, c); d < bestD {
					best, bestD = c, d
				}
			}
			if labels[i] != best {
				labels[i], changed = best, true
			}
		}
		if !changed {
			break
		}
		clear(sums)
		clear(counts)
		for i, l := range labels {
			counts[l]++
			for j, x := range u.Unit(i) {
				sums[l*dim+j] += float64(x)
			}
		}
		for c := 0; c < m; c++ {
			if counts[c] == 0 {
				continue
			}
			cc := centre(c)
			for j := range cc {
				cc[j] = float32(sums[c*dim+j] / float64(counts[c]))
			}
			cnorm[c] = vecmath.Dot(cc, cc)
		}
	}
	return labels
}
