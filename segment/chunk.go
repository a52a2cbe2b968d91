package segment

import (
	"context"
	"unicode"
	"unicode/utf8"

	"github.com/diverse-select/diverse-select/selectors/sentences"
	"github.com/diverse-select/diverse-select/selectors/tokens"
)

// Span is a byte range text[Start:End].
type Span = sentences.Span

// Chunk is one chunk of a text: text[Start:End], its token count and the
// number of sentences it holds (0 for a chunk [Fixed] cut inside one).
type Chunk struct {
	Start, End int
	Tokens     int
	Sentences  int
}

// Chunker cuts a text into chunks that cover its sentences in order.
// Implementations are safe for concurrent use.
type Chunker interface {
	Chunk(ctx context.Context, text string) ([]Chunk, error)
}

// Sentences splits text into sentences (selectors/sentences: at
// '.', '!', '?' and '…' before a capital, a digit or a quote, and at list
// items and blank lines; not after abbreviations, initials or inside
// numbers).
func Sentences(text string) []Span { return sentences.Sentences(text) }

// Fixed cuts every Tokens tokens at a word boundary, ignoring sentences.
type Fixed struct {
	Tokens  int
	Counter tokens.Counter
}

// Chunk implements Chunker. Each word is counted on its own, and a chunk
// ends before the word that would take it over Tokens (a single word longer
// than that is a chunk of its own); the chunk's own count is then exact.
func (f Fixed) Chunk(_ context.Context, text string) ([]Chunk, error) {
	var out []Chunk
	start, used := -1, 0
	for _, w := range words(text) {
		if start < 0 {
			start = w.Start
		}
		n := f.Counter.Count(text[w.Start:w.End])
		if used > 0 && used+n > f.Tokens {
			out = append(out, f.chunk(text, start, prevEnd(text, w.Start)))
			start, used = w.Start, 0
		}
		used += n
	}
	if start >= 0 {
		out = append(out, f.chunk(text, start, trimEnd(text, len(text))))
	}
	return out, nil
}

func (f Fixed) chunk(text string, s, e int) Chunk {
	return Chunk{Start: s, End: e, Tokens: f.Counter.Count(text[s:e])}
}

// Packed packs whole sentences greedily into chunks of at most Tokens
// tokens (by the sum of the sentences' counts).
type Packed struct {
	Tokens  int
	Counter tokens.Counter
}

// Chunk implements Chunker.
func (p Packed) Chunk(_ context.Context, text string) ([]Chunk, error) {
	sents := Sentences(text)
	return build(text, sents, Coarse(sentenceTokens(text, sents, p.Counter), p.Tokens), p.Counter), nil
}

// Coarse groups consecutive sentences whose token counts are toks into runs
// of at most limit tokens, greedily: it returns the index of the first
// sentence of each run. A sentence longer than limit is a run of its own.
func Coarse(toks []int, limit int) []int {
	var starts []int
	used := 0
	for i, t := range toks {
		if i == 0 || used+t > limit {
			starts = append(starts, i)
			used = 0
		}
		used += t
	}
	return starts
}

// sentenceTokens counts each sentence.
func sentenceTokens(text string, sents []Span, c tokens.Counter) []int {
	out := make([]int, len(sents))
	for i, s := range sents {
		out[i] = c.Count(text[s.Start:s.End])
	}
	return out
}

// build turns the first sentence of each chunk (increasing, starts[0] = 0)
// into chunks from the first sentence's start to the last one's end.
func build(text string, sents []Span, starts []int, c tokens.Counter) []Chunk {
	out := make([]Chunk, 0, len(starts))
	for k, first := range starts {
		last := len(sents)
		if k+1 < len(starts) {
			last = starts[k+1]
		}
		s, e := sents[first].Start, sents[last-1].End
		out = append(out, Chunk{Start: s, End: e, Tokens: c.Count(text[s:e]), Sentences: last - first})
	}
	return out
}

// merge adds the cuts of cut (sentence indices that start a chunk) to the
// coarse starts, in order and without repeats.
func merge(coarse []int, cut func(i int) bool, n int) []int {
	var out []int
	k := 0
	for i := 0; i < n; i++ {
		if k < len(coarse) && coarse[k] == i {
			out = append(out, i)
			k++
			continue
		}
		if cut(i) {
			out = append(out, i)
		}
	}
	return out
}

// words returns the spans of the white-space separated words of text.
func words(text string) []Span {
	var out []Span
	start := -1
	for i, r := range text {
		if unicode.IsSpace(r) {
			if start >= 0 {
				out = append(out, Span{Start: start, End: i})
				start = -1
			}
		} else if start < 0 {
			start = i
		}
	}
	if start >= 0 {
		out = append(out, Span{Start: start, End: len(text)})
	}
	return out
}

// prevEnd is the end of the word before the white space that precedes i.
func prevEnd(text string, i int) int { return trimEnd(text, i) }

// trimEnd moves e back over white space.
func trimEnd(text string, e int) int {
	for e > 0 {
		r, size := utf8.DecodeLastRuneInString(text[:e])
		if !unicode.IsSpace(r) {
			break
		}
		e -= size
	}
	return e
}
