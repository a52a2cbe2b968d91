package embed

import (
	"math"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/diverse-select/diverse-select/internal/vecmath"
)

// venvPython is the interpreter `make venv` installs (make test does it first).
var venvPython = filepath.Join("..", "..", "..", ".venv", "bin", "python")

func startNeural(t *testing.T) *Neural {
	t.Helper()
	n, err := StartNeural(venvPython, nil)
	if err != nil {
		t.Fatalf("%v (make test runs `make venv` first)", err)
	}
	t.Cleanup(func() { _ = n.Close() })
	return n
}

// TestNeuralKnownVector pins the model: the first values of the vector
// sentence-transformers publishes for all-MiniLM-L6-v2 and its example
// sentence, and the model's shape.
func TestNeuralKnownVector(t *testing.T) {
	n := startNeural(t)
	if n.Dims() != 384 || n.Mode() != ModeNeural {
		t.Fatalf("dims %d mode %q, want 384 neural", n.Dims(), n.Mode())
	}
	v := n.Embed("This is an example sentence")
	for i, want := range []float32{0.0677, 0.0635, 0.0487, 0.0793, 0.0374} {
		if math.Abs(float64(v[i]-want)) > 1e-3 {
			t.Fatalf("value %d = %.4f, want %.4f (the first values: %v)", i, v[i], want, v[:5])
		}
	}
	var norm float64
	for _, x := range v {
		norm += float64(x) * float64(x)
	}
	if math.Abs(norm-1) > 1e-5 {
		t.Fatalf("norm %v, want 1", norm)
	}
}

// TestNeuralMeaning: a paraphrase with no word in common scores far above
// an unrelated text, which neither Go mode can do.
func TestNeuralMeaning(t *testing.T) {
	n := startNeural(t)
	vs, err := n.EmbedBatch([]string{
		"How can I keep my heart healthy?",
		"Regular aerobic exercise strengthens the cardiovascular system.",
		"Knead the dough for ten minutes until it is smooth.",
	})
	if err != nil {
		t.Fatal(err)
	}
	para, other := vecmath.Cosine(vs[0], vs[1]), vecmath.Cosine(vs[0], vs[2])
	if para < other+0.2 {
		t.Fatalf("paraphrase %.3f, unrelated %.3f: want the paraphrase at least 0.2 above", para, other)
	}
}

// TestNeuralBatchesAgree: texts gathered from concurrent calls into one
// worker request (padded to a common length) get the vectors they get alone.
func TestNeuralBatchesAgree(t *testing.T) {
	n := startNeural(t)
	texts := []string{"a", "solar panels need cleaning twice a year", strings.Repeat("long text ", 300), "", "Café über naïve"}
	alone := make([][]float32, len(texts))
	for i, s := range texts {
		alone[i] = n.Embed(s)
	}
	var wg sync.WaitGroup
	together := make([][]float32, len(texts))
	for i, s := range texts {
		wg.Add(1)
		go func() { defer wg.Done(); together[i] = n.Embed(s) }()
	}
	wg.Wait()
	for i := range texts {
		if c := vecmath.Cosine(alone[i], together[i]); c < 0.99999 {
			t.Fatalf("text %d: cosine %.6f between its vector alone and in a batch", i, c)
		}
	}
}

func TestNeuralWithoutPython(t *testing.T) {
	_, err := StartNeural(filepath.Join(t.TempDir(), "python"), nil)
	if err == nil || !strings.Contains(err.Error(), "make venv") {
		t.Fatalf("err = %v, want one that names `make venv`", err)
	}
}
