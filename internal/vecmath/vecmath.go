// Package vecmath holds the scalar vector arithmetic several packages share:
// a float32 dot product and the cosine of two vectors. The selection's hot
// loops use simcache's SIMD kernels instead; these serve where a vector pair
// is compared now and then (a reference engine, k-means, segmentation,
// evaluation).
package vecmath

import "math"

// Dot returns the dot product of a and b, which must have the same length.
// Four partial sums keep the loop free of one long dependency chain.
func Dot(a, b []float32) float32 {
	var s0, s1, s2, s3 float32
	j := 0
	for ; j+4 <= len(a); j += 4 {
		s0 += a[j] * b[j]
		s1 += a[j+1] * b[j+1]
		s2 += a[j+2] * b[j+2]
		s3 += a[j+3] * b[j+3]
	}
	for ; j < len(a); j++ {
		s0 += a[j] * b[j]
	}
	return s0 + s1 + s2 + s3
}

// Cosine returns the cosine similarity of a and b in float64 (0 when either
// is zero).
func Cosine(a, b []float32) float64 {
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}
