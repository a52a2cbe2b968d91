//go:build amd64 && !purego

package coverage

import "golang.org/x/sys/cpu"

//go:noescape
func centreAVX2(x *float32, n int, a, ii float32, trm, tinv *float32, square bool)

var hasAVX2 = cpu.X86.HasAVX2

// centreBlock is the vector part of centre: it handles a prefix of x (a
// multiple of 8 floats, with AVX2) and returns its length.
func centreBlock(x []float32, a, ii float32, trm, tinv []float32, square bool) int {
	n := len(x) &^ 7
	if !hasAVX2 || n == 0 {
		return 0
	}
	_, _ = trm[n-1], tinv[n-1]
	centreAVX2(&x[0], n, a, ii, &trm[0], &tinv[0], square)
	return n
}
