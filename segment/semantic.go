package segment

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/diverse-select/diverse-select/internal/vecmath"
	"github.com/diverse-select/diverse-select/selectors/tokens"
)

// Encoder embeds sentences; it returns one vector per text, in order.
type Encoder interface {
	Encode(ctx context.Context, texts []string) ([][]float32, error)
}

// SAGE is SAGE's segmenter: coarse chunks of whole sentences of at most
// MaxTokens tokens ([Coarse]), cut further between neighbour sentences whose
// score is below Threshold; a chunk under MinTokens is merged with the
// neighbour most like it.
type SAGE struct {
	Encoder              Encoder
	Scorer               *Scorer
	Threshold            float64
	MinTokens, MaxTokens int
	Counter              tokens.Counter
}

// Chunk implements Chunker.
func (g SAGE) Chunk(ctx context.Context, text string) ([]Chunk, error) {
	sents, vecs, err := embedSentences(ctx, g.Encoder, text, g.Scorer.Dims)
	if err != nil || len(sents) == 0 {
		return nil, err
	}
	us := units(text, sents, g.Counter, g.MaxTokens)
	coarse := Coarse(unitTokens(us), g.MaxTokens)
	starts := merge(coarse, func(i int) bool {
		a, b := us[i-1].sentence, us[i].sentence
		return a != b && g.Scorer.Score(vecs[a], vecs[b]) < g.Threshold
	}, len(us))
	return finish(text, us, starts, g.MinTokens, g.MaxTokens, g.Counter, affinity(unitVectors(us, vecs))), nil
}

// Scores returns the scorer's value for each pair of neighbour sentences of
// text (len(sentences)-1 values), for evaluation and threshold choice.
func (g SAGE) Scores(ctx context.Context, text string) ([]Span, []float64, error) {
	sents, vecs, err := embedSentences(ctx, g.Encoder, text, g.Scorer.Dims)
	if err != nil {
		return nil, nil, err
	}
	out := make([]float64, max(0, len(sents)-1))
	for i := range out {
		out[i] = g.Scorer.Score(vecs[i], vecs[i+1])
	}
	return sents, out, nil
}

// DefaultPercentile is the percentile of the neighbour distances above
// which Percentile cuts, LangChain's SemanticChunker default.
const DefaultPercentile = 95

// Percentile is the similarity-percentile splitter: a cut where the cosine
// distance of neighbour sentences exceeds the Percentile-th percentile of
// the text's neighbour distances; chunks longer than MaxTokens are packed
// again into whole-sentence runs ([Coarse]), and a chunk under MinTokens is
// merged with the neighbour most like it.
type Percentile struct {
	Encoder              Encoder
	Percentile           float64
	MinTokens, MaxTokens int
	Counter              tokens.Counter
}

// Chunk implements Chunker.
func (p Percentile) Chunk(ctx context.Context, text string) ([]Chunk, error) {
	sents, vecs, err := embedSentences(ctx, p.Encoder, text, 0)
	if err != nil || len(sents) == 0 {
		return nil, err
	}
	dist := make([]float64, len(sents)) // dist[i]: between sentence i-1 and i
	for i := 1; i < len(sents); i++ {
		dist[i] = 1 - vecmath.Cosine(vecs[i-1], vecs[i])
	}
	limit := percentile(dist[1:], p.Percentile)
	us := units(text, sents, p.Counter, p.MaxTokens)
	toks := unitTokens(us)
	var starts []int
	for i := 0; i < len(us); {
		j := i + 1
		for j < len(us) && (us[j].sentence == us[j-1].sentence || dist[us[j].sentence] <= limit) {
			j++
		}
		for _, s := range Coarse(toks[i:j], p.MaxTokens) {
			starts = append(starts, i+s)
		}
		i = j
	}
	return finish(text, us, starts, p.MinTokens, p.MaxTokens, p.Counter, affinity(unitVectors(us, vecs))), nil
}

// percentile is the q-th percentile of v by linear interpolation between
// order statistics (numpy's default); +Inf for no values.
func percentile(v []float64, q float64) float64 {
	if len(v) == 0 {
		return math.Inf(1)
	}
	s := slices.Clone(v)
	slices.Sort(s)
	pos := q / 100 * float64(len(s)-1)
	lo := int(math.Floor(pos))
	if lo >= len(s)-1 {
		return s[len(s)-1]
	}
	return s[lo] + (pos-float64(lo))*(s[lo+1]-s[lo])
}

// embedSentences splits text and embeds its sentences, checking that the
// encoder returned one vector of dims values (0: any, but all equal) each.
func embedSentences(ctx context.Context, enc Encoder, text string, dims int) ([]Span, [][]float32, error) {
	sents := Sentences(text)
	if len(sents) == 0 {
		return nil, nil, nil
	}
	texts := make([]string, len(sents))
	for i, s := range sents {
		texts[i] = text[s.Start:s.End]
	}
	vecs, err := enc.Encode(ctx, texts)
	if err != nil {
		return nil, nil, err
	}
	if len(vecs) != len(texts) {
		return nil, nil, fmt.Errorf("segment: the encoder returned %d vectors for %d sentences", len(vecs), len(texts))
	}
	if dims == 0 {
		dims = len(vecs[0])
	}
	for _, v := range vecs {
		if len(v) != dims {
			return nil, nil, fmt.Errorf("segment: the encoder returned a vector of %d dimensions, the scorer wants %d", len(v), dims)
		}
	}
	return sents, vecs, nil
}
