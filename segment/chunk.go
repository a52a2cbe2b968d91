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
// number of whole sentences it holds (0 for a chunk [Fixed] cut inside one).
type Chunk struct {
	Start, End int
	Tokens     int
	Sentences  int
	// Cut says the chunk holds a piece of a sentence longer than the
	// maximum, cut at a word boundary.
	Cut bool
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

// Fixed cuts every Tokens tokens at a word boundary, ignoring sentences;
// a piece under MinTokens (the text's tail) takes words from the chunk
// before it.
type Fixed struct {
	Tokens, MinTokens int
	Counter           tokens.Counter
}

// Chunk implements Chunker. Each word is counted on its own, and a chunk
// ends before the word that would take it over Tokens (a single word longer
// than that is cut between runes).
func (f Fixed) Chunk(_ context.Context, text string) ([]Chunk, error) {
	us := units(text, words(text), f.Counter, f.Tokens)
	toks := unitTokens(us)
	cs := finish(text, us, Coarse(toks, f.Tokens), f.MinTokens, f.Tokens, f.Counter, nil)
	for i := range cs {
		cs[i].Sentences, cs[i].Cut = 0, false
	}
	return cs, nil
}

// Packed packs whole sentences greedily into chunks of at most Tokens
// tokens (by the sum of the sentences' counts); a sentence longer than that
// is cut at word boundaries, and a chunk under MinTokens merged with a
// neighbour.
type Packed struct {
	Tokens, MinTokens int
	Counter           tokens.Counter
}

// Chunk implements Chunker.
func (p Packed) Chunk(_ context.Context, text string) ([]Chunk, error) {
	us := units(text, Sentences(text), p.Counter, p.Tokens)
	return finish(text, us, Coarse(unitTokens(us), p.Tokens), p.MinTokens, p.Tokens, p.Counter, nil), nil
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
