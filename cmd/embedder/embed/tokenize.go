package embed

import (
	"strings"
	"unicode"
)

// Tokenize splits text into lower-cased words: maximal runs of Unicode
// letters, digits and combining marks. Everything else (spaces,
// punctuation, hyphens, apostrophes) separates words, so "near-duplicate"
// and "near duplicate" tokenize the same.
func Tokenize(text string) []string {
	isWord := func(r rune) bool {
		return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r)
	}
	fields := strings.FieldsFunc(text, func(r rune) bool { return !isWord(r) })
	for i, f := range fields {
		fields[i] = strings.ToLower(f)
	}
	return fields
}

// stopwords are English function words. The hash embedder has no IDF, so
// without this list "the", "of" and "is" would dominate the cosine between
// unrelated texts.
var stopwords = func() map[string]bool {
	words := strings.Fields(`
a about above after again against all am an and any are as at be because
been before being below between both but by can could did do does doing
down during each few for from further had has have having he her here hers
herself him himself his how i if in into is it its itself just me more most
my myself no nor not now of off on once only or other our ours ourselves out
over own same she should so some such than that the their theirs them
themselves then there these they this those through to too under until up
very was we were what when where which while who whom why will with would
you your yours yourself yourselves s t d ll m re ve`)
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}()

// contentWords drops stopwords, but keeps all tokens when nothing else is
// left so that a text like "to be or not to be" still has features.
func contentWords(tokens []string) []string {
	out := make([]string, 0, len(tokens))
	for _, t := range tokens {
		if !stopwords[t] {
			out = append(out, t)
		}
	}
	if len(out) == 0 {
		return tokens
	}
	return out
}
