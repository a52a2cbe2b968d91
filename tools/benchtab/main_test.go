package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const sample = `goos: linux
goarch: amd64
pkg: github.com/diverse-select/diverse-select/simcache
cpu: AMD EPYC
BenchmarkStrategies/s=adagres/N=100/d=768-2   	    8136	    132807 ns/op	    321152 engine-B	    3175 B/op	       8 allocs/op
BenchmarkStrategies/s=adagres/N=100/d=768-2   	    8136	    140000 ns/op	    321152 engine-B	    3175 B/op	       8 allocs/op
BenchmarkStrategies/s=adagres/N=100/d=768-2   	    8136	    100000 ns/op	    321152 engine-B	    3175 B/op	       8 allocs/op
BenchmarkStrategies/s=topk/N=1000/d=768-2   	    8136	    2500000 ns/op	    0 engine-B	    10192 B/op	       13 allocs/op
BenchmarkGram/impl=ours-avx512/N=500/d=768-2 	     943	   1233961 ns/op	       155.9 GFLOP/s	        69.63 peak%
BenchmarkFMAPeak/avx512-2         	    3012	    438428 ns/op	       116.8 GFLOP/s	       207.8 GFLOP/s-cpu
PASS
`

func TestRender(t *testing.T) {
	res, err := parse(strings.NewReader(sample))
	if err != nil {
		t.Fatal(err)
	}
	// The previous grid: adagres took 50 µs at N = 100 (now 132.8: 2.66x).
	s, _ := render(res, gridTimes("d = 768, K = 10\n\n| strategy | N = 100 | N = 1000 |\n|---|---:|---:|\n| adagres | 50.0 µs · 1 KiB · 8 | - |\n"))
	for section, want := range map[string][]string{
		"go-env":        {"Medians of 3 runs", "cpu: AMD EPYC"},
		"go-strategies": {"| adagres | 132.8 µs · 3.1 KiB · 8 | - |", "| topk | - | 2.50 ms · 10.0 KiB · 13 |"},
		"go-memory":     {"| adagres | 313.6 KiB | - |"},
		"go-targets": {"| adagres, N = 100: <= 0.1 ms | 132.8 µs | - | **no** |", "| coverage, N = 100: <= 0.15 ms | not run | | |",
			"| adagres | 2.66 | N = 100, d = 768 | **no** |"},
		"go-gram":  {"| ours-avx512 | 155.9 (70%) |"},
		"go-other": {"| FMAPeak/avx512 | 438.4 µs | 116.8 GFLOP/s, 207.8 GFLOP/s-cpu |"},
	} {
		for _, w := range want {
			if !strings.Contains(s[section], w) {
				t.Errorf("%s: missing %q in\n%s", section, w, s[section])
			}
		}
	}
	if strings.Contains(s["go-memory"], "topk") {
		t.Error("strategies without an engine are left out of the memory table")
	}
}

func TestMedian(t *testing.T) {
	for _, tc := range []struct {
		in   []float64
		want float64
	}{{nil, 0}, {[]float64{3}, 3}, {[]float64{5, 1, 3}, 3}, {[]float64{4, 1, 3, 2}, 2.5}} {
		if got := median(tc.in); got != tc.want {
			t.Errorf("median(%v) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestSplice(t *testing.T) {
	f := filepath.Join(t.TempDir(), "doc.md")
	doc := "intro\n<!-- BEGIN a -->\nold\n<!-- END a -->\nmiddle\n<!-- BEGIN b -->\n<!-- END b -->\n"
	if err := os.WriteFile(f, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := splice(f, map[string]string{"a": "new A\n", "b": "new B\n", "c": "unused\n"}); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(f)
	want := "intro\n<!-- BEGIN a -->\nnew A\n<!-- END a -->\nmiddle\n<!-- BEGIN b -->\nnew B\n<!-- END b -->\n"
	if string(got) != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if err := splice(f, map[string]string{"zz": "x"}); err == nil {
		t.Error("no markers: want an error")
	}
}
