package segment

import (
	"embed"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
)

// Scorer is SAGE's pair scorer: an MLP with one hidden layer of ReLU units
// over the features [x1, x2, x1-x2, x1*x2] of two neighbour sentences'
// vectors, and a logistic output, the probability that x2 continues x1's
// paragraph.
type Scorer struct {
	// Encoder names the sentence encoder the scorer was trained on; vectors
	// of another encoder are meaningless to it.
	Encoder string `json:"encoder"`
	Dims    int    `json:"dims"`
	Hidden  int    `json:"hidden"`
	// Threshold is the score below which a pair starts a new chunk (SAGE's
	// ss), chosen on the training articles (docs/segmentation.md).
	Threshold float64 `json:"threshold"`
	// W1 is Hidden rows of 4*Dims weights, B1 the hidden biases, W2 and B2
	// the output layer.
	W1, B1, W2 []float32 `json:"-"`
	B2         float32   `json:"-"`
	// Trained describes the data and command that made the weights.
	Trained map[string]any `json:"trained,omitempty"`
}

// Score returns the probability that b continues a's paragraph. a and b
// have Dims values each.
func (s *Scorer) Score(a, b []float32) float64 {
	d := s.Dims
	z := float64(s.B2)
	for h := 0; h < s.Hidden; h++ {
		w := s.W1[h*4*d : (h+1)*4*d]
		acc := float64(s.B1[h])
		for j := 0; j < d; j++ {
			x, y := a[j], b[j]
			acc += float64(w[j]*x + w[d+j]*y + w[2*d+j]*(x-y) + w[3*d+j]*x*y)
		}
		if acc > 0 {
			z += float64(s.W2[h]) * acc
		}
	}
	return 1 / (1 + math.Exp(-z))
}

// scorerFile is the weights file: the Scorer's header and its arrays as
// base64 little-endian float32.
type scorerFile struct {
	*Scorer
	W1 string  `json:"w1"`
	B1 string  `json:"b1"`
	W2 string  `json:"w2"`
	B2 float32 `json:"b2"`
}

// Write stores the scorer as JSON.
func (s *Scorer) Write(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", " ")
	return enc.Encode(scorerFile{Scorer: s, W1: packFloats(s.W1), B1: packFloats(s.B1), W2: packFloats(s.W2), B2: s.B2})
}

// LoadScorer reads a scorer Write stored, checking its shapes.
func LoadScorer(r io.Reader) (*Scorer, error) {
	f := scorerFile{Scorer: &Scorer{}}
	if err := json.NewDecoder(io.LimitReader(r, 64<<20)).Decode(&f); err != nil {
		return nil, fmt.Errorf("segment: scorer: %w", err)
	}
	s := f.Scorer
	var err error
	for _, a := range []struct {
		dst  *[]float32
		src  string
		want int
	}{{&s.W1, f.W1, s.Hidden * 4 * s.Dims}, {&s.B1, f.B1, s.Hidden}, {&s.W2, f.W2, s.Hidden}} {
		if *a.dst, err = unpackFloats(a.src); err != nil {
			return nil, fmt.Errorf("segment: scorer %s: %w", s.Encoder, err)
		}
		if len(*a.dst) != a.want || a.want == 0 {
			return nil, fmt.Errorf("segment: scorer %s: %d weights where its shape (dims %d, hidden %d) wants %d", s.Encoder, len(*a.dst), s.Dims, s.Hidden, a.want)
		}
	}
	s.B2 = f.B2
	return s, nil
}

func packFloats(v []float32) string {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return base64.StdEncoding.EncodeToString(b)
}

func unpackFloats(s string) ([]float32, error) {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil || len(b)%4 != 0 {
		return nil, fmt.Errorf("weights are not base64 float32 values")
	}
	out := make([]float32, len(b)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out, nil
}

//go:embed weights
var weightFiles embed.FS

// Weights returns the trained scorer of an encoder ("glove-sif",
// "minilm-l6"), embedded in the binary.
func Weights(encoder string) (*Scorer, error) {
	f, err := weightFiles.Open("weights/" + encoder + ".json")
	if err != nil {
		return nil, fmt.Errorf("segment: no trained scorer for encoder %q; trained: %s", encoder, strings.Join(Trained(), ", "))
	}
	defer f.Close()
	return LoadScorer(f)
}

// Trained lists the encoders with an embedded scorer.
func Trained() []string {
	entries, _ := weightFiles.ReadDir("weights")
	var out []string
	for _, e := range entries {
		if name, ok := strings.CutSuffix(e.Name(), ".json"); ok {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}
