package simcache

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/diverse-select/diverse-select/internal/vecmath"
)

// naiveCos is the float64 reference: cos(a, b), 0 when either is zero.
var naiveCos = vecmath.Cosine

func randomVectors(rng *rand.Rand, n, dim int) [][]float32 {
	out := make([][]float32, n)
	for i := range out {
		out[i] = make([]float32, dim)
		for j := range out[i] {
			out[i][j] = float32(rng.NormFloat64())
		}
		if i%7 == 3 { // near-duplicate of the previous vector
			for j := range out[i] {
				out[i][j] = out[i-1][j] + 0.01*out[i][j]
			}
		}
	}
	if n > 5 {
		out[5] = make([]float32, dim) // a zero vector
	}
	return out
}

// withKernels runs f once per kernel set this CPU supports.
func withKernels(t *testing.T, f func(t *testing.T)) {
	saved := kern
	defer func() { kern = saved }()
	for _, k := range availableKernels() {
		kern = k
		t.Run(k.name, f)
	}
}

// TestEngineMatchesNaive: rows, matrix, At and the positive pair sum agree
// with the float64 reference for odd sizes and dimensions, on every kernel.
func TestEngineMatchesNaive(t *testing.T) {
	withKernels(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(1, 2))
		for _, tc := range []struct{ n, dim int }{
			{0, 8}, {1, 1}, {2, 3}, {3, 17}, {5, 16}, {7, 31}, {8, 32}, {9, 33},
			{13, 100}, {31, 128}, {33, 384}, {65, 97}, {130, 768}, {257, 50}, {300, 1536},
		} {
			t.Run(fmt.Sprintf("n=%d/d=%d", tc.n, tc.dim), func(t *testing.T) {
				vecs := randomVectors(rng, tc.n, tc.dim)
				e := must(New(vecs))
				defer e.Release()
				require.Equal(t, tc.n, e.Len())
				const tol = 2e-5
				row := make([]float32, tc.n)
				var wantPairs float64
				for i := 0; i < tc.n; i++ {
					e.Row(i, row)
					for j := 0; j < tc.n; j++ {
						want := naiveCos(vecs[i], vecs[j])
						require.InDelta(t, want, row[j], tol, "row %d col %d", i, j)
						require.InDelta(t, want, e.At(i, j), tol, "at %d %d", i, j)
						if j > i {
							wantPairs += max(0, want)
						}
					}
				}
				all := make([]int, tc.n)
				for i := range all {
					all[i] = i
				}
				require.InDelta(t, wantPairs, e.PositivePairSum(all), 1e-4*float64(tc.n*tc.n+1))
				// A subset in another order: pairs of the subset only.
				if tc.n > 3 {
					sub := []int{tc.n - 1, 0, tc.n / 2, 2}
					var want float64
					for a := range sub {
						for b := a + 1; b < len(sub); b++ {
							want += max(0, naiveCos(vecs[sub[a]], vecs[sub[b]]))
						}
					}
					require.InDelta(t, want, e.PositivePairSum(sub), 1e-4)
				}
				if tc.dim > 0 {
					q := make([]float32, tc.dim)
					for j := range q {
						q[j] = float32(rng.NormFloat64())
					}
					e.Dots(q, row)
					for j := 0; j < tc.n; j++ {
						var want float64
						for x, v := range e.Unit(j) {
							want += float64(v) * float64(q[x])
						}
						require.InDelta(t, want, row[j], 1e-4, "dots %d", j)
					}
				}
				m := e.Matrix()
				require.Len(t, m, tc.n*tc.n)
				for i := 0; i < tc.n; i++ {
					for j := 0; j < tc.n; j++ {
						require.InDelta(t, naiveCos(vecs[i], vecs[j]), m[i*tc.n+j], tol, "matrix %d %d", i, j)
						require.Equal(t, m[i*tc.n+j], m[j*tc.n+i], "symmetric %d %d", i, j)
					}
					e.Row(i, row)
					require.Equal(t, m[i*tc.n:(i+1)*tc.n], row, "row after matrix")
				}
				require.InDelta(t, wantPairs, e.PositivePairSum(all), 1e-4*float64(tc.n*tc.n+1))
			})
		}
	})
}

// TestEngineParallelMatrix: a matrix large enough to be split over workers
// equals the single-worker one bit for bit.
func TestEngineParallelMatrix(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	vecs := randomVectors(rng, 517, 300)
	require.GreaterOrEqual(t, 520*520/2*304, parallelMinMAC, "the test must take the parallel path")
	e := must(New(vecs))
	m := append([]float32(nil), e.Matrix()...)
	e.Release()
	e = must(New(vecs))
	defer e.Release()
	// The pair sum does not depend on the number of workers, bit for bit.
	all := make([]int, 517)
	for i := range all {
		all[i] = i
	}
	par := e.PositivePairSum(all)
	clear(e.blockSums)
	e.pairBlocks(e.unit, e.rows, 0, 1, e.strips[0])
	var one float64
	for _, b := range e.blockSums {
		one += b
	}
	require.Equal(t, one, par)
	e.mat = grow(e.mat, e.rows*e.rows)
	e.gramBlocks(e.mat, 0, 1)
	for i := 0; i < 517; i++ {
		for j := 0; j < 517; j++ {
			require.Equal(t, e.mat[i*e.rows+j], m[i*517+j])
		}
	}
}

// TestEngineReuse: a pooled engine reused for a smaller problem holds no
// stale rows or matrix.
func TestEngineReuse(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	big := must(New(randomVectors(rng, 100, 64)))
	big.Matrix()
	big.Release()
	vecs := randomVectors(rng, 10, 20)
	e := must(New(vecs))
	defer e.Release()
	m := e.Matrix()
	for i := 0; i < 10; i++ {
		for j := 0; j < 10; j++ {
			require.InDelta(t, naiveCos(vecs[i], vecs[j]), m[i*10+j], 2e-5)
		}
	}
	all := make([]int, 10)
	for i := range all {
		all[i] = i
	}
	var want float64
	for i := 0; i < 10; i++ {
		for j := i + 1; j < 10; j++ {
			want += max(0, naiveCos(vecs[i], vecs[j]))
		}
	}
	require.InDelta(t, want, e.PositivePairSum(all), 1e-4)
}

// TestEngineAdversarial: non-finite and huge vectors never panic (mismatched
// ones are refused: TestEngineOtherLengths).
func TestEngineAdversarial(t *testing.T) {
	inf := float32(math.Inf(1))
	nan := float32(math.NaN())
	for name, vecs := range map[string][][]float32{
		"nan":       {{1, 2}, {nan, 1}},
		"inf":       {{inf, 0}, {1, 1}},
		"huge":      {{3e19, 4e19}, {1, 0}},
		"with nil":  {{1, 2, 3}, nil, {1, 2, 3}},
		"empty dim": {{}, {}},
	} {
		t.Run(name, func(t *testing.T) {
			e := must(New(vecs))
			defer e.Release()
			row := make([]float32, len(vecs))
			for i := range vecs {
				e.Row(i, row)
				_ = e.At(i, 0)
			}
			_ = e.Matrix()
			_ = e.PositivePairSum([]int{0, 1})
		})
	}
	e := must(New([][]float32{{3e19, 4e19}, {3, 4}}))
	defer e.Release()
	require.InDelta(t, 1, e.At(0, 1), 1e-6, "a norm that overflows float32 is taken in float64")
	require.Equal(t, -1, e.NonFinite())
}

func TestEngineNonFinite(t *testing.T) {
	inf := float32(math.Inf(-1))
	nan := float32(math.NaN())
	for _, tc := range []struct {
		vecs [][]float32
		want int
	}{
		{[][]float32{{1, 2}, {3, 4}}, -1},
		{[][]float32{{1, 2}, {nan, 4}, {inf, 1}}, 1},
		{[][]float32{{3e38, 3e38}, {1, inf}}, 1},
		{[][]float32{{0, 0}, nil, {1e30, -1e30}}, -1},
		{[][]float32{make([]float32, 37), append(make([]float32, 36), nan)}, 1},
		// A pool packed on several cores: the first non-finite vector, not
		// the first a core found.
		{bigPool(600, 768, map[int]float32{500: nan, 450: inf, 599: nan}), 450},
		{bigPool(600, 768, nil), -1},
	} {
		e := must(New(tc.vecs))
		require.Equal(t, tc.want, e.NonFinite(), "%v", tc.vecs)
		e.Release()
	}
}

// bigPool is n vectors of dim ones, bad[i] put into vector i.
func bigPool(n, dim int, bad map[int]float32) [][]float32 {
	out := make([][]float32, n)
	for i := range out {
		out[i] = make([]float32, dim)
		for j := range out[i] {
			out[i][j] = 1
		}
		if x, ok := bad[i]; ok {
			out[i][dim/2] = x
		}
	}
	return out
}

// TestEngineSubset: a subset engine gives the parent's similarities of the
// chosen candidates, in the subset's order, and is released with it.
func TestEngineSubset(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	vecs := randomVectors(rng, 30, 20)
	e := must(New(vecs))
	idx := []int{29, 3, 17, 0, 8}
	sub := e.Subset(idx)
	require.Equal(t, len(idx), sub.Len())
	row := make([]float32, len(idx))
	for a, i := range idx {
		sub.Row(a, row)
		for b, j := range idx {
			require.InDelta(t, naiveCos(vecs[i], vecs[j]), row[b], 2e-5)
		}
	}
	m := sub.Matrix()
	require.InDelta(t, naiveCos(vecs[29], vecs[17]), m[0*5+2], 2e-5)
	require.Len(t, e.subs, 1)
	e.Release()
	require.Empty(t, e.subs)
}

// TestEngineReleaseDropsLargeBuffers: a released engine keeps small buffers
// for the next query and drops those above maxPooledFloats, so the pool does
// not hold large-pool queries' matrices after they finished.
func TestEngineReleaseDropsLargeBuffers(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	for _, tc := range []struct {
		n, dim          int
		keepMat, keepVs bool
	}{
		{100, 64, true, true},
		{1024, 16, true, true},  // exactly 1<<20 matrix floats
		{1100, 16, false, true}, // matrix above the bound, vectors below
		{1100, 1024, false, false},
	} {
		e := must(New(randomVectors(rng, tc.n, tc.dim)))
		e.Matrix()
		e.Release()
		require.Equal(t, tc.keepMat, e.mat != nil, "n %d dim %d: matrix kept", tc.n, tc.dim)
		require.Equal(t, tc.keepVs, e.unit != nil, "n %d dim %d: vectors kept", tc.n, tc.dim)
	}
}

// TestEngineKeepsLargeVectors: the packed vectors of a large pool, dropped
// from the released engine, are kept in largeVectors (one per core at most)
// and reused by the next large pool, whose similarities stay right.
func TestEngineKeepsLargeVectors(t *testing.T) {
	for len(largeVectors) > 0 { // what other tests left
		<-largeVectors
	}
	rng := rand.New(rand.NewPCG(10, 11))
	const n, dim = 1100, 1024 // 1100 x 1024 floats: above maxPooledFloats
	engs := make([]*Engine, cap(largeVectors)+2)
	for i := range engs {
		engs[i] = must(New(randomVectors(rng, n, dim)))
	}
	for _, e := range engs {
		e.Release()
	}
	require.Len(t, largeVectors, cap(largeVectors), "kept: one per core, the rest dropped")

	vecs := randomVectors(rng, n, dim)
	e := must(New(vecs))
	defer e.Release()
	require.Len(t, largeVectors, cap(largeVectors)-1, "the new engine took a kept buffer")
	require.InDelta(t, naiveCos(vecs[3], vecs[1000]), e.At(3, 1000), 2e-5)

	small := must(New(randomVectors(rng, 10, dim))) // small pools never take one
	defer small.Release()
	require.Len(t, largeVectors, cap(largeVectors)-1)
}

// TestEngineCross: Cross agrees with At for the whole pool in order (the
// upper-triangle path), part of it, an unsorted subset with a repeat, and
// a pool large enough to be split over the cores, on every kernel; it leaves
// the Matrix cache alone.
func TestEngineCross(t *testing.T) {
	withKernels(t, func(t *testing.T) {
		for _, tc := range []struct{ n, dim int }{{1, 3}, {13, 17}, {37, 100}, {700, 160}} {
			vecs := randomVectors(rand.New(rand.NewPCG(uint64(tc.n), 9)), tc.n, tc.dim)
			all := make([]int, tc.n)
			for i := range all {
				all[i] = i
			}
			some := []int{tc.n - 1, 0, tc.n / 2, tc.n - 1}
			for _, targets := range [][]int{all, some, all[:max(1, tc.n/3)]} {
				e := must(New(vecs))
				block, ld := e.Cross(targets)
				require.GreaterOrEqual(t, ld, len(targets))
				require.Len(t, block, tc.n*ld)
				for i := range tc.n {
					for c, j := range targets {
						require.InDelta(t, e.At(i, j), block[i*ld+c], 1e-5, "n %d, cos(%d,%d)", tc.n, i, j)
					}
				}
				require.False(t, e.hasMat, "Cross formed the matrix cache")
				e.Release()
			}
		}
	})
}

// TestEngineRowMeans: RowMeans (v_i . mu) equals the row means of the
// cosines, zero vector included.
func TestEngineRowMeans(t *testing.T) {
	for _, n := range []int{1, 9, 40} {
		e := must(New(randomVectors(rand.New(rand.NewPCG(uint64(n), 3)), n, 21)))
		got := make([]float64, n)
		mean := e.RowMeans(got)
		var all float64
		for i := range n {
			var s float64
			for j := range n {
				s += float64(e.At(i, j))
			}
			require.InDelta(t, s/float64(n), got[i], 1e-5, "n %d, row %d", n, i)
			all += s
		}
		require.InDelta(t, all/float64(n*n), mean, 1e-5)
		e.Release()
	}
}

// TestSumRowsExact: every kernel set's column sums are the Go loop's to
// the bit (RowMeans's mean vector, hence coverage's centring, must not
// depend on the CPU), for dimensions with and without a tail of fewer than
// 32 components.
func TestSumRowsExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, tc := range []struct{ n, dim int }{{1, 16}, {3, 32}, {7, 48}, {50, 768}, {33, 1536}, {9, 100}} {
		vecs := randomVectors(rng, tc.n, tc.dim)
		e := must(New(vecs))
		want := make([]float64, tc.dim)
		sumRowsGo(want, e.unit, e.n, e.stride)
		for _, k := range availableKernels() {
			got := make([]float64, tc.dim)
			k.sumRows(got, e.unit, e.n, e.stride)
			require.Equal(t, want, got, "%s n=%d d=%d", k.name, tc.n, tc.dim)
		}
		e.Release()
	}
}

// TestEngineOtherLengths: a vector whose length is not the first one's is
// refused, with an error naming both; nil vectors are taken anywhere, as
// zero rows.
func TestEngineOtherLengths(t *testing.T) {
	for _, tc := range []struct {
		name string
		vecs [][]float32
		err  string // "" = packed
	}{
		{"longer", [][]float32{{1, 0, 0}, {1, 2, 3, 4}}, "vector 1 has 4 dimensions, expected 3 (those of vector 0)"},
		{"shorter", [][]float32{{1, 0, 0}, {1, 2, 3}, {1}}, "vector 2 has 1 dimensions, expected 3"},
		{"empty, not nil", [][]float32{{1, 0}, {}}, "vector 1 has 0 dimensions, expected 2"},
		{"after a nil", [][]float32{nil, {1, 2}, {1, 2, 3}}, "expected 2 (those of vector 1)"},
		{"nil anywhere", [][]float32{nil, {3, 4}, nil, {0, 2}}, ""},
		{"all nil", [][]float32{nil, nil}, ""},
		{"none", nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, err := New(tc.vecs)
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				require.Nil(t, e)
				return
			}
			require.NoError(t, err)
			defer e.Release()
			require.Equal(t, len(tc.vecs), e.Len())
			if len(tc.vecs) == 4 {
				require.InDelta(t, 0.8, e.At(1, 3), 1e-6)
				require.Zero(t, e.At(0, 1), "a nil vector is similar to nothing")
			}
		})
	}
}

// must is v, failing the test (by a panic) on err.
func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
