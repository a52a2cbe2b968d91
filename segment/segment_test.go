package segment

import (
	"bytes"
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/diverse-select/diverse-select/selectors/tokens"
)

func words4() tokens.Counter {
	c, _ := tokens.New(tokens.Words) // ceil(words * 4/3)
	return c
}

// texts returns the chunks' texts.
func texts(text string, cs []Chunk) []string {
	var out []string
	for _, c := range cs {
		out = append(out, text[c.Start:c.End])
	}
	return out
}

func TestCoarse(t *testing.T) {
	for _, tc := range []struct {
		toks  []int
		limit int
		want  []int
	}{
		{nil, 10, nil},
		{[]int{3}, 10, []int{0}},
		{[]int{3, 3, 3, 3}, 6, []int{0, 2}},
		{[]int{3, 3, 3, 3}, 7, []int{0, 2}},
		{[]int{3, 20, 3}, 10, []int{0, 1, 2}}, // a long sentence is a run of its own
		{[]int{5, 5, 5}, 4, []int{0, 1, 2}},
	} {
		if got := Coarse(tc.toks, tc.limit); !slices.Equal(got, tc.want) {
			t.Errorf("Coarse(%v, %d) = %v, want %v", tc.toks, tc.limit, got, tc.want)
		}
	}
}

func TestFixedAndPacked(t *testing.T) {
	const text = "One two three. Four five six seven. Eight nine."
	for _, tc := range []struct {
		name string
		c    Chunker
		want []string
	}{
		// words counter: a word costs ceil(4/3) = 2 tokens alone
		{"fixed 4", Fixed{Tokens: 4, Counter: words4()}, []string{"One two", "three. Four", "five six", "seven. Eight", "nine."}},
		{"fixed large", Fixed{Tokens: 100, Counter: words4()}, []string{text}},
		{"packed 6", Packed{Tokens: 6, Counter: words4()}, []string{"One two three.", "Four five six seven.", "Eight nine."}},
		{"packed 8", Packed{Tokens: 8, Counter: words4()}, []string{"One two three.", "Four five six seven.", "Eight nine."}},
		{"packed large", Packed{Tokens: 100, Counter: words4()}, []string{text}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cs, err := tc.c.Chunk(context.Background(), text)
			if err != nil {
				t.Fatal(err)
			}
			if got := texts(text, cs); !slices.Equal(got, tc.want) {
				t.Fatalf("chunks %q, want %q", got, tc.want)
			}
			for _, c := range cs {
				if want := words4().Count(text[c.Start:c.End]); c.Tokens != want {
					t.Errorf("chunk %q: %d tokens, want %d", text[c.Start:c.End], c.Tokens, want)
				}
			}
		})
	}
	for _, c := range []Chunker{Fixed{Tokens: 4, Counter: words4()}, Packed{Tokens: 4, Counter: words4()}} {
		if cs, _ := c.Chunk(context.Background(), " \n "); len(cs) != 0 {
			t.Errorf("%T of white space: %v", c, cs)
		}
	}
}

// topics embeds a sentence by its first letter: sentences with the same
// initial get the same vector, others orthogonal ones.
type topics struct{ calls int }

func (e *topics) Encode(_ context.Context, ts []string) ([][]float32, error) {
	e.calls++
	out := make([][]float32, len(ts))
	for i, t := range ts {
		v := make([]float32, 4)
		v[int(t[0])%4] = 1
		out[i] = v
	}
	return out, nil
}

type failing struct{}

func (failing) Encode(context.Context, []string) ([][]float32, error) {
	return nil, errors.New("down")
}

// sameScorer scores 1 when the two vectors are equal and 0 otherwise: one
// hidden unit over x1*x2 (a dot product of unit one-hot vectors).
func sameScorer() *Scorer {
	d := 4
	w1 := make([]float32, 4*d)
	for j := 0; j < d; j++ {
		w1[3*d+j] = 1
	}
	return &Scorer{Encoder: "test", Dims: d, Hidden: 1, W1: w1, B1: []float32{0}, W2: []float32{40}, B2: -20, Threshold: 0.5}
}

func TestSemantic(t *testing.T) {
	// Initials A (65 % 4 = 1) and B (66 % 4 = 2) are two topics.
	const text = "Apples are red. Apricots are orange. Bananas are yellow. Blueberries are blue. Avocados are green."
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		c    Chunker
		want []string
	}{
		{"sage", SAGE{Encoder: &topics{}, Scorer: sameScorer(), Threshold: 0.5, MaxTokens: 100, Counter: words4()},
			[]string{"Apples are red. Apricots are orange.", "Bananas are yellow. Blueberries are blue.", "Avocados are green."}},
		{"sage capped", SAGE{Encoder: &topics{}, Scorer: sameScorer(), Threshold: 0.5, MaxTokens: 4, Counter: words4()},
			[]string{"Apples are red.", "Apricots are orange.", "Bananas are yellow.", "Blueberries are blue.", "Avocados are green."}},
		{"sage threshold 0", SAGE{Encoder: &topics{}, Scorer: sameScorer(), Threshold: 0, MaxTokens: 100, Counter: words4()},
			[]string{text}},
		// distances 0, 1, 0, 1: the 50th percentile is 0.5, so both topic changes cut
		{"percentile 50", Percentile{Encoder: &topics{}, Percentile: 50, MaxTokens: 100, Counter: words4()},
			[]string{"Apples are red. Apricots are orange.", "Bananas are yellow. Blueberries are blue.", "Avocados are green."}},
		// the 100th percentile is the largest distance: nothing is above it
		{"percentile 100", Percentile{Encoder: &topics{}, Percentile: 100, MaxTokens: 100, Counter: words4()}, []string{text}},
		// no cut above the percentile, then packed: 4 tokens a sentence, 12 a chunk
		{"percentile capped", Percentile{Encoder: &topics{}, Percentile: 100, MaxTokens: 12, Counter: words4()},
			[]string{"Apples are red. Apricots are orange. Bananas are yellow.", "Blueberries are blue. Avocados are green."}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cs, err := tc.c.Chunk(ctx, text)
			if err != nil {
				t.Fatal(err)
			}
			if got := texts(text, cs); !slices.Equal(got, tc.want) {
				t.Fatalf("chunks %q, want %q", got, tc.want)
			}
		})
	}
	if _, err := (SAGE{Encoder: failing{}, Scorer: sameScorer(), Counter: words4()}).Chunk(ctx, text); err == nil {
		t.Error("SAGE: an encoder error was not returned")
	}
	wrong := sameScorer()
	wrong.Dims = 8
	if _, err := (SAGE{Encoder: &topics{}, Scorer: wrong, Counter: words4()}).Chunk(ctx, text); err == nil || !strings.Contains(err.Error(), "8") {
		t.Errorf("SAGE with a scorer of other dimensions: %v", err)
	}
	enc := &topics{}
	if cs, err := (SAGE{Encoder: enc, Scorer: sameScorer(), Counter: words4()}).Chunk(ctx, ""); err != nil || cs != nil || enc.calls != 0 {
		t.Errorf("empty text: %v, %v, %d encoder calls", cs, err, enc.calls)
	}
}

func TestPercentile(t *testing.T) {
	for _, tc := range []struct {
		v    []float64
		q    float64
		want float64
	}{
		{[]float64{3, 1, 2}, 50, 2},
		{[]float64{1, 2, 3, 4}, 50, 2.5},
		{[]float64{1, 2, 3, 4}, 100, 4},
		{[]float64{1, 2, 3, 4}, 0, 1},
		{nil, 95, math.Inf(1)},
	} {
		if got := percentile(tc.v, tc.q); got != tc.want {
			t.Errorf("percentile(%v, %v) = %v, want %v", tc.v, tc.q, got, tc.want)
		}
	}
}

func TestScorerFile(t *testing.T) {
	s := sameScorer()
	var b bytes.Buffer
	if err := s.Write(&b); err != nil {
		t.Fatal(err)
	}
	got, err := LoadScorer(bytes.NewReader(b.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	a, c := []float32{1, 0, 0, 0}, []float32{0, 1, 0, 0}
	if got.Score(a, a) != s.Score(a, a) || got.Score(a, c) != s.Score(a, c) || got.Score(a, a) < 0.99 || got.Score(a, c) > 0.01 {
		t.Errorf("scores after a round trip: %v %v, before %v %v", got.Score(a, a), got.Score(a, c), s.Score(a, a), s.Score(a, c))
	}
	for _, bad := range []string{`{"dims":4,"hidden":1,"w1":"AAAA","b1":"AAAAAA==","w2":"AAAAAA=="}`, `{"dims":4,"hidden":1,"w1":"%%"}`, `not json`, `{}`} {
		if _, err := LoadScorer(strings.NewReader(bad)); err == nil {
			t.Errorf("LoadScorer(%s): no error", bad)
		}
	}
}

func TestWeights(t *testing.T) {
	names := Trained()
	if !slices.Contains(names, "glove-sif") {
		t.Fatalf("trained scorers %v, want glove-sif among them", names)
	}
	for _, n := range names {
		s, err := Weights(n)
		if err != nil {
			t.Fatal(err)
		}
		if s.Encoder != n || s.Threshold <= 0 || s.Threshold >= 1 || s.Trained["command"] == nil {
			t.Errorf("%s: encoder %q, threshold %v, trained %v", n, s.Encoder, s.Threshold, s.Trained)
		}
	}
	if _, err := Weights("nope"); err == nil || !strings.Contains(err.Error(), "glove-sif") {
		t.Errorf("Weights(nope): %v, want an error naming the trained ones", err)
	}
}

// byText embeds each sentence by a fixed table (its own text's vector).
type byText map[string][]float32

func (m byText) Encode(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = m[t]
	}
	return out, nil
}

// TestChangePointParagraphBreaks: a blank line is a cut the change point
// takes whenever the bounds allow, though the vectors alone (the same text
// joined by spaces) call it one topic.
func TestChangePointParagraphBreaks(t *testing.T) {
	enc := byText{"Ann rows.": {1, 0.1}, "Ann swims.": {1, 0.1}, "Ann runs.": {1, 0.1}, "Bob rows.": {1, -0.1}, "Bob swims.": {1, -0.1}}
	paras := []string{"Ann rows. Ann swims. Ann runs.", "Bob rows. Bob swims."}
	for _, tc := range []struct {
		join   string
		lo, hi int
		want   int // chunks
	}{
		{" ", 0, 100, 1},
		{"\n\n", 0, 100, 2},
		{"\r\n\r\n", 0, 100, 2},
		{"\n\n", 7, 100, 1}, // the second paragraph alone (6 tokens) is under the minimum
	} {
		text := strings.Join(paras, tc.join)
		// a penalty over the whole text's scatter: no cut the vectors alone would make
		cs, err := ChangePoint{Encoder: enc, Penalty: 10, MinTokens: tc.lo, MaxTokens: tc.hi, Counter: words4()}.Chunk(context.Background(), text)
		if err != nil {
			t.Fatal(err)
		}
		if len(cs) != tc.want {
			t.Errorf("joined by %q, bounds [%d, %d]: chunks %q, want %d", tc.join, tc.lo, tc.hi, texts(text, cs), tc.want)
		}
	}
}
