// Package sentences splits a text into sentences by rule: the one splitter
// of the evidence cards (selectors/evidence) and the chunkers (segment), so
// neither depends on the other. No model, no Weaviate imports; O(n).
package sentences

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Span is one sentence of a text: Text[Start:End], trimmed of surrounding
// white space.
type Span struct{ Start, End int }

// abbreviations end with a full stop that does not end a sentence when the
// next word starts with a capital (titles, Latin, months, units of address).
// Lower case, without the final stop; inner stops kept ("e.g", "u.s").
var abbreviations = map[string]bool{
	"mr": true, "mrs": true, "ms": true, "dr": true, "prof": true, "sr": true, "jr": true, "st": true,
	"rev": true, "gen": true, "col": true, "lt": true, "sgt": true, "capt": true, "gov": true, "sen": true,
	"rep": true, "hon": true, "pres": true, "messrs": true, "mt": true, "ft": true, "ave": true, "blvd": true,
	"vs": true, "etc": true, "e.g": true, "i.e": true, "cf": true, "al": true, "approx": true, "ca": true,
	"inc": true, "ltd": true, "co": true, "corp": true, "no": true, "nos": true, "fig": true, "figs": true,
	"vol": true, "pp": true, "p": true, "ed": true, "eds": true, "est": true, "dept": true, "univ": true,
	"jan": true, "feb": true, "mar": true, "apr": true, "jun": true, "jul": true, "aug": true, "sep": true,
	"sept": true, "oct": true, "nov": true, "dec": true, "u.s": true, "u.k": true, "u.n": true, "d.c": true,
	"a.m": true, "p.m": true, "ph.d": true, "b.a": true, "m.a": true, "b.sc": true, "m.sc": true,
}

// Sentences splits text into sentences. A sentence ends at '.', '!', '?' or
// '…' (with any closing quotes and brackets after it) followed by white
// space and a word that starts with a capital letter, a digit or an opening
// quote, or at the end of the text; and at a line break that starts a list
// item ("- ", "* ", "• ", "1. ", "2) ") or follows an empty line. A full stop
// is not an end after a known abbreviation ("Dr.", "e.g.", "U.S."), after a
// single capital letter (an initial: "J. R. R. Tolkien"), inside a number
// ("3.14") or when the next word is lower case.
func Sentences(text string) []Span {
	var out []Span
	start := 0
	emit := func(end int) {
		if s, e := trim(text, start, end); e > s {
			out = append(out, Span{s, e})
		}
	}
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		switch {
		case r == '\n':
			if next, ok := lineBreakEnds(text, i); ok {
				emit(i)
				start = next
				i = next
				continue
			}
		case r == '.' || r == '!' || r == '?' || r == '…':
			end := closers(text, i+size)
			if endsSentence(text, start, i, r, end) {
				emit(end)
				start = end
				i = end
				continue
			}
		}
		i += size
	}
	emit(len(text))
	return out
}

// closers skips the closing quotes and brackets that belong to the sentence
// ending before i ("...end.)" or `...end?"`).
func closers(text string, i int) int {
	for i < len(text) {
		r, size := utf8.DecodeRuneInString(text[i:])
		if !strings.ContainsRune(`"')]}’”»`, r) {
			break
		}
		i += size
	}
	return i
}

// endsSentence decides whether the mark r at text[i] (whose sentence with
// closers ends at end) closes the sentence that began at start.
func endsSentence(text string, start, i int, r rune, end int) bool {
	if end < len(text) {
		next, _ := utf8.DecodeRuneInString(text[end:])
		if !unicode.IsSpace(next) {
			return false // "3.14", "e.g.x", "?!" inside a token
		}
	}
	after := nextWordStart(text, end)
	if after < len(text) {
		n, _ := utf8.DecodeRuneInString(text[after:])
		if !(unicode.IsUpper(n) || unicode.IsDigit(n) || strings.ContainsRune(`"'‘“«([`, n)) {
			return false // "e.g. the", `"Why?" he asked`
		}
	}
	if r != '.' {
		return true
	}
	word := lastWord(text, start, i)
	if abbreviations[strings.ToLower(word)] {
		return false
	}
	// An initial: one capital letter ("J. Smith"). Its neighbour words decide
	// nothing reliably, so an initial never ends a sentence.
	if utf8.RuneCountInString(word) == 1 {
		w, _ := utf8.DecodeRuneInString(word)
		return !unicode.IsUpper(w)
	}
	return true
}

// lastWord is the run of letters, digits and inner full stops ending at i.
func lastWord(text string, start, i int) string {
	j := i
	for j > start {
		r, size := utf8.DecodeLastRuneInString(text[start:j])
		if !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '.') {
			break
		}
		j -= size
	}
	return strings.TrimLeft(text[j:i], ".")
}

// nextWordStart is the index of the first rune after i that is not space.
func nextWordStart(text string, i int) int {
	for i < len(text) {
		r, size := utf8.DecodeRuneInString(text[i:])
		if !unicode.IsSpace(r) {
			return i
		}
		i += size
	}
	return i
}

// lineBreakEnds reports whether the line break at text[i] ends a sentence:
// the next line is empty or starts a list item. It returns where the next
// sentence starts (after the list marker).
func lineBreakEnds(text string, i int) (int, bool) {
	j := i + 1
	for j < len(text) && (text[j] == ' ' || text[j] == '\t' || text[j] == '\r') {
		j++
	}
	if j >= len(text) {
		return j, true
	}
	if text[j] == '\n' {
		return j, true
	}
	if m := listMarker(text[j:]); m > 0 {
		return j + m, true
	}
	return 0, false
}

// listMarker returns the length of a list marker at the start of s ("- ",
// "* ", "• ", "12. ", "3) ") with its following space, or 0.
func listMarker(s string) int {
	for _, b := range []string{"- ", "* ", "• ", "– "} {
		if strings.HasPrefix(s, b) {
			return len(b)
		}
	}
	d := 0
	for d < len(s) && d < 3 && s[d] >= '0' && s[d] <= '9' {
		d++
	}
	if d > 0 && d+1 < len(s) && (s[d] == '.' || s[d] == ')') && s[d+1] == ' ' {
		return d + 2
	}
	return 0
}

// trim narrows [s, e) of text to exclude white space at both ends.
func trim(text string, s, e int) (int, int) {
	for s < e {
		r, size := utf8.DecodeRuneInString(text[s:e])
		if !unicode.IsSpace(r) {
			break
		}
		s += size
	}
	for e > s {
		r, size := utf8.DecodeLastRuneInString(text[s:e])
		if !unicode.IsSpace(r) {
			break
		}
		e -= size
	}
	return s, e
}
