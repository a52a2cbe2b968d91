package selectors

import (
	"context"
	"math"

	"github.com/diverse-select/diverse-select/internal/vecmath"
)

// Similarities gives the cosine similarity between the candidates of one
// problem (or a similarity on the cosine's scale: simcache.MultiEngine's
// MaxSim between multi-vectors). Greedy strategies that need only k rows (mmr, adagres) call Row;
// strategies that need the whole matrix (facility, dpp) call Matrix.
// Implementations must be safe for use by one goroutine at a time.
type Similarities interface {
	// Len is the number of candidates.
	Len() int
	// Row writes cos(i, j) for every j into dst, which has length Len().
	Row(i int, dst []float32)
	// Matrix returns the full row-major Len() x Len() matrix of cosines.
	Matrix() []float32
	// At returns cos(i, j).
	At(i, j int) float32
}

// PositivePairSummer is an optional interface of a Similarities engine that
// can sum sim+ over many pairs without forming the N x N matrix (the
// simcache engine does it in blocked SIMD strips).
type PositivePairSummer interface {
	// PositivePairSum returns the sum of max(0, cos(idx[a], idx[b])) over a < b.
	PositivePairSum(idx []int) float64
}

// PositivePairSum returns the sum of max(0, cos) over the pairs of idx, with
// the engine's own method when it has one; otherwise pair by pair, in O(1)
// memory (from the matrix when the engine already holds one).
func PositivePairSum(s Similarities, idx []int) float64 {
	if ps, ok := s.(PositivePairSummer); ok {
		return ps.PositivePairSum(idx)
	}
	var sum float64
	for a, i := range idx {
		for _, j := range idx[a+1:] {
			if v := s.At(i, j); v > 0 {
				sum += float64(v)
			}
		}
	}
	return sum
}

// FiniteChecker is an optional interface of a Similarities engine built from
// the candidates' own vectors, in candidate order: it read every component
// while packing them, so Validate asks it rather than scanning the vectors a
// second time (0.3-0.6 ms for 1000 x 768 floats).
type FiniteChecker interface {
	// NonFinite returns the first candidate whose vector has a NaN or an
	// infinite component, or -1.
	NonFinite() int
}

// Projector is an optional interface of a Similarities engine that holds the
// candidates' unit vectors: k-means (knapsack concepts "clusters") reads them
// and projects them all on each centre in one pass.
type Projector interface {
	// Unit returns candidate i's L2-normalised vector (shared; do not modify).
	Unit(i int) []float32
	// Dots writes vecmath.Dot(Unit(i), q) for every candidate i into dst; q has the
	// vectors' dimension.
	Dots(q, dst []float32)
}

// Crosser is an optional interface of a Similarities engine: the cosines of
// every candidate with a set of targets in one blocked pass, for strategies
// that compare the pool with part of itself (coverage's targets).
type Crosser interface {
	// Cross returns cos(i, targets[t]) at [i*ld+t] for every candidate i:
	// Len() x ld floats, ld >= len(targets), in a buffer the caller may
	// overwrite and use until the engine is released.
	Cross(targets []int) (block []float32, ld int)
}

// Cross returns the cosines of every candidate with the targets, laid out
// as Crosser describes: the engine's own method when it has one, else from
// its rows (the cosine is symmetric), in a fresh buffer.
func Cross(s Similarities, targets []int) ([]float32, int) {
	if c, ok := s.(Crosser); ok {
		return c.Cross(targets)
	}
	return CrossFromRows(s, targets)
}

// CrossFromRows is Cross read from the engine's rows, one per target (the
// cosine is symmetric), in a fresh buffer: for engines without a blocked
// kernel, and for a Crosser's own fallback.
func CrossFromRows(s Similarities, targets []int) ([]float32, int) {
	n, m := s.Len(), len(targets)
	out := make([]float32, n*m)
	row := make([]float32, n)
	for t, i := range targets {
		s.Row(i, row)
		for j, x := range row {
			out[j*m+t] = x
		}
	}
	return out, m
}

// RowMeaner is an optional interface of a Similarities engine whose
// similarity is the dot product of the unit vectors it holds: the mean
// similarity of each candidate with the pool in O(N d) (v_i . mu, mu the
// mean unit vector), without forming the matrix.
type RowMeaner interface {
	// RowMeans writes the mean of row i of the similarity matrix into
	// dst[i] (len Len()) and returns the mean of the whole matrix.
	RowMeans(dst []float64) float64
}

// ContextBinder is an optional interface of a Similarities engine whose Row
// or Matrix can run long (simcache's multi-vector engine, O(|A|·T·d) per
// row): Run hands it the selection's context before any similarity is read.
// Once the context is done the engine stops computing and its values are
// meaningless; Run then returns the context's error, whatever the strategy
// made of them.
type ContextBinder interface {
	BindContext(ctx context.Context)
}

// Subsetter is an optional interface of a Similarities engine: an engine
// over the candidates idx (in that order) that reuses the work already done
// (packing, normalising), for the dedupThreshold pre-pass.
type Subsetter interface {
	Subset(idx []int) Similarities
}

// DenseSimilarities is the default, dependency-free engine: the candidates'
// vectors packed contiguously and L2-normalised once. Zero vectors stay zero
// and so have cosine 0 with everything.
type DenseSimilarities struct {
	n, dim int
	unit   []float32 // n*dim, row-major
	matrix []float32 // built on first Matrix call
}

// NewDenseSimilarities packs and normalises vectors (all of one dimension).
func NewDenseSimilarities(vectors [][]float32) *DenseSimilarities {
	n := len(vectors)
	dim := 0
	if n > 0 {
		dim = len(vectors[0])
	}
	s := &DenseSimilarities{n: n, dim: dim, unit: make([]float32, n*dim)}
	for i, v := range vectors {
		row := s.unit[i*dim : (i+1)*dim]
		var norm float64
		for _, x := range v {
			norm += float64(x) * float64(x)
		}
		if norm == 0 {
			continue
		}
		inv := 1 / math.Sqrt(norm)
		for j, x := range v {
			row[j] = float32(float64(x) * inv)
		}
	}
	return s
}

// Len implements Similarities.
func (s *DenseSimilarities) Len() int { return s.n }

// Unit returns the normalised vector of candidate i (shared, do not modify).
func (s *DenseSimilarities) Unit(i int) []float32 { return s.unit[i*s.dim : (i+1)*s.dim] }

// Dots implements Projector.
func (s *DenseSimilarities) Dots(q, dst []float32) {
	for j := 0; j < s.n; j++ {
		dst[j] = vecmath.Dot(s.Unit(j), q)
	}
}

// Row implements Similarities.
func (s *DenseSimilarities) Row(i int, dst []float32) {
	if s.matrix != nil {
		copy(dst, s.matrix[i*s.n:(i+1)*s.n])
		return
	}
	a := s.Unit(i)
	for j := 0; j < s.n; j++ {
		dst[j] = vecmath.Dot(a, s.Unit(j))
	}
}

// Matrix implements Similarities; the matrix is computed once, using symmetry.
func (s *DenseSimilarities) Matrix() []float32 {
	if s.matrix != nil {
		return s.matrix
	}
	m := make([]float32, s.n*s.n)
	for i := 0; i < s.n; i++ {
		a := s.Unit(i)
		for j := i; j < s.n; j++ {
			d := vecmath.Dot(a, s.Unit(j))
			m[i*s.n+j] = d
			m[j*s.n+i] = d
		}
	}
	s.matrix = m
	return m
}

// PositivePairSum implements PositivePairSummer: the sum of max(0, cos) over
// the pairs of idx, without forming the matrix.
func (s *DenseSimilarities) PositivePairSum(idx []int) float64 {
	var sum float64
	for a, i := range idx {
		for _, j := range idx[a+1:] {
			if v := s.At(i, j); v > 0 {
				sum += float64(v)
			}
		}
	}
	return sum
}

// At implements Similarities.
func (s *DenseSimilarities) At(i, j int) float32 {
	if s.matrix != nil {
		return s.matrix[i*s.n+j]
	}
	return vecmath.Dot(s.Unit(i), s.Unit(j))
}

// similaritiesFor returns the problem's engine, building the default one when needed.
func similaritiesFor(p *Problem) Similarities {
	if p.Similarities != nil {
		return p.Similarities
	}
	vecs := make([][]float32, len(p.Candidates))
	for i, c := range p.Candidates {
		vecs[i] = c.Vector
	}
	p.Similarities = NewDenseSimilarities(vecs)
	return p.Similarities
}

// Sims returns the problem's similarity engine, building (and keeping) the
// default dense one from the candidates' vectors when none was supplied.
// Strategies call it from Select; Run has already checked the vectors.
func (p *Problem) Sims() Similarities { return similaritiesFor(p) }
