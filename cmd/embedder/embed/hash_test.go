package embed

import (
	"math"
	"reflect"
	"testing"

	"github.com/diverse-select/diverse-select/internal/vecmath"
)

func TestTokenize(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", []string{}},
		{"  !!! ", []string{}},
		{"Statins: muscle-pain, FAQ.", []string{"statins", "muscle", "pain", "faq"}},
		{"Don't evict pod-7 now", []string{"don", "t", "evict", "pod", "7", "now"}},
		{"Gutenberg's Straße ÜBER café", []string{"gutenberg", "s", "straße", "über", "café"}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got := Tokenize(tt.in)
			if len(got) == 0 && len(tt.want) == 0 {
				return
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Tokenize(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func assertUnit(t *testing.T, v []float32, dims int) {
	t.Helper()
	if len(v) != dims {
		t.Fatalf("len = %d, want %d", len(v), dims)
	}
	var ss float64
	for _, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			t.Fatalf("non-finite value %v", x)
		}
		ss += float64(x) * float64(x)
	}
	if math.Abs(math.Sqrt(ss)-1) > 1e-5 {
		t.Fatalf("norm = %v, want 1", math.Sqrt(ss))
	}
}

func TestHashDeterministicUnitVectors(t *testing.T) {
	texts := []string{
		"",
		"!!!",
		"the",
		"to be or not to be",
		"Statins can cause muscle aches in some patients.",
		"Ünïcödé Straße und Bäckerei",
		"pod pod pod pod pod",
	}
	for _, dims := range []int{1, 8, 256, 1000} {
		a, err := NewHash(dims)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := NewHash(dims)
		for _, text := range texts {
			va := a.Embed(text)
			assertUnit(t, va, dims)
			if vb := b.Embed(text); !reflect.DeepEqual(va, vb) {
				t.Errorf("dims %d, %q: two embedders disagree", dims, text)
			}
			if again := a.Embed(text); !reflect.DeepEqual(va, again) {
				t.Errorf("dims %d, %q: repeated call disagrees", dims, text)
			}
		}
	}
}

// The hash layout must not change silently: vectors stored in a Weaviate
// index would stop matching new query vectors.
func TestHashGolden(t *testing.T) {
	h, _ := NewHash(8)
	got := h.Embed("statins muscle pain")
	// 3 unigrams + 2 bigrams in 8 slots; two of them share a slot and sign.
	want := []float32{0, 0, -0.37796447, 0.37796447, 0, 0.37796447, -0.75592893, 0}
	for i := range want {
		if math.Abs(float64(got[i]-want[i])) > 1e-6 {
			t.Fatalf("Embed changed:\n got %v\nwant %v", got, want)
		}
	}
}

func TestHashSimilarity(t *testing.T) {
	tests := []struct {
		name, a, near, far string
	}{
		{
			"near-duplicate paragraph",
			"Muscle aches are the side effect of statins that patients report most often, usually as soreness or weakness in the thighs and shoulders.",
			"Muscle aches are the side effect of statins that patients report most often, typically as soreness or weakness in the thighs and shoulders.",
			"Feed the sourdough starter twice a day with equal weights of flour and water and keep it somewhere warm.",
		},
		{
			"extra sentence",
			"When a node runs low on memory the kubelet evicts pods, starting with BestEffort pods that exceed their requests.",
			"When a node runs low on memory the kubelet evicts pods, starting with BestEffort pods that exceed their requests. This is called node-pressure eviction.",
			"Gutenberg's press combined movable metal type, oil-based ink and a screw press adapted from wine making.",
		},
		{
			"word order and case",
			"Clean solar panels with soft brushes and plain water",
			"clean SOLAR PANELS with plain water and soft brushes",
			"Grapefruit juice raises blood levels of some statins",
		},
	}
	h, _ := NewHash(DefaultHashDims)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			near := vecmath.Cosine(h.Embed(tt.a), h.Embed(tt.near))
			far := vecmath.Cosine(h.Embed(tt.a), h.Embed(tt.far))
			if near < 0.7 {
				t.Errorf("near-duplicate cosine %.3f < 0.7", near)
			}
			if far > 0.3 {
				t.Errorf("unrelated cosine %.3f > 0.3", far)
			}
			if near <= far {
				t.Errorf("near %.3f <= far %.3f", near, far)
			}
		})
	}
}

func TestNewHashRejectsBadDims(t *testing.T) {
	for _, dims := range []int{0, -1} {
		if _, err := NewHash(dims); err == nil {
			t.Errorf("NewHash(%d): want error", dims)
		}
	}
}

func TestNewModes(t *testing.T) {
	tests := []struct {
		mode, dir string
		dims      int
		wantErr   bool
	}{
		{ModeHash, "", 64, false},
		{ModeHash, "", 0, true},
		{ModeGloVe, "", 0, true},
		{ModeGloVe, "/nonexistent/glove", 0, true},
		{"bert", "", 64, true},
	}
	for _, tt := range tests {
		e, err := New(tt.mode, tt.dims, tt.dir)
		if (err != nil) != tt.wantErr {
			t.Errorf("New(%q, %d, %q) error = %v, wantErr %v", tt.mode, tt.dims, tt.dir, err, tt.wantErr)
			continue
		}
		if err == nil && (e.Mode() != tt.mode || e.Dims() != tt.dims) {
			t.Errorf("New(%q, %d): got mode %q dims %d", tt.mode, tt.dims, e.Mode(), e.Dims())
		}
	}
}
