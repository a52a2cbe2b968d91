package simcache

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// naiveChamfer is the float64 reference of the symmetric Chamfer similarity:
// the mean of the two directional average-max cosines; 0 when a set is empty.
func naiveChamfer(a, b [][]float32) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	dir := func(x, y [][]float32) float64 {
		var s float64
		for _, u := range x {
			m := math.Inf(-1)
			for _, v := range y {
				m = math.Max(m, naiveCos(u, v))
			}
			s += m
		}
		return s / float64(len(x))
	}
	return (dir(a, b) + dir(b, a)) / 2
}

// randomSets makes n multi-vectors of 1..maxTok vectors (dim d): every fifth
// a shuffled near-copy of the one before, one empty set and one holding a
// zero vector when n allows.
func randomSets(rng *rand.Rand, n, maxTok, d int) [][][]float32 {
	out := make([][][]float32, n)
	for i := range out {
		out[i] = randomVectors(rng, 1+rng.IntN(maxTok), d)
		if i%5 == 4 {
			prev := out[i-1]
			cp := make([][]float32, len(prev))
			for k, p := range rng.Perm(len(prev)) {
				cp[k] = make([]float32, d)
				for j := range cp[k] {
					cp[k][j] = prev[p][j] + 0.01*float32(rng.NormFloat64())
				}
			}
			out[i] = cp
		}
	}
	if n > 6 {
		out[6] = nil
	}
	if n > 2 {
		out[2][0] = make([]float32, d)
	}
	return out
}

// TestMultiEngineMatchesNaive: rows, matrix, At and the positive pair sums
// (whole pool and a subset) agree with the float64 reference, for odd token
// counts and dimensions and pools wider than one L2 panel, on every kernel.
func TestMultiEngineMatchesNaive(t *testing.T) {
	withKernels(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(3, 4))
		for _, tc := range []struct{ n, maxTok, dim int }{
			{0, 4, 8}, {1, 1, 1}, {2, 3, 3}, {3, 5, 17}, {7, 9, 31}, {9, 4, 128},
			{13, 33, 64}, {60, 36, 128}, {20, 64, 384}, {8, 130, 200},
		} {
			t.Run(fmt.Sprintf("n=%d/tok=%d/d=%d", tc.n, tc.maxTok, tc.dim), func(t *testing.T) {
				sets := randomSets(rng, tc.n, tc.maxTok, tc.dim)
				e := NewMulti(sets)
				defer e.Release()
				require.Equal(t, tc.n, e.Len())
				require.Equal(t, -1, e.NonFinite())
				const tol = 3e-5
				want := make([][]float64, tc.n)
				var wantPairs float64
				for i := range want {
					want[i] = make([]float64, tc.n)
					for j := range want[i] {
						want[i][j] = naiveChamfer(sets[i], sets[j])
						if j > i {
							wantPairs += max(0, want[i][j])
						}
					}
				}
				row := make([]float32, tc.n)
				for i := range tc.n {
					e.Row(i, row)
					for j := range tc.n {
						require.InDelta(t, want[i][j], row[j], tol, "row %d col %d", i, j)
						require.InDelta(t, want[i][j], e.At(i, j), tol, "at %d %d", i, j)
					}
				}
				require.InDelta(t, wantPairs, e.PositivePairSum(identityIdx(tc.n)), tol*float64(tc.n*tc.n+1))
				if tc.n > 3 {
					sub := []int{tc.n - 1, 0, 2}
					var ws float64
					for a, i := range sub {
						for _, j := range sub[a+1:] {
							ws += max(0, want[i][j])
						}
					}
					require.InDelta(t, ws, e.PositivePairSum(sub), 1e-4)
					s := e.Subset(sub)
					for a, i := range sub {
						for b, j := range sub {
							require.InDelta(t, want[i][j], s.At(a, b), tol)
						}
					}
				}
				// Cross before the matrix exists: a permutation of the whole
				// pool (the symmetric path), and a subset with a repeat (rows).
				perm := rng.Perm(tc.n)
				crossTargets := [][]int{perm}
				if tc.n > 0 {
					crossTargets = append(crossTargets, append(perm[:tc.n/2:tc.n/2], perm[0]))
				}
				if tc.n > 1 { // as many targets as candidates, one repeated
					crossTargets = append(crossTargets, append(perm[:tc.n-1:tc.n-1], perm[0]))
				}
				for _, targets := range crossTargets {
					block, ld := e.Cross(targets)
					require.GreaterOrEqual(t, ld, len(targets))
					for i := range tc.n {
						for c, j := range targets {
							require.InDelta(t, want[i][j], block[i*ld+c], tol, "cross %d target %d", i, j)
						}
					}
				}
				m := e.Matrix()
				for i := range tc.n {
					for j := range tc.n {
						require.InDelta(t, want[i][j], m[i*tc.n+j], tol)
						require.Equal(t, m[i*tc.n+j], m[j*tc.n+i], "matrix not symmetric at %d %d", i, j)
					}
					e.Row(i, row)
					require.Equal(t, m[i*tc.n:(i+1)*tc.n], row, "row %d after Matrix", i)
				}
				require.InDelta(t, wantPairs, e.PositivePairSum(identityIdx(tc.n)), tol*float64(tc.n*tc.n+1))
			})
		}
	})
}

// TestMultiEngineCases: the similarity's defining cases, exactly.
func TestMultiEngineCases(t *testing.T) {
	x, y, z := []float32{1, 0, 0}, []float32{0, 1, 0}, []float32{0, 0, 1}
	neg := []float32{-1, 0, 0}
	for _, tc := range []struct {
		name string
		a, b [][]float32
		want float64
	}{
		{"identical sets", [][]float32{x, y}, [][]float32{x, y}, 1},
		{"same set, other order and scale", [][]float32{x, y}, [][]float32{{0, 5, 0}, {2, 0, 0}}, 1},
		{"subset: one direction 1, the other 1/2", [][]float32{x}, [][]float32{x, y}, 0.75},
		{"orthogonal", [][]float32{x}, [][]float32{y, z}, 0},
		{"opposite", [][]float32{x}, [][]float32{neg}, -1},
		{"duplicates do not count twice", [][]float32{x, x, x}, [][]float32{x, y}, 0.75},
		{"empty set", nil, [][]float32{x}, 0},
		{"zero vector is orthogonal to all", [][]float32{{0, 0, 0}}, [][]float32{x}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := NewMulti([][][]float32{tc.a, tc.b})
			defer e.Release()
			require.InDelta(t, tc.want, e.At(0, 1), 1e-6)
			require.InDelta(t, tc.want, e.At(1, 0), 1e-6)
			require.InDelta(t, tc.want, naiveChamfer(tc.a, tc.b), 1e-12, "the reference disagrees")
		})
	}
}

// TestMultiEngineNonFinite: a NaN or infinite component is reported with
// its candidate, for the problem's validation to refuse.
func TestMultiEngineNonFinite(t *testing.T) {
	for _, bad := range []float32{float32(math.NaN()), float32(math.Inf(1))} {
		e := NewMulti([][][]float32{{{1, 2}}, {{3, 4}, {bad, 1}}})
		require.Equal(t, 1, e.NonFinite())
		e.Release()
	}
}

// TestMeanPool: the direction of the mean of the unit vectors; zero vectors
// left out, a non-finite one makes it NaN; the engine's pooled vectors are
// the same.
func TestMeanPool(t *testing.T) {
	set := [][]float32{{2, 0}, {0, 3}, {0, 0}}
	got := MeanPool(set)
	require.InDeltaSlice(t, []float32{float32(math.Sqrt2 / 2), float32(math.Sqrt2 / 2)}, got, 1e-6)
	require.Nil(t, MeanPool(nil))
	require.True(t, math.IsNaN(float64(MeanPool([][]float32{{1, 0}, {float32(math.Inf(1)), 0}})[1])))
	e := NewMulti([][][]float32{set})
	defer e.Release()
	require.InDeltaSlice(t, got, e.Unit(0), 1e-6)
	dst := make([]float32, 1)
	e.Dots([]float32{1, 0}, dst)
	require.InDelta(t, got[0], dst[0], 1e-6)
}

// TestMultiEngineStops: once the bound context is done, Matrix and Row
// return without computing (the selection then fails with the context's
// error; see (*selectors.Selector).Run).
func TestMultiEngineStops(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	e := NewMulti(randomSets(rng, 50, 8, 32))
	defer e.Release()
	c, cancel := context.WithCancel(context.Background())
	e.BindContext(c)
	cancel()
	m := e.Matrix()
	for _, v := range m {
		require.Zero(t, v)
	}
}

// TestMultiPackedBytes: the estimate is what NewMulti allocates for the
// tokens plus the pooled vectors.
func TestMultiPackedBytes(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	sets := randomSets(rng, 30, 40, 100)
	counts := make([]int, len(sets))
	for i, s := range sets {
		counts[i] = len(s)
	}
	e := NewMulti(sets)
	defer e.Release()
	require.Equal(t, int64(len(e.tok))*4+PackedBytes(len(sets), 100), MultiPackedBytes(counts, 100))
}

func identityIdx(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// TestMultiCrossFewerTargets: with fewer targets than candidates, Cross on a
// pool of up to matrixForRows keeps the matrix (every later row is read from
// it) and its block is the matrix's target columns, in target order; on a
// larger pool it computes the targets' rows and keeps no matrix. Either way
// the block agrees with the float64 reference.
func TestMultiCrossFewerTargets(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, tc := range []struct {
		n        int
		targets  []int
		keepsMat bool
	}{
		{n: 40, targets: []int{7, 0, 39, 12}, keepsMat: true},
		{n: matrixForRows, targets: []int{3, 1}, keepsMat: true},
		{n: matrixForRows + 1, targets: []int{matrixForRows, 2}, keepsMat: false},
	} {
		t.Run(fmt.Sprintf("n=%d", tc.n), func(t *testing.T) {
			sets := randomSets(rng, tc.n, 3, 8)
			e := NewMulti(sets)
			defer e.Release()
			out, ld := e.Cross(tc.targets)
			require.Equal(t, tc.keepsMat, e.hasMat)
			for _, i := range []int{0, tc.n / 2, tc.n - 1} {
				for k, j := range tc.targets {
					require.InDelta(t, naiveChamfer(sets[i], sets[j]), out[i*ld+k], 3e-5, "row %d target %d", i, j)
					if tc.keepsMat {
						require.Equal(t, e.mat[i*tc.n+j], out[i*ld+k], "the matrix's column")
					}
				}
			}
		})
	}
}
