package simcache

import (
	"context"
	"math"
	"runtime"
	"sync"

	"github.com/diverse-select/diverse-select/selectors"
)

// MultiEngine compares candidates that carry several vectors each (a
// ColBERT-style multi-vector: one vector per token) by their symmetric
// Chamfer (MaxSim) similarity:
//
//	d(A→B)   = 1/|A| · Σ_{a∈A} max_{b∈B} cos(a, b)
//	sim(A,B) = (d(A→B) + d(B→A)) / 2
//
// It is a cosine-scaled similarity: in [-1, 1], 1 when every vector of each
// set has a vector of the same direction in the other, symmetric, and the
// strategies read it exactly where they read a cosine (the near-copy rule,
// dedupThreshold, sim+ clipped at 0).
//
// The token vectors are packed, L2-normalised and zero padded as Engine's
// are; a candidate's block of rows is padded to a multiple of 4 so that the
// Gram of two candidates is a run of the engine's 4-row SIMD strips. One
// row of similarities, sim(i, j) for every j, is the Gram of i's tokens
// against every token of the pool, in L2-sized column panels of whole
// candidates, reduced to row and column maxima as each 4 x panel strip comes
// out of the kernel: O(|A|·T·d) for T tokens in all, no T x T matrix. Row and
// Matrix serve the strategies as Engine's do; Unit and Dots (knapsack's
// k-means) read each candidate's mean-pooled unit vector (MeanPool).
//
// A MultiEngine is for one goroutine at a time (Matrix shares its rows among
// cores itself). Once the context given to BindContext is done, it stops
// computing and its values are meaningless: (*selectors.Selector).Run then returns the
// context's error whatever the strategy made of them.
type MultiEngine struct {
	n, dim, stride int
	tok            []float32 // packed unit token rows
	off            []int     // candidate i's rows are off[i] .. off[i+1] (padded to tokAlign)
	cnt            []int     // candidate i's real token count
	pooled         *Engine   // mean-pooled unit vectors (Projector)
	mat            []float32
	hasMat         bool
	nonFinite      int
	ctx            context.Context
	work           multiScratch // Row's and At's scratch
	subs           []*MultiEngine
}

// tokAlign pads each candidate's token rows to the kernels' 4-row strips.
const tokAlign = 4

// multiScratch is one worker's buffers: a 4 x panel strip of products, the
// panel's column maxima, the row maxima's sums per candidate of the panel,
// and one row of similarities.
type multiScratch struct {
	strip, colMax, row []float32
	rowSum             []float64
}

// NewMulti packs and normalises the candidates' multi-vectors (sets[i] is
// candidate i's vectors, all of one dimension). Like New it never fails: an
// empty set has similarity 0 with everything, a vector of another length is
// truncated or zero padded, and a non-finite component is reported by
// NonFinite for the problem's validation to refuse.
func NewMulti(sets [][][]float32) *MultiEngine {
	e := &MultiEngine{n: len(sets), nonFinite: -1}
	for _, s := range sets {
		if len(s) > 0 {
			e.dim = len(s[0])
			break
		}
	}
	e.stride = max(dimAlign, (e.dim+dimAlign-1)/dimAlign*dimAlign)
	e.off = make([]int, e.n+1)
	e.cnt = make([]int, e.n)
	for i, s := range sets {
		e.cnt[i] = len(s)
		e.off[i+1] = e.off[i] + (len(s)+tokAlign-1)/tokAlign*tokAlign
	}
	e.tok = make([]float32, e.off[e.n]*e.stride)
	means := make([][]float32, e.n)
	for i, s := range sets {
		for k, v := range s {
			row := e.tok[(e.off[i]+k)*e.stride : (e.off[i]+k+1)*e.stride]
			copy(row[:e.dim], v[:min(len(v), e.dim)])
			if !normalise(row, row) && e.nonFinite < 0 {
				e.nonFinite = i
			}
		}
		means[i] = e.mean(i)
	}
	e.pooled = pack(means, e.dim) // every mean has e.dim components
	return e
}

// MultiPackedBytes is the memory NewMulti holds for candidates with counts[i]
// vectors of dim components each: the padded token rows and the mean-pooled
// vectors (the N x N matrix, when a strategy asks for it, is counted by the
// strategy's MatrixBytes).
func MultiPackedBytes(counts []int, dim int) int64 {
	stride := max(dimAlign, (dim+dimAlign-1)/dimAlign*dimAlign)
	var rows int64
	for _, c := range counts {
		rows += int64((c + tokAlign - 1) / tokAlign * tokAlign)
	}
	return rows*int64(stride)*4 + PackedBytes(len(counts), dim)
}

// MeanPool is the direction of the mean of a multi-vector's unit vectors:
// the single vector multiVector "mean" compares by cosine, and the one a
// multi-vector candidate carries as its selectors.Candidate.Vector. Zero
// vectors are left out of the mean; a non-finite component makes every
// component NaN (so the problem's validation refuses it, as it would the
// vector itself); an empty set gives nil.
func MeanPool(set [][]float32) []float32 {
	if len(set) == 0 {
		return nil
	}
	sum := make([]float64, len(set[0]))
	for _, v := range set {
		var n2 float64
		for _, x := range v {
			n2 += float64(x) * float64(x)
		}
		if math.IsInf(n2, 0) || math.IsNaN(n2) {
			return unitOf([]float64{math.NaN()}, len(sum))
		}
		if n2 == 0 {
			continue
		}
		inv := 1 / math.Sqrt(n2)
		for j, x := range v[:min(len(v), len(sum))] {
			sum[j] += float64(x) * inv
		}
	}
	return unitOf(sum, len(sum))
}

// mean is MeanPool of candidate i's packed (already unit, finite or marked)
// rows.
func (e *MultiEngine) mean(i int) []float32 {
	sum := make([]float64, e.dim)
	for k := range e.cnt[i] {
		row := e.tok[(e.off[i]+k)*e.stride:]
		for j := range sum {
			sum[j] += float64(row[j])
		}
	}
	return unitOf(sum, e.dim)
}

// unitOf is sum scaled to unit length as dim float32s: zeros for a zero
// sum, NaNs for a non-finite one.
func unitOf(sum []float64, dim int) []float32 {
	var n2 float64
	for _, x := range sum {
		n2 += x * x
	}
	out := make([]float32, dim)
	if math.IsNaN(n2) || math.IsInf(n2, 0) {
		for j := range out {
			out[j] = float32(math.NaN())
		}
		return out
	}
	if n2 == 0 {
		return out
	}
	inv := 1 / math.Sqrt(n2)
	for j, x := range sum {
		out[j] = float32(x * inv)
	}
	return out
}

// Len implements selectors.Similarities.
func (e *MultiEngine) Len() int { return e.n }

// Dim is the vectors' dimension.
func (e *MultiEngine) Dim() int { return e.dim }

// Tokens is the number of vectors of candidate i.
func (e *MultiEngine) Tokens(i int) int { return e.cnt[i] }

// NonFinite implements selectors.FiniteChecker.
func (e *MultiEngine) NonFinite() int { return e.nonFinite }

// BindContext implements selectors.ContextBinder: the engine stops computing
// once ctx is done.
func (e *MultiEngine) BindContext(ctx context.Context) { e.ctx = ctx }

func (e *MultiEngine) stopped() bool { return e.ctx != nil && e.ctx.Err() != nil }

// Unit implements selectors.Projector: candidate i's mean-pooled unit vector
// (shared; do not modify).
func (e *MultiEngine) Unit(i int) []float32 { return e.pooled.Unit(i) }

// Dots implements selectors.Projector over the mean-pooled vectors.
func (e *MultiEngine) Dots(q, dst []float32) { e.pooled.Dots(q, dst) }

// Bytes is the memory the engine holds: packed tokens, pooled vectors, the
// matrix when Matrix ran, and scratch.
func (e *MultiEngine) Bytes() int64 {
	b := int64(len(e.tok)+len(e.mat)+len(e.work.strip)+len(e.work.colMax)+len(e.work.row))*4 +
		int64(len(e.work.rowSum))*8 + int64(len(e.off)+len(e.cnt))*8 + e.pooled.Bytes()
	for _, s := range e.subs {
		b += s.Bytes()
	}
	return b
}

// Release returns the pooled engine's buffers; the engine and every slice
// it returned must not be used afterwards.
func (e *MultiEngine) Release() {
	if e == nil {
		return
	}
	for _, s := range e.subs {
		s.Release()
	}
	e.subs = nil
	e.pooled.Release()
	e.pooled = nil
}

// At implements selectors.Similarities.
func (e *MultiEngine) At(i, j int) float32 {
	if e.hasMat {
		return e.mat[i*e.n+j]
	}
	var v [1]float32
	e.sims(i, j, j+1, v[:], &e.work)
	return v[0]
}

// Row implements selectors.Similarities: dst[j] = sim(i, j). It reads the
// matrix when Matrix has run, so rows and matrix always agree.
func (e *MultiEngine) Row(i int, dst []float32) {
	dst = dst[:e.n]
	if e.hasMat {
		copy(dst, e.mat[i*e.n:(i+1)*e.n])
		return
	}
	e.sims(i, 0, e.n, dst, &e.work)
}

// Matrix implements selectors.Similarities: the n x n matrix, each row
// computed from the diagonal on and mirrored, rows shared among cores when
// the work is large.
func (e *MultiEngine) Matrix() []float32 {
	if e.hasMat {
		return e.mat
	}
	n := e.n
	e.mat = make([]float32, n*n)
	e.upperRows(func(i int, row []float32) {
		for j := i; j < n; j++ {
			e.mat[i*n+j] = row[j-i]
			e.mat[j*n+i] = row[j-i]
		}
	})
	e.hasMat = true
	return e.mat
}

// Cross implements selectors.Crosser. When the targets are the whole pool
// (coverage on pools up to its target count) the block is the matrix with
// its columns in target order, computed as Matrix computes it - each pair
// once, rows shared among cores - straight into the caller's buffer; a
// MaxSim row costs as much as a matrix row, so the rows-per-target fallback
// would compute every pair twice on one core. Fewer targets on a pool of up
// to matrixForRows candidates: the matrix, kept, and the targets' rows read
// from it - coverage centres its kernel with every candidate's mean
// similarity to the pool, which reads every row anyway (Row reads the kept
// matrix): at N = 100 and 32 targets 45 ms row by row on one core against
// about 10 ms for the matrix on two. Larger pools: the targets' rows.
func (e *MultiEngine) Cross(targets []int) ([]float32, int) {
	n, m := e.n, len(targets)
	if m != n && n <= matrixForRows {
		e.Matrix()
	}
	if m != n || e.hasMat {
		return selectors.CrossFromRows(e, targets)
	}
	col := make([]int, n) // candidate -> its column
	for i := range col {
		col[i] = -1
	}
	for t, i := range targets {
		if col[i] >= 0 { // a repeat: not a permutation of the pool
			return selectors.CrossFromRows(e, targets)
		}
		col[i] = t
	}
	out := make([]float32, n*m)
	e.upperRows(func(i int, row []float32) {
		for j := i; j < n; j++ {
			out[i*m+col[j]] = row[j-i]
			out[j*m+col[i]] = row[j-i]
		}
	})
	return out, m
}

// matrixForRows is the largest pool whose matrix Cross keeps for a
// selection that reads every row (1 MiB of float32 at 512 candidates,
// beside the 8 MiB of packed vectors such a pool holds at 32 x 128).
const matrixForRows = 512

// PositivePairSum implements selectors.PositivePairSummer: the sum of
// max(0, sim) over the pairs of idx, row by row without forming the matrix
// (on an engine over idx when idx is not the whole pool); each row's sum is
// kept apart and added in order, so the result does not depend on how many
// workers shared the rows.
func (e *MultiEngine) PositivePairSum(idx []int) float64 {
	if e.hasMat {
		var s float64
		for a, i := range idx {
			for _, j := range idx[a+1:] {
				if v := e.mat[i*e.n+j]; v > 0 {
					s += float64(v)
				}
			}
		}
		return s
	}
	on := e
	if !identity(idx, e.n) {
		on = e.Subset(idx).(*MultiEngine)
	}
	sums := make([]float64, on.n)
	on.upperRows(func(i int, row []float32) {
		var s float64
		for _, v := range row[1:] { // j > i
			if v > 0 {
				s += float64(v)
			}
		}
		sums[i] = s
	})
	var s float64
	for _, x := range sums {
		s += x
	}
	return s
}

// upperRows calls f(i, row) for every candidate i with row[k] = sim(i, i+k),
// k < n-i, on several cores when the work is large (f must only touch what
// row i owns). It stops early once the bound context is done.
func (e *MultiEngine) upperRows(f func(i int, row []float32)) {
	workers := 1
	if t := int64(e.off[e.n]); t*t/2*int64(e.stride) >= parallelMinMAC {
		workers = min(runtime.GOMAXPROCS(0), maxWorkers, e.n)
	}
	run := func(w int, sc *multiScratch) {
		sc.row = grow(sc.row, e.n)
		for i := w; i < e.n; i += workers {
			if e.stopped() {
				return
			}
			row := sc.row[:e.n-i]
			e.sims(i, i, e.n, row, sc)
			f(i, row)
		}
	}
	if workers <= 1 {
		run(0, &e.work)
		return
	}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			var sc multiScratch
			if w == 0 {
				sc = e.work
			}
			run(w, &sc)
		})
	}
	wg.Wait()
}

// sims writes sim(i, j) into dst[j-from] for from <= j < to: i's token rows,
// 4 at a time, against the panels of whole candidates, each 4 x panel strip
// reduced at once into the row maxima (summed per candidate j, in i's token
// order) and the column maxima (per token of the panel).
func (e *MultiEngine) sims(i, from, to int, dst []float32, sc *multiScratch) {
	if e.stopped() {
		return
	}
	stride := e.stride
	mi := e.cnt[i]
	panelRows := max(tokAlign, panelBytes/(stride*4)/tokAlign*tokAlign)
	negInf := float32(math.Inf(-1))
	for j0 := from; j0 < to; {
		j1 := j0 + 1
		for j1 < to && e.off[j1+1]-e.off[j0] <= panelRows {
			j1++
		}
		c0, ncols := e.off[j0], e.off[j1]-e.off[j0]
		if mi == 0 || ncols == 0 {
			for j := j0; j < j1; j++ {
				dst[j-from] = 0 // an empty set is like a zero vector
			}
			j0 = j1
			continue
		}
		sc.strip = grow(sc.strip, tokAlign*ncols)
		sc.colMax = grow(sc.colMax, ncols)
		sc.rowSum = growF64(sc.rowSum, j1-j0)
		for c := range sc.colMax {
			sc.colMax[c] = negInf
		}
		clear(sc.rowSum)
		for r0 := 0; r0 < mi; r0 += tokAlign {
			kern.gramStrip(&e.tok[(e.off[i]+r0)*stride], &e.tok[c0*stride], ncols, stride, &sc.strip[0], nil, ncols)
			valid := min(tokAlign, mi-r0)
			for r := range valid {
				row := sc.strip[r*ncols : (r+1)*ncols]
				for j := j0; j < j1; j++ {
					seg := row[e.off[j]-c0 : e.off[j]-c0+e.cnt[j]]
					if len(seg) > 0 {
						sc.rowSum[j-j0] += float64(maxOf(seg))
					}
				}
			}
			colMaxInto(sc.colMax, sc.strip, ncols, valid)
		}
		for j := j0; j < j1; j++ {
			mj := e.cnt[j]
			if mj == 0 {
				dst[j-from] = 0
				continue
			}
			var s float64
			for _, v := range sc.colMax[e.off[j]-c0 : e.off[j]-c0+mj] {
				s += float64(v)
			}
			dst[j-from] = float32((sc.rowSum[j-j0]/float64(mi) + s/float64(mj)) / 2)
		}
		j0 = j1
	}
}

func maxOf(s []float32) float32 {
	m := s[0]
	for _, v := range s[1:] {
		m = max(m, v)
	}
	return m
}

// colMaxInto folds the first valid rows of the 4 x ncols strip into the
// column maxima m, in one pass (one load and store of m per column).
func colMaxInto(m, strip []float32, ncols, valid int) {
	m = m[:ncols]
	r0, r1, r2, r3 := strip[:ncols], strip[ncols:2*ncols], strip[2*ncols:3*ncols], strip[3*ncols:4*ncols]
	switch valid {
	case 4:
		for c := range m {
			m[c] = max(m[c], r0[c], r1[c], r2[c], r3[c])
		}
	default:
		for r := range valid {
			for c, v := range strip[r*ncols : (r+1)*ncols] {
				m[c] = max(m[c], v)
			}
		}
	}
}

// Subset implements selectors.Subsetter: an engine over the candidates idx
// (in that order), copying their packed rows, released with e.
func (e *MultiEngine) Subset(idx []int) selectors.Similarities {
	s := &MultiEngine{n: len(idx), dim: e.dim, stride: e.stride, nonFinite: -1, ctx: e.ctx,
		off: make([]int, len(idx)+1), cnt: make([]int, len(idx))}
	for a, i := range idx {
		s.cnt[a] = e.cnt[i]
		s.off[a+1] = s.off[a] + e.off[i+1] - e.off[i]
	}
	s.tok = make([]float32, s.off[s.n]*e.stride)
	for a, i := range idx {
		copy(s.tok[s.off[a]*e.stride:s.off[a+1]*e.stride], e.tok[e.off[i]*e.stride:e.off[i+1]*e.stride])
	}
	units := make([][]float32, len(idx))
	for a, i := range idx {
		units[a] = e.pooled.Unit(i)
	}
	s.pooled = pack(units, e.pooled.dim) // rows of one engine
	e.subs = append(e.subs, s)
	return s
}
