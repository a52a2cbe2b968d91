//go:build amd64 && !purego

package simcache

import "golang.org/x/sys/cpu"

//go:noescape
func gramStripAVX512(a, b *float32, ncols, d int, out, outT *float32, ldo int)

//go:noescape
func gramStripAVX2(a, b *float32, ncols, d int, out, outT *float32, ldo int)

//go:noescape
func dotsAVX512(a, b *float32, ncols, d int, out *float32)

//go:noescape
func dotsAVX2(a, b *float32, ncols, d int, out *float32)

//go:noescape
func dotAVX512(a, b *float32, d int) float32

//go:noescape
func dotAVX2(a, b *float32, d int) float32

//go:noescape
func scaleAVX512(dst, src *float32, d int, s float32)

//go:noescape
func scaleAVX2(dst, src *float32, d int, s float32)

//go:noescape
func sumRowsAVX2(mu *float64, a *float32, n, stride, d int)

// sumRowsVec is sumRows with the AVX2 kernel for the components in whole
// blocks of 32, Go for the rest.
func sumRowsVec(mu []float64, a []float32, n, stride int) {
	d := len(mu) &^ 31
	if d > 0 && n > 0 {
		_ = a[(n-1)*stride+d-1]
		sumRowsAVX2(&mu[0], &a[0], n, stride, d)
	}
	if d < len(mu) {
		sumRowsGo(mu[d:], a[d:], n, stride)
	}
}

func fmaPeakAVX512(n int)

func fmaPeakAVX2(n int)

var avx512Kernels = kernelSet{name: "avx512", gramStrip: gramStripAVX512, dots: dotsAVX512, dot: dotAVX512,
	scale: scaleAVX512, sumRows: sumRowsVec, lanes: 16, peak: fmaPeakAVX512, peakFMAs: 16}

var avx2Kernels = kernelSet{name: "avx2", gramStrip: gramStripAVX2, dots: dotsAVX2, dot: dotAVX2,
	scale: scaleAVX2, sumRows: sumRowsVec, lanes: 8, peak: fmaPeakAVX2, peakFMAs: 12}

// availableKernels lists the kernel sets this CPU runs, fastest first.
func availableKernels() []kernelSet {
	var out []kernelSet
	if cpu.X86.HasAVX512F && cpu.X86.HasAVX2 && cpu.X86.HasFMA {
		out = append(out, avx512Kernels)
	}
	if cpu.X86.HasAVX2 && cpu.X86.HasFMA {
		out = append(out, avx2Kernels)
	}
	return append(out, goKernels)
}
