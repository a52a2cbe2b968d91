package simcache

import (
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/weaviate/weaviate/adapters/repos/db/vector/hnsw/distancer"
	"github.com/weaviate/weaviate/adapters/repos/db/vector/hnsw/distancer/asm"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

// gramSizes is the (N, d) grid of BenchmarkGram; SIMCACHE_BENCH_GRID=full
// runs N in {50..2000} x d in {128..1536}.
func gramSizes() (ns, ds []int) {
	if os.Getenv("SIMCACHE_BENCH_GRID") == "full" {
		return []int{50, 100, 200, 500, 1000, 2000}, []int{128, 384, 768, 1536}
	}
	return []int{100, 500, 1000, 2000}, []int{384, 768}
}

// peak is the single-core FMA peak in GFLOP/s of one kernel set, measured
// once per test binary: the best of several timed runs of a register-only
// loop of independent FMAs (fmaPeakAVX512/AVX2), which issues FMAs at the
// core's sustained rate with no memory traffic. It is what the FMA units
// deliver here (lanes x 2 flops x FMAs per cycle x the actual clock, turbo
// or throttled), not a datasheet figure, which a VM cannot read.
var peaks sync.Map

func peakGFLOPS(k kernelSet) float64 {
	if k.peak == nil {
		return 0
	}
	if v, ok := peaks.Load(k.name); ok {
		return v.(float64)
	}
	const iters = 2_000_000
	best := 0.0
	for range 15 {
		t := time.Now()
		k.peak(iters)
		gf := float64(iters*k.peakFMAs*k.lanes*2) / time.Since(t).Seconds() / 1e9
		best = max(best, gf)
	}
	peaks.Store(k.name, best)
	return best
}

// cpuClock measures one goroutine's thread CPU time (the goroutine is
// locked to its thread until report).
type cpuClock struct{ start time.Duration }

func startCPU() *cpuClock {
	runtime.LockOSThread()
	t, ok := threadCPU()
	if !ok {
		runtime.UnlockOSThread()
		return nil
	}
	return &cpuClock{start: t}
}

// report adds GFLOP/s-cpu, the rate over thread CPU time (what the kernel
// does while it holds the core; wall-clock GFLOP/s also counts the time
// other processes on a shared machine held it).
func (c *cpuClock) report(b *testing.B, flops float64) {
	if c == nil {
		return
	}
	t, _ := threadCPU()
	runtime.UnlockOSThread()
	if t > c.start {
		b.ReportMetric(flops/(t-c.start).Seconds()/1e9, "GFLOP/s-cpu")
	}
}

// BenchmarkFMAPeak reports the single-core FMA peak of each SIMD kernel set.
func BenchmarkFMAPeak(b *testing.B) {
	for _, k := range availableKernels() {
		if k.peak == nil {
			continue
		}
		b.Run(k.name, func(b *testing.B) {
			const iters = 100_000
			cpu := startCPU()
			for b.Loop() {
				k.peak(iters)
			}
			flops := float64(b.N) * iters * float64(k.peakFMAs*k.lanes*2)
			b.ReportMetric(flops/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			cpu.report(b, flops)
		})
	}
}

func unitRows(n, d int) [][]float32 {
	rng := rand.New(rand.NewPCG(uint64(n), uint64(d)))
	v := make([][]float32, n)
	for i := range v {
		v[i] = make([]float32, d)
		for j := range v[i] {
			v[i][j] = float32(rng.NormFloat64())
		}
	}
	return v
}

// gramImpls are the candidates for the N x N kernel, all given packed unit
// rows (the engine's layout) and a full n x n output.
func gramImpls() map[string]func(e *Engine, out []float32) {
	impls := map[string]func(e *Engine, out []float32){}
	for _, k := range availableKernels() {
		impls["ours-"+k.name] = func(e *Engine, out []float32) {
			saved := kern
			kern = k
			e.hasMat = false
			copy(out, e.Matrix())
			kern = saved
		}
		impls["ours-"+k.name+"-1core"] = func(e *Engine, out []float32) {
			saved := kern
			kern = k
			e.mat = grow(e.mat, e.rows*e.rows)
			e.gramBlocks(e.mat, 0, 1)
			kern = saved
		}
		if k.name != "go" {
			// Every size split over all cores, to place parallelMinMAC.
			impls["ours-"+k.name+"-allcores"] = func(e *Engine, out []float32) {
				saved := kern
				kern = k
				e.mat = grow(e.mat, e.rows*e.rows)
				workers := min(runtime.GOMAXPROCS(0), maxWorkers, e.rows/4)
				var wg sync.WaitGroup
				for w := range workers {
					wg.Go(func() { e.gramBlocks(e.mat, w, workers) })
				}
				wg.Wait()
				kern = saved
			}
		}
	}
	// Weaviate's distancer as Weaviate calls it (SIMD dispatch by CPU: AVX2
	// here, AVX-512 only with AMX), one call per pair, symmetric half.
	dp := distancer.NewDotProductProvider()
	impls["weaviate-distancer"] = func(e *Engine, out []float32) {
		for i := 0; i < e.n; i++ {
			a := e.unit[i*e.stride : (i+1)*e.stride]
			for j := i; j < e.n; j++ {
				d, _ := dp.SingleDist(a, e.unit[j*e.stride:(j+1)*e.stride])
				out[i*e.n+j], out[j*e.n+i] = -d, -d
			}
		}
	}
	// Its AVX-512 kernel called directly.
	impls["weaviate-asm-avx512"] = func(e *Engine, out []float32) {
		for i := 0; i < e.n; i++ {
			a := e.unit[i*e.stride : (i+1)*e.stride]
			for j := i; j < e.n; j++ {
				d := asm.DotAVX512(a, e.unit[j*e.stride:(j+1)*e.stride])
				out[i*e.n+j], out[j*e.n+i] = d, d
			}
		}
	}
	impl := gonum.Implementation{}
	impls["gonum-sgemm"] = func(e *Engine, out []float32) {
		impl.Sgemm(blas.NoTrans, blas.Trans, e.n, e.n, e.stride, 1, e.unit, e.stride, e.unit, e.stride, 0, out, e.n)
	}
	impls["gonum-ssyrk"] = func(e *Engine, out []float32) {
		impl.Ssyrk(blas.Upper, blas.NoTrans, e.n, e.stride, 1, e.unit, e.stride, 0, out, e.n)
	}
	return impls
}

// BenchmarkGram measures the N x N cosine matrix from packed unit vectors
// with every candidate kernel. GFLOP/s counts the useful work of a
// symmetric Gram matrix, 2*d flops for each of the N(N+1)/2 distinct pairs,
// for every implementation (gonum's Sgemm does twice that work); peak% is
// that rate over the single-core FMA peak of the widest SIMD unit
// (BenchmarkFMAPeak). SIMCACHE_GRAM_IMPLS=a,b restricts the implementations.
func BenchmarkGram(b *testing.B) {
	peak := peakGFLOPS(availableKernels()[0])
	only := os.Getenv("SIMCACHE_GRAM_IMPLS")
	ns, ds := gramSizes()
	impls := gramImpls()
	names := make([]string, 0, len(impls))
	for name := range impls {
		if only == "" || strings.Contains(","+only+",", ","+name+",") {
			names = append(names, name)
		}
	}
	for _, d := range ds {
		for _, n := range ns {
			e := must(New(unitRows(n, d)))
			out := make([]float32, n*n)
			for _, name := range names {
				if strings.HasPrefix(name, "weaviate") || strings.HasPrefix(name, "gonum") || strings.HasSuffix(name, "go") {
					if n*n*d > 1000*1000*768 && !strings.Contains(only, name) {
						continue // slow references: skipped at the largest sizes unless asked for
					}
				}
				f := impls[name]
				b.Run(fmt.Sprintf("impl=%s/N=%d/d=%d", name, n, d), func(b *testing.B) {
					var cpu *cpuClock
					if strings.HasSuffix(name, "-1core") {
						cpu = startCPU()
					}
					for b.Loop() {
						f(e, out)
					}
					flops := float64(n*(n+1)/2) * float64(2*d) * float64(b.N)
					cpu.report(b, flops)
					gf := flops / b.Elapsed().Seconds() / 1e9
					b.ReportMetric(gf, "GFLOP/s")
					if peak > 0 {
						b.ReportMetric(100*gf/peak, "peak%")
					}
				})
			}
			e.Release()
		}
	}
	if peak > 0 {
		b.Logf("single-core FMA peak (%s): %s GFLOP/s", availableKernels()[0].name, strconv.FormatFloat(peak, 'f', 1, 64))
	}
}
