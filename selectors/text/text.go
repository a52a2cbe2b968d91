// Package text turns chunk texts into the concepts the text-based strategies
// compare: word tokens, "terms" (tokens, lower-cased, English stopwords
// removed, at least two characters, Snowball English stem), and n-grams of
// adjacent terms.
//
// N-grams are interned into dense int32 ids by a Dict rather than joined
// into strings or hashed to uint64: interning is exact (no hash collisions),
// costs one map lookup per n-gram at extraction time and no string building,
// and dense ids let the strategies keep weights, document frequencies and
// "covered" flags in plain slices instead of maps in their hot loops.
package text

import (
	"iter"
	"strings"
	"unicode"
	"unicode/utf8"
)

// asciiWord marks the ASCII letters and digits: one load per byte in the
// tokenizer's loop, where almost every byte is ASCII.
var asciiWord = func() (w [utf8.RuneSelf]bool) {
	for c := range w {
		w[c] = 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
	}
	return w
}()

// Tokens yields the lower-cased word tokens of s: maximal runs of Unicode
// letters and digits (combining marks are kept inside a word, so decomposed
// accents do not split it). A token that is already lower-case is yielded
// as a substring of s, without allocation.
func Tokens(s string) iter.Seq[string] {
	return func(yield func(string) bool) {
		start, lower := -1, true
		for i := 0; i <= len(s); {
			inWord, size := false, 1
			if i < len(s) {
				if c := s[i]; c < utf8.RuneSelf { // ASCII: no decoding, never a mark
					inWord = asciiWord[c]
					if inWord && 'A' <= c && c <= 'Z' {
						lower = false
					}
				} else {
					var r rune
					r, size = utf8.DecodeRuneInString(s[i:])
					inWord = unicode.IsLetter(r) || unicode.IsDigit(r) || (start >= 0 && unicode.Is(unicode.M, r))
					if inWord && unicode.ToLower(r) != r {
						lower = false
					}
				}
			}
			switch {
			case inWord && start < 0:
				start = i
			case !inWord && start >= 0:
				tok := s[start:i]
				if !lower {
					tok = strings.ToLower(tok)
				}
				start, lower = -1, true
				if !yield(tok) {
					return
				}
			}
			i += size
		}
	}
}

// keep reports whether a lower-cased token is a term candidate: not a
// stopword and at least two characters (runes, not bytes) long.
func keep(tok string) bool {
	if len(tok) < 2 || IsStopword(tok) {
		return false
	}
	return utf8.RuneCountInString(tok) >= 2
}

// Terms appends the terms of s to dst: tokens, stopwords removed, length
// >= 2, stemmed. For many texts use an Analyzer, which caches stems.
func Terms(dst []string, s string) []string {
	for tok := range Tokens(s) {
		if keep(tok) {
			dst = append(dst, Stem(tok))
		}
	}
	return dst
}

// CountTerms is len(Terms(nil, s)) without stemming: the terms of a text
// that begins with s begin with Terms(s), so a caller holding the text's
// terms can slice them instead of analysing s again.
func CountTerms(s string) int {
	if n, ok := countTermsASCII(s); ok {
		return n
	}
	n := 0
	for tok := range Tokens(s) {
		if keep(tok) {
			n++
		}
	}
	return n
}

// countTermsASCII is CountTerms for an ASCII text, without decoding runes
// or allocating (a word is lower-cased into a stack buffer for the stopword
// look-up); ok is false when s has a byte outside ASCII.
func countTermsASCII(s string) (n int, ok bool) {
	var buf [32]byte
	w := 0 // length of the current word
	for i := 0; i <= len(s); i++ {
		var c byte = ' '
		if i < len(s) {
			if c = s[i]; c >= utf8.RuneSelf {
				return 0, false
			}
		}
		switch {
		case 'a' <= c && c <= 'z' || '0' <= c && c <= '9':
		case 'A' <= c && c <= 'Z':
			c += 'a' - 'A'
		default:
			if w >= 2 && (w > len(buf) || !IsStopword(string(buf[:w]))) {
				n++
			}
			w = 0
			continue
		}
		if w < len(buf) {
			buf[w] = c
		}
		w++
	}
	return n, true
}

// Bigrams appends the adjacent-term bigrams of terms to dst, each as the two
// terms joined by a space (for display and tests; strategies use Dict ids).
func Bigrams(dst []string, terms []string) []string {
	for i := 1; i < len(terms); i++ {
		dst = append(dst, terms[i-1]+" "+terms[i])
	}
	return dst
}

// Analyzer extracts terms with a cache of each token's term: a pool of
// chunks on one topic repeats most words, and a token seen before costs one
// look-up in a map of its own instead of the stopword look-up and the
// shared stem cache's (behind a lock). It is not safe for concurrent use;
// use one per selection run.
type Analyzer struct {
	terms map[string]string // token -> its term, "" when dropped (keep; Stem never gives "", FuzzTerms checks)
}

// NewAnalyzer returns an Analyzer with an empty cache.
func NewAnalyzer() *Analyzer { return &Analyzer{terms: make(map[string]string)} }

// term is tok's term, or "" when tok is not one (keep): one map look-up
// for a token seen before.
func (a *Analyzer) term(tok string) string {
	if t, ok := a.terms[tok]; ok {
		return t
	}
	t := ""
	if keep(tok) {
		t = Stem(tok)
	}
	// Clone the key: tok may be a substring of a large text we must not retain.
	a.terms[strings.Clone(tok)] = t
	return t
}

// Terms appends the terms of s to dst, like the package function Terms.
func (a *Analyzer) Terms(dst []string, s string) []string {
	for tok := range Tokens(s) {
		if t := a.term(tok); t != "" {
			dst = append(dst, t)
		}
	}
	return dst
}

// TermIDs appends the ids of the terms of s, in text order, interning new
// terms into d.
func (a *Analyzer) TermIDs(dst []int32, d *Dict, s string) []int32 {
	for tok := range Tokens(s) {
		if t := a.term(tok); t != "" {
			dst = append(dst, d.Term(t))
		}
	}
	return dst
}
