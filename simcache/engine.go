package simcache

import (
	"fmt"
	"math"
	"runtime"
	"sync"
	"unsafe"

	"github.com/diverse-select/diverse-select/internal/workshare"
	"github.com/diverse-select/diverse-select/selectors"
)

// kern is the kernel set every engine uses: the first of availableKernels,
// i.e. our AVX-512 kernels where the CPU has them, else AVX2, else Go.
//
// Why ours and not Weaviate's distancer or gonum (BenchmarkGram; the
// figures are in docs/performance.md, "Which kernel, and why"): a Gram
// matrix built from one-pair dot products needs two loads per FMA, so it
// runs at half the FMA rate at best, and pays a horizontal reduction and a
// call per pair; gonum's float32 level 3 is pure Go around 4-lane SSE
// helpers. Our 4x4 register-blocked kernel loads 8 vectors per 16 FMAs,
// keeps 16 independent accumulators in flight and reduces once per 16
// pairs. The distancer and gonum are therefore only benchmark references,
// not dependencies of this package.
var kern = availableKernels()[0]

// KernelName names the kernel set in use ("avx512", "avx2" or "go").
func KernelName() string { return kern.name }

const (
	// dimAlign pads each packed row to a multiple of 16 floats (one zmm).
	dimAlign = 16
	// rowAlign pads the row count with zero rows to a multiple of 8, so the
	// kernels' 4- and 8-row blocks never need an edge case.
	rowAlign = 8
	// panelBytes bounds a column panel of the Gram matrix so that it stays in
	// the core's L2 cache while every row block streams past it; chosen on
	// the 1 MiB-L2 development machine by BenchmarkGram in thread CPU time
	// (N 500-2000, d 384-1536), smaller and larger panels both ran further
	// from the FMA peak (docs/performance.md, "Gram matrix throughput").
	panelBytes = 512 << 10
	// parallelMinMAC is the work (multiply-adds, about N^2/2*d) from which
	// Matrix splits the row blocks over several cores: below it the
	// hand-off and the other core's cold caches cost more than they save
	// (BenchmarkGram, ours-avx512-1core against ours-avx512-allcores).
	parallelMinMAC = 32 << 20
	// maxWorkers caps the goroutines of one Matrix call.
	maxWorkers = 4
)

// Engine computes cosine similarities between the candidates of one query.
// The vectors are packed contiguously, L2-normalised once, zero padded, so
// every similarity is a dot product of two packed rows. It implements
// selectors.Similarities (and its optional PositivePairSum): Row for the
// greedy strategies that need only k rows (mmr, adagres, dpp), Matrix for
// those that need the whole N x N matrix (facility), computed once, blocked,
// on several cores when large.
//
// An Engine is for one goroutine at a time. Release returns its buffers to a
// pool for the next query; the engine and every slice it returned must not
// be used afterwards.
type Engine struct {
	n, dim int // candidates, original dimension
	stride int // packed row length (dim rounded up to dimAlign)
	rows   int // packed rows (n rounded up to rowAlign)
	unit   []float32
	mat    []float32 // n*n once Matrix ran (capacity reused across queries)
	hasMat bool
	cross  []float32 // Cross's n x ld block, handed to the caller
	tpack  []float32 // Cross's packed target rows
	strip  []float32 // scratch: 4 rows of products, or a row's padded tail
	pool   []float32 // scratch for PositivePairSum over a subset
	qbuf   []float32 // Dots' padded copy of its query vector
	// PositivePairSum's per-worker strips and per-row-block sums.
	strips    [][]float32
	blockSums []float64
	subs      []*Engine // engines made by Subset, released with this one
	// nonFinite is the first candidate with a NaN or infinite component, or -1.
	nonFinite int
}

var engines = sync.Pool{New: func() any { return new(Engine) }}

// New packs and normalises vectors (one per candidate, all of one
// dimension; nil or zero vectors have similarity 0 with everything). A
// vector of another length than the first one that is not nil is refused,
// with an error naming both lengths; a non-finite vector is left
// unnormalised - NonFinite names it, and the selectors' problem validation
// rejects it before any strategy runs.
func New(vectors [][]float32) (*Engine, error) {
	dim, first := 0, -1
	for i, v := range vectors {
		switch {
		case v == nil:
		case first < 0:
			dim, first = len(v), i
		case len(v) != dim:
			return nil, fmt.Errorf("simcache: vector %d has %d dimensions, expected %d (those of vector %d)", i, len(v), dim, first)
		}
	}
	return pack(vectors, dim), nil
}

// pack is New for vectors of dimension dim or nil.
func pack(vectors [][]float32, dim int) *Engine {
	e := engines.Get().(*Engine)
	e.n = len(vectors)
	e.dim = dim
	e.stride = max(dimAlign, (e.dim+dimAlign-1)/dimAlign*dimAlign)
	e.rows = (e.n + rowAlign - 1) / rowAlign * rowAlign
	e.unit = growVectors(e.unit, e.rows*e.stride)
	clear(e.unit[e.n*e.stride:]) // the padding rows
	e.hasMat = false
	e.nonFinite = -1
	// A large pool is packed on every core: the vectors are read from
	// wherever their owners keep them (a feature cache entry each), about
	// 0.45 ms of cache misses at N = 1000, d = 768 on one core.
	units := (e.n + packChunk - 1) / packChunk
	firstBad := make([]int, units) // per unit, its first non-finite vector
	workers := 1
	if e.n*e.dim >= parallelPack {
		workers = min(runtime.GOMAXPROCS(0), maxWorkers)
	}
	workshare.Ranges(workers, e.n, packChunk, func(u, from, to int) {
		firstBad[u] = -1
		for i := from; i < to; i++ {
			v := vectors[i]
			row := e.unit[i*e.stride : (i+1)*e.stride]
			src := v // read in place when the kernels can (no padding to add)
			if len(v) != e.dim || e.dim != e.stride {
				clear(row[copy(row[:e.dim], v):]) // a nil vector's row and the padding
				src = row
			}
			if !normalise(row, src) && firstBad[u] < 0 {
				firstBad[u] = i
			}
		}
	})
	for _, i := range firstBad {
		if i >= 0 {
			e.nonFinite = i
			break
		}
	}
	return e
}

const (
	// packChunk is the number of vectors in one unit of New's packing.
	packChunk = 64
	// parallelPack is the size (candidates x dimensions) from which New
	// packs on several cores: 256 x 768 floats take about 0.1 ms on one.
	parallelPack = 256 * 768
)

// PackedBytes is the memory New packs n vectors of dim components into (rows
// and dimension padded as the kernels read them).
func PackedBytes(n, dim int) int64 {
	stride := max(dimAlign, (dim+dimAlign-1)/dimAlign*dimAlign)
	rows := (n + rowAlign - 1) / rowAlign * rowAlign
	return int64(rows) * int64(stride) * 4
}

// NonFinite implements selectors.FiniteChecker: the first candidate whose
// vector has a NaN or infinite component, or -1, found while normalising.
// (A vector longer than the first one is only read up to that length; the
// problem's validation refuses mismatched lengths anyway.)
func (e *Engine) NonFinite() int { return e.nonFinite }

// Release returns the engine's buffers (and those of the engines Subset
// made from it) to the pool.
func (e *Engine) Release() {
	if e == nil {
		return
	}
	for _, s := range e.subs {
		s.Release()
	}
	clear(e.subs)
	e.subs = e.subs[:0]
	e.hasMat = false
	if cap(e.mat) > maxPooledFloats {
		e.mat = nil
	}
	if cap(e.cross) > maxPooledFloats {
		e.cross = nil
	}
	if cap(e.tpack) > maxPooledFloats {
		e.tpack = nil
	}
	e.cross, e.tpack = e.cross[:0], e.tpack[:0]
	if cap(e.unit) > maxPooledFloats {
		keepLargeVectors(e.unit)
		e.unit = nil
	}
	engines.Put(e)
}

// largeVectors keeps a few packed-vector buffers above maxPooledFloats (a
// pool of 2000 candidates at d = 768 packs 6 MiB) for the next large-pool
// query: allocating and faulting them in afresh doubled mmr's and adagres's
// time at N = 2000. One per core at most - selection is CPU-bound, so more
// concurrent large queries gain nothing from more buffers - which bounds
// what idle engines hold to GOMAXPROCS buffers, unlike the sync.Pool.
var largeVectors = make(chan []float32, runtime.GOMAXPROCS(0))

// keepLargeVectors offers b to largeVectors; dropped when it is full.
func keepLargeVectors(b []float32) {
	select {
	case largeVectors <- b[:0]:
	default:
	}
}

// growVectors is grow for the packed vectors: a buffer too small is
// replaced by a kept large one when one is big enough.
func growVectors(b []float32, n int) []float32 {
	if cap(b) >= n || n <= maxPooledFloats {
		return grow(b, n)
	}
	select {
	case big := <-largeVectors:
		if cap(big) >= n {
			return big[:n]
		}
		keepLargeVectors(big) // too small for this query: another may use it
	default:
	}
	return make([]float32, n)
}

// maxPooledFloats bounds the buffers a released engine keeps for the next
// query (4 MiB: a 1024 x 1024 matrix). Larger ones go to the collector: a
// pool holding the N x N matrices of every large-pool query that ran at once
// kept about 900 MiB alive after 64 concurrent 2000-candidate queries, beyond
// the in-flight bound (which counts running selections). Allocating afresh
// costs a few ms against the 100+ ms such a matrix takes to compute.
const maxPooledFloats = 1 << 20

// Subset implements selectors.Subsetter: an engine over the candidates idx
// (in that order), copying their packed unit rows, released with e.
func (e *Engine) Subset(idx []int) selectors.Similarities {
	s := engines.Get().(*Engine)
	s.n, s.dim, s.stride = len(idx), e.dim, e.stride
	s.rows = (s.n + rowAlign - 1) / rowAlign * rowAlign
	s.unit = grow(s.unit, s.rows*s.stride)
	clear(s.unit[s.n*s.stride:])
	for a, i := range idx {
		copy(s.unit[a*s.stride:(a+1)*s.stride], e.unit[i*e.stride:(i+1)*e.stride])
	}
	s.hasMat = false
	s.nonFinite = -1 // only validated, finite problems are deduplicated
	e.subs = append(e.subs, s)
	return s
}

func grow(b []float32, n int) []float32 {
	if cap(b) >= n {
		return b[:n]
	}
	return make([]float32, n)
}

// normalise writes src scaled to unit length into row (src may be row; it
// has row's length) and reports whether every component is finite: the
// squared norm comes from the SIMD dot kernel in float32 (a
// NaN or infinite component makes it NaN or +Inf), and only a norm that is
// not finite is recomputed in float64, which tells a non-finite component
// (the sum stays non-finite) from mere float32 overflow (components near
// 1e19, whose squares sum finitely in float64). A non-finite row is left
// as src is.
func normalise(row, src []float32) bool {
	stride := len(row)
	p := unsafe.SliceData(src)
	n2 := kern.dot(p, p, stride)
	switch {
	case n2 == 0:
		copy(row, src)
	case n2 > math.MaxFloat32 || n2 != n2:
		copy(row, src)
		var s float64
		for _, x := range row {
			s += float64(x) * float64(x)
		}
		if math.IsInf(s, 0) || math.IsNaN(s) {
			return false
		}
		inv := 1 / math.Sqrt(s)
		for j, x := range row {
			row[j] = float32(float64(x) * inv)
		}
	default:
		kern.scale(unsafe.SliceData(row), p, stride, float32(1/math.Sqrt(float64(n2))))
	}
	return true
}

// Bytes is the memory the engine's buffers hold for this query: the packed
// vectors (O(N*d)), the matrix when Matrix ran (O(N^2)) and scratch (O(N)).
func (e *Engine) Bytes() int64 {
	b := int64(len(e.unit)+len(e.strip)+len(e.pool)+len(e.qbuf))*4 + int64(len(e.blockSums))*8
	for _, st := range e.strips {
		b += int64(len(st)) * 4
	}
	if e.hasMat {
		b += int64(e.rows) * int64(e.rows) * 4 // computed padded, then compacted
	}
	b += int64(len(e.cross)+len(e.tpack)) * 4
	for _, s := range e.subs {
		b += s.Bytes()
	}
	return b
}

// Len implements selectors.Similarities.
func (e *Engine) Len() int { return e.n }

// Dim is the vectors' dimension.
func (e *Engine) Dim() int { return e.dim }

// Unit returns candidate i's normalised vector (shared; do not modify).
func (e *Engine) Unit(i int) []float32 { return e.unit[i*e.stride : i*e.stride+e.dim] }

func (e *Engine) rowPtr(i int) *float32 { return &e.unit[i*e.stride] }

// At implements selectors.Similarities.
func (e *Engine) At(i, j int) float32 {
	if e.hasMat {
		return e.mat[i*e.n+j]
	}
	return kern.dot(e.rowPtr(i), e.rowPtr(j), e.stride)
}

// Row implements selectors.Similarities: dst[j] = cos(i, j). It reads the
// matrix when Matrix has run, so rows and matrix always agree.
func (e *Engine) Row(i int, dst []float32) {
	dst = dst[:e.n]
	if e.hasMat {
		copy(dst, e.mat[i*e.n:(i+1)*e.n])
		return
	}
	e.dotsFrom(e.rowPtr(i), dst)
}

// dotsFrom writes dot(a, row j) for every candidate j into dst (len n).
func (e *Engine) dotsFrom(a *float32, dst []float32) {
	full := e.n &^ (rowAlign - 1)
	if full > 0 {
		kern.dots(a, e.rowPtr(0), full, e.stride, &dst[0])
	}
	if full < e.n {
		// The padded tail block: the rows past n are zero rows.
		e.strip = grow(e.strip, max(len(e.strip), rowAlign))
		kern.dots(a, e.rowPtr(full), rowAlign, e.stride, &e.strip[0])
		copy(dst[full:], e.strip[:e.n-full])
	}
}

// Dots implements selectors.Projector: dst[j] = dot(Unit(j), q), one SIMD
// pass over the packed vectors (q is copied into a padded scratch row).
func (e *Engine) Dots(q, dst []float32) {
	dst = dst[:e.n]
	if e.n == 0 {
		return
	}
	e.qbuf = grow(e.qbuf, e.stride)
	clear(e.qbuf[copy(e.qbuf, q[:min(len(q), e.dim)]):])
	e.dotsFrom(&e.qbuf[0], dst)
}

// Matrix implements selectors.Similarities: the row-major n x n matrix of
// cosines, computed once (the upper triangle in 4x4 register blocks, each
// block also stored transposed), in L2-sized column panels, with the row
// blocks shared among cores when the work is large.
func (e *Engine) Matrix() []float32 {
	if e.hasMat {
		return e.mat[:e.n*e.n]
	}
	rows := e.rows
	e.mat = grow(e.mat, rows*rows)
	if rows > 0 {
		e.parallel(rows*rows/2*e.stride, func(w, workers int) { e.gramBlocks(e.mat, w, workers) })
		// Compact the padded rows x rows result to n x n (rows >= n; copy is
		// a memmove, safe for the overlap of moving left).
		if rows != e.n {
			for i := 1; i < e.n; i++ {
				copy(e.mat[i*e.n:(i+1)*e.n], e.mat[i*rows:i*rows+e.n])
			}
		}
	}
	e.mat = e.mat[:e.n*e.n]
	e.hasMat = true
	return e.mat
}

// Cross implements selectors.Crosser: cos(i, targets[t]) at [i*ld+t] for
// every candidate i, in one buffer of N x ld floats (ld = len(targets)
// rounded up to 4, or the padded row count when the targets are the whole
// pool in order, computed from the upper triangle) that the caller may
// overwrite: coverage turns it into
// its kernel in place, so a query holds one N x M block instead of the
// N x N matrix and a kernel derived from it. The target rows are gathered
// into a packed block and the candidates' 4-row blocks stream past it in
// L2-sized panels (the kernel of Matrix), split over the cores when large.
// It neither reads nor changes the Matrix cache.
func (e *Engine) Cross(targets []int) ([]float32, int) {
	m := len(targets)
	if identity(targets, e.n) {
		// Every candidate against every candidate: the matrix, from its
		// upper triangle as Matrix computes it, in the caller's buffer.
		ld := e.rows
		e.cross = grow(e.cross, e.rows*ld)
		if ld > 0 {
			e.parallel(e.rows*e.rows/2*e.stride, func(w, workers int) { e.gramBlocks(e.cross, w, workers) })
		}
		return e.cross[:e.n*ld], ld
	}
	ld := (m + 3) / 4 * 4
	e.cross = grow(e.cross, e.rows*ld)
	if m == 0 || e.n == 0 {
		return e.cross[:e.n*ld], ld
	}
	stride := e.stride
	e.tpack = grow(e.tpack, ld*stride)
	clear(e.tpack[m*stride:])
	for t, i := range targets {
		copy(e.tpack[t*stride:(t+1)*stride], e.unit[i*stride:(i+1)*stride])
	}
	e.crossBlocks(ld)
	return e.cross[:e.n*ld], ld
}

// RowMeans implements selectors.RowMeaner: the mean cosine of each
// candidate with the pool is dot(v_i, mu), mu the mean unit vector, so one
// pass over the packed vectors and one Dots give them all.
func (e *Engine) RowMeans(dst []float64) float64 {
	if e.n == 0 {
		return 0
	}
	mu := make([]float64, e.dim)
	kern.sumRows(mu, e.unit, e.n, e.stride)
	q := make([]float32, e.dim)
	for k, x := range mu {
		q[k] = float32(x / float64(e.n))
	}
	dots := make([]float32, e.n)
	e.Dots(q, dots)
	var mean float64
	for i, x := range dots {
		dst[i] = float64(x)
		mean += float64(x)
	}
	return mean / float64(e.n)
}

// parallel runs blocks(w, workers) for w < workers, on several cores when
// the work (multiply-adds) is large enough to pay for the hand-off.
func (e *Engine) parallel(mac int, blocks func(w, workers int)) {
	workers := 1
	if mac >= parallelMinMAC {
		workers = min(runtime.GOMAXPROCS(0), maxWorkers, e.rows/4)
	}
	if workers <= 1 {
		blocks(0, 1)
		return
	}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() { blocks(w, workers) })
	}
	wg.Wait()
}

// crossBlocks computes Cross's block, panel by panel of the packed
// targets, in units of crossChunk candidate rows against one panel. The
// units are handed out one at a time (panel by panel, so the cores work on
// the same panel) to the calling goroutine and, for large blocks, to
// helpers on the other cores: a helper that starts late - waking an idle
// core took 80-100 us on the development machine - takes fewer units
// instead of holding up the call with a fixed share.
func (e *Engine) crossBlocks(ld int) {
	stride := e.stride
	panel := max(4, panelBytes/(stride*4)/4*4)
	panels := (ld + panel - 1) / panel
	chunks := (e.rows + crossChunk - 1) / crossChunk
	unit := func(u int) {
		p0 := u / chunks * panel
		p1 := min(ld, p0+panel)
		r0 := u % chunks * crossChunk
		for ib := r0; ib < min(e.rows, r0+crossChunk); ib += 4 {
			kern.gramStrip(e.rowPtr(ib), &e.tpack[p0*stride], p1-p0, stride, &e.cross[ib*ld+p0], nil, ld)
		}
	}
	e.share(e.rows*ld*stride, panels*chunks, unit)
}

// crossChunk is the number of candidate rows in one unit of Cross's work
// (with 168 targets of 768 floats to a panel, about 4 M multiply-adds).
const crossChunk = 32

// share runs unit(u) for every u < units: on the calling goroutine alone
// unless the work (multiply-adds) is large enough to pay for helpers, which
// then take the units from a shared counter alongside it (workshare).
func (e *Engine) share(mac, units int, unit func(u int)) {
	workers := 1
	if mac >= parallelMinMAC {
		workers = min(runtime.GOMAXPROCS(0), maxWorkers)
	}
	workshare.Run(workers, units, unit)
}

// gramBlocks computes the row blocks w, w+workers, ... of the padded matrix
// into m (rows x rows):
// for each column panel, each of its row blocks' strips from the diagonal
// (or the panel start) to the panel end. Interleaving the row blocks
// balances the triangle between workers.
func (e *Engine) gramBlocks(m []float32, w, workers int) {
	rows, stride := e.rows, e.stride
	panel := max(rowAlign, panelBytes/(stride*4)/rowAlign*rowAlign)
	for p0 := 0; p0 < rows; p0 += panel {
		p1 := min(rows, p0+panel)
		for ib := 4 * w; ib < p1; ib += 4 * workers {
			j0 := max(ib, p0)
			kern.gramStrip(e.rowPtr(ib), e.rowPtr(j0), p1-j0, stride, &m[ib*rows+j0], &m[j0*rows+ib], rows)
		}
	}
}

// PositivePairSum implements selectors.PositivePairSum: the sum of
// max(0, cos(i, j)) over the pairs i < j of idx, computed in blocked strips
// without forming the matrix (O(N) scratch), or read from the matrix when
// Matrix has run.
func (e *Engine) PositivePairSum(idx []int) float64 {
	if e.hasMat {
		var s float64
		for a, i := range idx {
			row := e.mat[i*e.n : (i+1)*e.n]
			for _, j := range idx[a+1:] {
				if v := row[j]; v > 0 {
					s += float64(v)
				}
			}
		}
		return s
	}
	base, rows := e.unit, e.rows
	if !identity(idx, e.n) {
		// Gather the subset's rows into a packed block of their own.
		rows = (len(idx) + rowAlign - 1) / rowAlign * rowAlign
		e.pool = grow(e.pool, rows*e.stride)
		clear(e.pool[len(idx)*e.stride:])
		for a, i := range idx {
			copy(e.pool[a*e.stride:(a+1)*e.stride], e.unit[i*e.stride:(i+1)*e.stride])
		}
		base = e.pool
	}
	// Zero rows past the subset have products 0, which add nothing. Each row
	// block's sum is kept apart and the blocks are added in order at the end,
	// so the result does not depend on how many workers shared the blocks.
	blocks := rows / 4
	e.blockSums = growF64(e.blockSums, blocks)
	clear(e.blockSums)
	workers := 1
	if rows*rows/2*e.stride >= parallelMinMAC {
		workers = min(runtime.GOMAXPROCS(0), maxWorkers, blocks)
	}
	for len(e.strips) < workers {
		e.strips = append(e.strips, nil)
	}
	for w := range workers {
		e.strips[w] = grow(e.strips[w], max(len(e.strips[w]), 4*rows))
	}
	if workers == 1 {
		e.pairBlocks(base, rows, 0, 1, e.strips[0])
	} else {
		var wg sync.WaitGroup
		for w := range workers {
			wg.Go(func() { e.pairBlocks(base, rows, w, workers, e.strips[w]) })
		}
		wg.Wait()
	}
	var s float64
	for _, b := range e.blockSums {
		s += b
	}
	return s
}

// pairBlocks adds to blockSums[ib/4], for the row blocks ib = 4w, 4(w+workers),
// ..., the positive products of each row with the later rows, computed in
// strips over L2-sized column panels (as Matrix does) into strip.
func (e *Engine) pairBlocks(base []float32, rows, w, workers int, strip []float32) {
	stride := e.stride
	panel := max(rowAlign, panelBytes/(stride*4)/rowAlign*rowAlign)
	for p0 := 0; p0 < rows; p0 += panel {
		p1 := min(rows, p0+panel)
		for ib := 4 * w; ib < p1; ib += 4 * workers {
			j0 := max(ib, p0)
			ncols := p1 - j0
			kern.gramStrip(&base[ib*stride], &base[j0*stride], ncols, stride, &strip[0], nil, ncols)
			var s float64
			for r := range 4 {
				// Row ib+r pairs with the columns j > ib+r.
				from := max(0, ib+r+1-j0)
				for _, v := range strip[r*ncols+from : (r+1)*ncols] {
					if v > 0 {
						s += float64(v)
					}
				}
			}
			e.blockSums[ib/4] += s
		}
	}
}

func growF64(b []float64, n int) []float64 {
	if cap(b) >= n {
		return b[:n]
	}
	return make([]float64, n)
}

func identity(idx []int, n int) bool {
	if len(idx) != n {
		return false
	}
	for a, i := range idx {
		if a != i {
			return false
		}
	}
	return true
}
