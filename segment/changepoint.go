package segment

import (
	"context"
	"math"
	"strings"

	"github.com/diverse-select/diverse-select/selectors/tokens"
)

// ChangePoint reads the whole document: it embeds every sentence and
// chooses the cuts that minimise, over all ways to cut the text into chunks
// within the size bounds, the chunks' scatter (for each chunk, the sum of
// its unit-length sentence vectors' squared distances to their mean: the
// linear-kernel change-point cost) plus Penalty for each chunk. The number
// of chunks follows from the text: a cut is made where it lowers the
// scatter by more than Penalty, whatever the pair of sentences beside it
// says alone. A cut at a blank line (the text's own paragraph break) costs
// no penalty, so a chunk ends with its paragraph whenever the bounds allow
// and the vectors do not call the two paragraphs one topic. Penalty is in units of the document's own scatter per
// sentence, so one value serves short and long texts and every encoder
// alike in scale. Solved exactly by dynamic programming over at most
// maxLookback sentences a chunk: O(s·L·d) time for s sentences, L the
// sentences that fit in MaxTokens (at most maxLookback) and d dimensions;
// O(s + d) memory; plus s encoder calls.
type ChangePoint struct {
	Encoder Encoder
	// Penalty is the cost of one more chunk in the document's mean
	// per-sentence scatter (DefaultPenalty when 0).
	Penalty float64
	// Scorer, when set, adds what SAGE's pair scorer says of the two
	// sentences beside each cut: Weight (DefaultWeight when 0) times its
	// log-odds that the second continues the first, in the same unit as
	// Penalty (a cut the scorer calls a paragraph break costs less).
	Scorer               *Scorer
	Weight               float64
	MinTokens, MaxTokens int
	Counter              tokens.Counter
}

// DefaultPenalty and DefaultWeight are ChangePoint's penalty and scorer
// weight, chosen on the validation articles for both encoders
// (docs/segmentation.md).
const (
	DefaultPenalty = 2.0
	DefaultWeight  = 1.0
)

// maxLookback bounds the sentences of one chunk the dynamic programme
// considers, so its time stays linear in the text when MaxTokens is large.
const maxLookback = 256

// Chunk implements Chunker.
func (p ChangePoint) Chunk(ctx context.Context, text string) ([]Chunk, error) {
	dims := 0
	if p.Scorer != nil {
		dims = p.Scorer.Dims
	}
	sents, vecs, err := embedSentences(ctx, p.Encoder, text, dims)
	if err != nil || len(sents) == 0 {
		return nil, err
	}
	us := units(text, sents, p.Counter, p.MaxTokens)
	toks := unitTokens(us)
	x := unitVectors(us, vecs)
	pen := p.Penalty
	if pen == 0 {
		pen = DefaultPenalty
	}
	w := p.Weight
	if w == 0 {
		w = DefaultWeight
	}
	scale := scatter(x) / float64(len(x))
	cut := make([]float64, len(us)) // cut[j]: the cost of a chunk starting at unit j > 0
	for j := 1; j < len(us); j++ {
		cut[j] = pen * scale
		if paragraphBreak(text[us[j-1].End:us[j].Start]) {
			cut[j] = 0 // the author's own cut: the vectors need not pay for it
		}
		if a, b := us[j-1].sentence, us[j].sentence; p.Scorer != nil && a != b {
			s := min(max(p.Scorer.Score(vecs[a], vecs[b]), 1e-6), 1-1e-6)
			cut[j] += w * math.Log(s/(1-s)) * scale
		}
	}
	starts := changePoints(x, toks, cut, p.MinTokens, p.MaxTokens)
	return finish(text, us, starts, p.MinTokens, p.MaxTokens, p.Counter, affinity(x)), nil
}

// paragraphBreak reports whether the text between two sentences holds a
// blank line: a paragraph break in the text's own layout.
func paragraphBreak(gap string) bool {
	return strings.Count(strings.ReplaceAll(gap, "\r", ""), "\n") >= 2
}

// unitVectors gives each unit its sentence's vector, scaled to unit length
// (a zero vector stays zero).
func unitVectors(us []unit, vecs [][]float32) [][]float64 {
	norm := make([][]float64, len(vecs))
	for i, v := range vecs {
		n := 0.0
		for _, f := range v {
			n += float64(f) * float64(f)
		}
		norm[i] = make([]float64, len(v))
		if n > 0 {
			n = math.Sqrt(n)
			for j, f := range v {
				norm[i][j] = float64(f) / n
			}
		}
	}
	out := make([][]float64, len(us))
	for i, u := range us {
		out[i] = norm[u.sentence]
	}
	return out
}

// scatter is the sum of the vectors' squared distances to their mean.
func scatter(x [][]float64) float64 {
	if len(x) == 0 {
		return 0
	}
	s := make([]float64, len(x[0]))
	sq := 0.0
	for _, v := range x {
		for j, f := range v {
			s[j] += f
			sq += f * f
		}
	}
	return sq - dot(s, s)/float64(len(x))
}

func dot(a, b []float64) float64 {
	t := 0.0
	for i := range a {
		t += a[i] * b[i]
	}
	return t
}

// changePoints returns the first unit of each chunk of the partition of x
// (units of toks tokens each, every one at most hi) that minimises the
// chunks' scatter plus cut[j] for each chunk starting at unit j > 0, with no
// chunk over hi tokens and - first - as few chunks under lo tokens as
// possible.
func changePoints(x [][]float64, toks []int, cut []float64, lo, hi int) []int {
	n := len(x)
	// under is the cost of a chunk under lo: more than any partition's
	// scatter and cuts together, so the fewest such chunks come first.
	under := 2 * float64(n+1)
	for _, c := range cut {
		under += math.Abs(c)
	}
	best := make([]float64, n+1)
	from := make([]int, n+1)
	acc := make([]float64, len(x[0]))
	for j := 1; j <= n; j++ {
		best[j] = math.Inf(1)
		clear(acc)
		sq, t := 0.0, 0
		for i := j - 1; i >= 0 && j-i <= maxLookback; i-- {
			t += toks[i]
			if t > hi && i < j-1 {
				break
			}
			for k, f := range x[i] {
				acc[k] += f
				sq += f * f
			}
			c := best[i] + sq - dot(acc, acc)/float64(j-i) + cut[i]
			if t < lo {
				c += under
			}
			if c < best[j] {
				best[j], from[j] = c, i
			}
		}
	}
	var starts []int
	for j := n; j > 0; j = from[j] {
		starts = append(starts, from[j])
	}
	for a, b := 0, len(starts)-1; a < b; a, b = a+1, b-1 {
		starts[a], starts[b] = starts[b], starts[a]
	}
	return starts
}

// affinity is the cosine of two runs' mean vectors, for merging a run under
// the minimum with the neighbour most like it.
func affinity(x [][]float64) func(a, b span) float64 {
	mean := func(r span) []float64 {
		m := make([]float64, len(x[0]))
		for _, v := range x[r.a:r.b] {
			for k, f := range v {
				m[k] += f
			}
		}
		return m
	}
	return func(a, b span) float64 {
		u, v := mean(a), mean(b)
		d := math.Sqrt(dot(u, u) * dot(v, v))
		if d == 0 {
			return 0
		}
		return dot(u, v) / d
	}
}
