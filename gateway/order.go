package gateway

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// orderingVector is a query vector under which a vector search ranks vecs
// in their given order: Weaviate's search filtered to the selected objects'
// ids then returns the selection in the selection's order, which is the
// order generate's grouped prompt lists them in. For metric "cosine" it
// solves, in the span of the normalised vectors, <q, v_i/|v_i|> = n - i;
// for "dot", <q, v_i> = n - i. It returns nil when no such vector is
// trustworthy - another metric, vectors that (nearly) repeat one another,
// or scores too close for float32 distances - and the caller keeps the
// upstream's order.
func orderingVector(vecs [][]float32, metric string) []float32 {
	n := len(vecs)
	if n < 2 || (metric != "cosine" && metric != "dot" && metric != "") {
		return nil
	}
	dim := len(vecs[0])
	rows := make([][]float64, n)
	for i, v := range vecs {
		if len(v) != dim || dim == 0 {
			return nil
		}
		rows[i] = make([]float64, dim)
		norm := 1.0
		if metric != "dot" {
			var s float64
			for _, x := range v {
				s += float64(x) * float64(x)
			}
			if norm = math.Sqrt(s); norm == 0 {
				return nil
			}
		}
		for j, x := range v {
			rows[i][j] = float64(x) / norm
		}
	}
	gram := mat.NewSymDense(n, nil)
	for i := range n {
		for j := i; j < n; j++ {
			var s float64
			for k := range dim {
				s += rows[i][k] * rows[j][k]
			}
			gram.SetSym(i, j, s)
		}
	}
	want := mat.NewVecDense(n, nil)
	for i := range n {
		want.SetVec(i, float64(n-i))
	}
	var chol mat.Cholesky
	if !chol.Factorize(gram) || chol.Cond() > 1e8 {
		return nil // the vectors (nearly) repeat one another
	}
	var a mat.VecDense
	if err := chol.SolveVecTo(&a, want); err != nil {
		return nil
	}
	q := make([]float64, dim)
	for i := range n {
		for k := range dim {
			q[k] += a.AtVec(i) * rows[i][k]
		}
	}
	var qn float64
	for _, x := range q {
		qn += x * x
	}
	if qn = math.Sqrt(qn); qn == 0 || math.IsNaN(qn) || math.IsInf(qn, 0) {
		return nil
	}
	// The scores Weaviate compares: cosine similarities n-i over |q|, or
	// dot products n-i; apart by at least 1/|q| (cosine), which float32
	// distances must resolve.
	if metric != "dot" && 1/qn < 1e-4 {
		return nil
	}
	out := make([]float32, dim)
	for k, x := range q {
		out[k] = float32(x)
	}
	return out
}
