package embed

import (
	"context"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/diverse-select/diverse-select/internal/vecmath"
	"github.com/x448/float16"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
)

// Half-float bit patterns used to build the tiny test vocabulary.
const (
	h0    = 0x0000 // 0
	hHalf = 0x3800 // 0.5
	hQtr  = 0x3400 // 0.25
	h1    = 0x3c00 // 1
	hM1   = 0xbc00 // -1
	h2    = 0x4000 // 2
)

// tinyWords is a frequency-ordered vocabulary of 4-dim vectors; "cat" is
// repeated at the end to check that the first (most frequent) row wins.
var tinyWords = []struct {
	word string
	vec  [4]uint16
}{
	{"the", [4]uint16{hHalf, hHalf, hHalf, hHalf}},
	{"cat", [4]uint16{h1, h0, h0, h0}},
	{"dog", [4]uint16{h1, hHalf, h0, h0}},
	{"sat", [4]uint16{h0, h1, h0, h0}},
	{"mat", [4]uint16{h0, hHalf, hQtr, h0}},
	{"car", [4]uint16{h0, h0, h0, h1}},
	{"engine", [4]uint16{h0, h0, hM1, h2}},
	{"cat", [4]uint16{hM1, hM1, hM1, hM1}},
}

// writeTinyGloVe writes tinyWords in the words.txt + vectors.f16 format.
func writeTinyGloVe(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	var words strings.Builder
	var vecs []byte
	for _, w := range tinyWords {
		words.WriteString(w.word + "\n")
		for _, h := range w.vec {
			vecs = binary.LittleEndian.AppendUint16(vecs, h)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "words.txt"), []byte(words.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "vectors.f16"), vecs, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// loadTiny loads the tiny vocabulary as plain SIF (no post-processing), so
// that expected vectors can be computed by hand.
func loadTiny(t *testing.T) *GloVe {
	t.Helper()
	g, err := LoadGloVeWith(writeTinyGloVe(t), GloVeOptions{RawSIF: true})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func TestLoadGloVeTiny(t *testing.T) {
	g := loadTiny(t)
	if g.Dims() != 4 || g.Mode() != ModeGloVe {
		t.Fatalf("dims %d mode %q, want 4 glove", g.Dims(), g.Mode())
	}
	if g.Vocabulary() != 7 {
		t.Errorf("vocabulary %d, want 7 (duplicate cat dropped)", g.Vocabulary())
	}
	if !g.Known("engine") || g.Known("Engine") || g.Known("zebra") {
		t.Errorf("Known: engine/Engine/zebra wrong")
	}
}

func TestGloVeEmbed(t *testing.T) {
	g := loadTiny(t)
	// SIF weights for ranks 0 ("the") and 1 ("cat") of an 8-word vocabulary
	// under the Zipf estimate p(r) = 1/((r+1) H_8).
	h8 := 1 + 1.0/2 + 1.0/3 + 1.0/4 + 1.0/5 + 1.0/6 + 1.0/7 + 1.0/8
	wThe := 1e-3 / (1e-3 + 1/(1*h8))
	wCat := 1e-3 / (1e-3 + 1/(2*h8))
	unit := func(v ...float64) []float32 {
		var ss float64
		for _, x := range v {
			ss += x * x
		}
		out := make([]float32, len(v))
		for i, x := range v {
			out[i] = float32(x / math.Sqrt(ss))
		}
		return out
	}
	tests := []struct {
		name, text string
		want       []float32
	}{
		{"single word is its unit vector", "cat", unit(1, 0, 0, 0)},
		{"case and punctuation ignored", "CAT!!", unit(1, 0, 0, 0)},
		{"unknown words skipped", "zebra cat okapi", unit(1, 0, 0, 0)},
		{"first row wins for repeated word", "cat cat", unit(1, 0, 0, 0)},
		{"SIF weights", "the cat", unit(wCat+0.5*wThe, 0.5*wThe, 0.5*wThe, 0.5*wThe)},
		{"no known word falls back to hash", "zebra okapi", mustHash(t, 4).Embed("zebra okapi")},
		{"empty text falls back to hash", "", mustHash(t, 4).Embed("")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := g.Embed(tt.text)
			assertUnit(t, got, 4)
			for i := range tt.want {
				if math.Abs(float64(got[i]-tt.want[i])) > 1e-6 {
					t.Fatalf("Embed(%q) = %v, want %v", tt.text, got, tt.want)
				}
			}
			if again := g.Embed(tt.text); !reflect.DeepEqual(got, again) {
				t.Errorf("not deterministic")
			}
		})
	}
}

func TestGloVeSimilarity(t *testing.T) {
	g := loadTiny(t)
	a := g.Embed("the cat sat on the mat")
	near := g.Embed("the dog sat on a mat")
	far := g.Embed("the car engine")
	if cn, cf := vecmath.Cosine(a, near), vecmath.Cosine(a, far); cn <= cf || cn < 0.8 {
		t.Errorf("near %.3f, far %.3f: want near > far and near >= 0.8", cn, cf)
	}
}

func TestGloVeDefaultPostProcessing(t *testing.T) {
	dir := writeTinyGloVe(t)
	g, err := LoadGloVe(dir)
	if err != nil {
		t.Fatal(err)
	}
	raw := loadTiny(t)
	if len(g.mean) != 4 || len(g.dirs) != DefaultGloVeOptions.Components {
		t.Fatalf("mean %v, %d dirs", g.mean, len(g.dirs))
	}
	tests := []string{"cat", "the cat", "the dog sat on the mat", "car engine"}
	for _, text := range tests {
		t.Run(text, func(t *testing.T) {
			got := g.Embed(text)
			assertUnit(t, got, 4)
			// Same direction as the raw weighted sum, centred and with
			// the principal direction projected out.
			want := make([]float64, 4)
			var wsum float64
			for _, w := range Tokenize(text) {
				row, ok := g.index[w]
				if !ok {
					continue
				}
				wsum += float64(g.weights[row])
				for i := range want {
					want[i] += float64(g.weights[row]) * float64(float16.Frombits(g.halves[int(row)*4+i]).Float32())
				}
			}
			for i := range want {
				want[i] -= wsum * g.mean[i]
			}
			projectOut(want, g.dirs)
			w32, _ := normalize(want)
			if c := vecmath.Cosine(got, w32); c < 1-1e-6 {
				t.Errorf("cosine with hand-computed vector %v", c)
			}
			var dot float64
			for i, u := range g.dirs[0] {
				dot += float64(got[i]) * u
			}
			if math.Abs(dot) > 1e-6 {
				t.Errorf("component along removed direction %v", dot)
			}
			if reflect.DeepEqual(got, raw.Embed(text)) {
				t.Errorf("post-processing had no effect")
			}
		})
	}
	if _, err := LoadGloVeWith(dir, GloVeOptions{Components: 5}); err == nil {
		t.Error("5 components of 4 dims: want error")
	}
}

// Rows (1,1,1) +- 2 e1 and (1,1,1) +- e2: mean (1,1,1), principal axes e1
// (variance 8/4) then e2 (2/4), nothing along e3.
func TestPrincipalDirections(t *testing.T) {
	const (
		hThree = 0x4200 // 3
	)
	halves := []uint16{
		hThree, h1, h1,
		hM1, h1, h1,
		h1, h2, h1,
		h1, h0, h1,
	}
	tests := []struct {
		k    int
		dirs [][]float64
	}{
		{0, nil},
		{1, [][]float64{{1, 0, 0}}},
		{3, [][]float64{{1, 0, 0}, {0, 1, 0}}}, // stops at zero variance
	}
	for _, tt := range tests {
		mean, dirs := principalDirections(halves, 3, tt.k)
		if !reflect.DeepEqual(mean, []float64{1, 1, 1}) {
			t.Errorf("k=%d: mean %v", tt.k, mean)
		}
		if len(dirs) != len(tt.dirs) {
			t.Fatalf("k=%d: %d dirs, want %d", tt.k, len(dirs), len(tt.dirs))
		}
		for d := range dirs {
			for i := range dirs[d] {
				if math.Abs(dirs[d][i]-tt.dirs[d][i]) > 1e-6 {
					t.Errorf("k=%d: dir %d = %v, want %v", tt.k, d, dirs[d], tt.dirs[d])
				}
			}
		}
	}
}

// TestPrincipalDirectionsMatchPC: on correlated random rows the directions
// are gonum's stat.PC's (an SVD of the rows, not an eigendecomposition of
// their covariance) up to sign, and the mean is the rows' mean.
func TestPrincipalDirectionsMatchPC(t *testing.T) {
	const rows, dims, k = 700, 12, 4
	rng := rand.New(rand.NewPCG(1, 2))
	halves := make([]uint16, rows*dims)
	data := mat.NewDense(rows, dims, nil)
	for r := range rows {
		a, b := rng.NormFloat64(), rng.NormFloat64()
		for i := range dims {
			// Two strong shared factors and noise: distinct eigenvalues.
			x := 3*a*float64(i%3) + 1.5*b*float64(i%4) + 0.3*rng.NormFloat64() + 0.5
			h := float16.Fromfloat32(float32(x))
			halves[r*dims+i] = h.Bits()
			data.Set(r, i, float64(h.Float32()))
		}
	}
	mean, dirs := principalDirections(halves, dims, k)
	var pc stat.PC
	if !pc.PrincipalComponents(data, nil) {
		t.Fatal("stat.PC failed")
	}
	var vecs mat.Dense
	pc.VectorsTo(&vecs)
	if len(dirs) != k {
		t.Fatalf("%d directions, want %d", len(dirs), k)
	}
	for i := range dims {
		if want := stat.Mean(mat.Col(nil, i, data), nil); math.Abs(mean[i]-want) > 1e-9 {
			t.Fatalf("mean[%d] = %v, want %v", i, mean[i], want)
		}
	}
	for d, got := range dirs {
		want := mat.Col(nil, d, &vecs)
		if dot := floats.Dot(got, want); math.Abs(math.Abs(dot)-1) > 1e-9 {
			t.Errorf("direction %d: |cos| with stat.PC's = %v, want 1", d, math.Abs(dot))
		}
	}
}

func TestZipfSIFWeights(t *testing.T) {
	w := zipfSIFWeights(100000)
	for r := 1; r < len(w); r++ {
		// Non-decreasing: neighbouring ranks round to the same float32.
		if w[r] < w[r-1] || w[r] > 1 {
			t.Fatalf("weights not non-decreasing in (0,1] at rank %d: %v, %v", r, w[r-1], w[r])
		}
	}
	tests := []struct {
		rank     int
		lo, high float32
	}{
		{0, 0.011, 0.013},    // "the": p ~ 0.083
		{999, 0.92, 0.93},    // p ~ 8.3e-5
		{9999, 0.991, 0.993}, // p ~ 8.3e-6
	}
	for _, tt := range tests {
		if w[tt.rank] < tt.lo || w[tt.rank] > tt.high {
			t.Errorf("weight at rank %d = %v, want in [%v, %v]", tt.rank, w[tt.rank], tt.lo, tt.high)
		}
	}
}

func TestLoadGloVeErrors(t *testing.T) {
	write := func(t *testing.T, words string, vecBytes int) string {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "words.txt"), []byte(words), 0o644)
		if vecBytes >= 0 {
			os.WriteFile(filepath.Join(dir, "vectors.f16"), make([]byte, vecBytes), 0o644)
		}
		return dir
	}
	tests := []struct {
		name     string
		words    string
		vecBytes int // -1: no file
	}{
		{"missing vectors", "a\nb\n", -1},
		{"empty words", "", 8},
		{"odd byte count", "a\nb\n", 7},
		{"rows do not divide", "a\nb\nc\n", 8},
		{"empty vectors", "a\n", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := LoadGloVe(write(t, tt.words, tt.vecBytes)); err == nil {
				t.Error("want error")
			}
		})
	}
	if _, err := LoadGloVe(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Error("missing dir: want error")
	}
}

func mustHash(t *testing.T, dims int) *Hash {
	t.Helper()
	h, err := NewHash(dims)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func TestEmbedDims(t *testing.T) {
	g := loadTiny(t)
	h := mustHash(t, 16)
	tests := []struct {
		name string
		e    Embedder
		text string
		n    int
		want []float32
	}{
		{"full length is Embed", g, "the cat", 4, g.Embed("the cat")},
		{"glove prefix renormalised", g, "dog", 1, []float32{1}},
		{"glove prefix of two", g, "dog", 2, []float32{float32(1 / math.Sqrt(1.25)), float32(0.5 / math.Sqrt(1.25))}},
		{"glove zero prefix falls back to hash", g, "car", 2, mustHash(t, 2).Embed("car")},
		{"hash rehashes into n slots", h, "This is my text", 4, mustHash(t, 4).Embed("This is my text")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := EmbedDims(context.Background(), tt.e, tt.text, tt.n)
			if err != nil {
				t.Fatal(err)
			}
			assertUnit(t, got, tt.n)
			for i := range tt.want {
				if math.Abs(float64(got[i]-tt.want[i])) > 1e-6 {
					t.Fatalf("got %v, want %v", got, tt.want)
				}
			}
		})
	}
	if _, err := EmbedDims(context.Background(), g, "dog", 0); err == nil || !strings.Contains(err.Error(), "0 dimensions") {
		t.Errorf("0 dimensions: err %v, want one naming them", err)
	}
}
