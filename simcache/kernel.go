package simcache

import "unsafe"

// kernelSet is one implementation of the engine's inner loops over packed,
// zero-padded rows (d a multiple of 16 floats, row counts padded to 8).
type kernelSet struct {
	name string
	// gramStrip writes out[r*ldo+c] = dot(a_r, b_c) for r < 4, c < ncols
	// (a multiple of 4), and outT[c*ldo+r] the same when outT is not nil.
	gramStrip func(a, b *float32, ncols, d int, out, outT *float32, ldo int)
	// dots writes out[c] = dot(a, b_c) for c < ncols (a multiple of 8).
	dots func(a, b *float32, ncols, d int, out *float32)
	// dot returns dot(a, b) over d floats.
	dot func(a, b *float32, d int) float32
	// scale writes the d floats of src times s to dst (which may be src).
	scale func(dst, src *float32, d int, s float32)
	// sumRows adds to mu[k] the k-th float of each of n rows (stride
	// floats apart) in row order, for k < len(mu).
	sumRows func(mu []float64, a []float32, n, stride int)
	// lanes is the vector width in float32 lanes (1 for pure Go), for the
	// FMA peak arithmetic of the benchmarks.
	lanes int
	// peak runs n iterations of register-only FMAs (nil for pure Go).
	peak func(n int)
	// peakFMAs is the number of vector FMAs one peak iteration issues.
	peakFMAs int
}

// goKernels is the portable fallback: plain Go with four accumulators (the Go
// compiler does not vectorise, so this is scalar).
var goKernels = kernelSet{
	name: "go",
	gramStrip: func(a, b *float32, ncols, d int, out, outT *float32, ldo int) {
		o := unsafe.Slice(out, 3*ldo+ncols)
		var ot []float32
		if outT != nil {
			ot = unsafe.Slice(outT, (ncols-1)*ldo+4)
		}
		for c := 0; c < ncols; c++ {
			bc := unsafe.Add(unsafe.Pointer(b), c*d*4)
			for r := 0; r < 4; r++ {
				v := dotGo((*float32)(unsafe.Add(unsafe.Pointer(a), r*d*4)), (*float32)(bc), d)
				o[r*ldo+c] = v
				if ot != nil {
					ot[c*ldo+r] = v
				}
			}
		}
	},
	dots: func(a, b *float32, ncols, d int, out *float32) {
		o := unsafe.Slice(out, ncols)
		for c := range o {
			o[c] = dotGo(a, (*float32)(unsafe.Add(unsafe.Pointer(b), c*d*4)), d)
		}
	},
	dot:     dotGo,
	sumRows: sumRowsGo,
	scale: func(dst, src *float32, d int, s float32) {
		out := unsafe.Slice(dst, d)
		for i, x := range unsafe.Slice(src, d) {
			out[i] = x * s
		}
	},
	lanes: 1,
}

func dotGo(ap, bp *float32, d int) float32 {
	a, b := unsafe.Slice(ap, d), unsafe.Slice(bp, d)
	var s0, s1, s2, s3 float32
	for j := 0; j+4 <= d; j += 4 {
		s0 += a[j] * b[j]
		s1 += a[j+1] * b[j+1]
		s2 += a[j+2] * b[j+2]
		s3 += a[j+3] * b[j+3]
	}
	return (s0 + s1) + (s2 + s3)
}

func sumRowsGo(mu []float64, a []float32, n, stride int) {
	for i := range n {
		for k, x := range a[i*stride : i*stride+len(mu)] {
			mu[k] += float64(x)
		}
	}
}
