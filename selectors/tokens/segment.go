package tokens

import (
	"iter"
	"unicode"
	"unicode/utf8"
)

// The byte-pair merge of tiktoken-go is quadratic in the length of one
// pre-tokenizer piece, and its whitespace pattern backtracks: a 20 kB run of
// letters or spaces takes ~0.2 s, 1 MB would take minutes. Counting therefore
// encodes the text in segments cut at positions that are piece boundaries
// for both cl100k_base and o200k_base, which keeps the count exact:
//
//   - before an ASCII space that follows a non-whitespace character: no
//     pattern of either encoding ends a piece with a space after a
//     non-space (spaces open pieces, they never close them);
//   - between a letter and a following character that is not a letter, a
//     combining mark or an ASCII apostrophe: letter pieces end at their last
//     letter or mark, or take a 's/'t/... suffix in o200k_base.
//
// Only a run of more than maxSegment-minSegment bytes without such a
// boundary (1 kB of letters with no punctuation, or of whitespace) is cut
// at a plain character boundary; the count of that run may then differ by
// about one token per cut. Natural text never has such runs.
const (
	minSegment = 1024
	maxSegment = 2048
)

func segments(text string) iter.Seq[string] {
	return func(yield func(string) bool) {
		start := 0
		var prev rune = -1
		for p := 0; p < len(text); {
			r, size := utf8.DecodeRuneInString(text[p:])
			if n := p - start; n >= minSegment && (n >= maxSegment || safeCut(prev, r)) {
				if !yield(text[start:p]) {
					return
				}
				start = p
			}
			prev = r
			p += size
		}
		if start < len(text) || len(text) == 0 {
			yield(text[start:])
		}
	}
}

// safeCut reports whether the position between runes prev and r is a piece
// boundary of both encodings.
func safeCut(prev, r rune) bool {
	if prev < 0 {
		return false
	}
	if r == ' ' {
		return !isSpace(prev)
	}
	return unicode.IsLetter(prev) && !unicode.IsLetter(r) && !unicode.Is(unicode.M, r) && r != '\''
}

func isSpace(r rune) bool { return unicode.IsSpace(r) }
