package text

import (
	"slices"
	"strings"
)

// Dict interns terms and n-grams of terms into dense int32 ids, one id
// space for all orders: a unigram, a bigram and a trigram are distinct
// concepts even when made of the same terms. Not safe for concurrent use.
type Dict struct {
	terms map[string]int32
	// Bigram and trigram keys pack their term ids into one uint64 (2 x 32
	// bits, 3 x 21 bits): integer keys hash faster than arrays. A trigram
	// with a term id >= 2^21 (a pool of over two million distinct terms)
	// goes to the exact-array map instead, so packing never collides.
	bi    map[uint64]int32
	tri   map[uint64]int32
	triXL map[[3]int32]int32
	keys  []gram   // by id
	names []string // by term number (gram.part[0] of a unigram)
}

const triBits = 21

type gram struct {
	n    uint8
	part [3]int32 // term ids; for a unigram, part[0] indexes Dict.names
}

// NewDict returns an empty dictionary presized for texts of about words
// words and n-grams up to order maxN (words 0 is fine): growing large maps
// rehashes, presizing avoids it.
func NewDict(words, maxN int) *Dict {
	words = max(0, min(words, 1<<17)) // beyond that, growth costs little relative to the work
	size := func(n int) int {
		if maxN < n {
			return 0
		}
		return words
	}
	return &Dict{terms: make(map[string]int32, words/4), bi: make(map[uint64]int32, size(2)),
		tri: make(map[uint64]int32, size(3)), triXL: map[[3]int32]int32{},
		keys: make([]gram, 0, words/4+size(2)+size(3))}
}

// WordHint estimates the number of words in texts from their byte length,
// for NewDict.
func WordHint(bytes int) int { return bytes / 6 }

// Len is the number of ids handed out.
func (d *Dict) Len() int { return len(d.keys) }

// Term returns the id of a term, interning it when new.
func (d *Dict) Term(t string) int32 { return d.term(t, true) }

// term interns t; clone copies a new term first, so that the dictionary
// never keeps a large text alive through a substring.
func (d *Dict) term(t string, clone bool) int32 {
	if id, ok := d.terms[t]; ok {
		return id
	}
	id := int32(len(d.keys))
	if clone {
		t = strings.Clone(t)
	}
	d.terms[t] = id
	d.keys = append(d.keys, gram{n: 1, part: [3]int32{int32(len(d.names))}})
	d.names = append(d.names, t)
	return id
}

// TermIDs appends the ids of already analysed terms (as Terms returns them),
// interning new ones: Analyzer.TermIDs without the tokenising and stemming.
// The terms are stand-alone strings (a cache holds them), so they are
// interned without a copy.
func (d *Dict) TermIDs(dst []int32, terms []string) []int32 {
	for _, t := range terms {
		dst = append(dst, d.term(t, false))
	}
	return dst
}

// LookupTerm returns the id of a known term without interning.
func (d *Dict) LookupTerm(t string) (int32, bool) {
	id, ok := d.terms[t]
	return id, ok
}

// Bigram returns the id of the bigram (a, b) of term ids, interning it.
func (d *Dict) Bigram(a, b int32) int32 {
	k := uint64(uint32(a))<<32 | uint64(uint32(b))
	if id, ok := d.bi[k]; ok {
		return id
	}
	id := int32(len(d.keys))
	d.bi[k] = id
	d.keys = append(d.keys, gram{n: 2, part: [3]int32{a, b}})
	return id
}

// Trigram returns the id of the trigram (a, b, c) of term ids, interning it.
func (d *Dict) Trigram(a, b, c int32) int32 {
	if (a|b|c)>>triBits != 0 {
		return d.trigramXL(a, b, c)
	}
	k := uint64(a)<<(2*triBits) | uint64(b)<<triBits | uint64(c)
	if id, ok := d.tri[k]; ok {
		return id
	}
	id := int32(len(d.keys))
	d.tri[k] = id
	d.keys = append(d.keys, gram{n: 3, part: [3]int32{a, b, c}})
	return id
}

func (d *Dict) trigramXL(a, b, c int32) int32 {
	k := [3]int32{a, b, c}
	if id, ok := d.triXL[k]; ok {
		return id
	}
	id := int32(len(d.keys))
	d.triXL[k] = id
	d.keys = append(d.keys, gram{n: 3, part: k})
	return id
}

// Order is the n-gram order (1, 2 or 3) of an id.
func (d *Dict) Order(id int32) int { return int(d.keys[id].n) }

// String is the n-gram of an id as its terms joined by spaces.
func (d *Dict) String(id int32) string {
	g := d.keys[id]
	if g.n == 1 {
		return d.names[g.part[0]]
	}
	parts := make([]string, g.n)
	for i := range parts {
		parts[i] = d.names[d.keys[g.part[i]].part[0]]
	}
	return strings.Join(parts, " ")
}

// NGrams appends to dst the set of n-gram ids of orders 1..maxN (maxN is
// clamped to [1,3]) over the term id sequence terms, interning new n-grams.
// The appended ids are sorted and distinct: a set, ready for coverage and
// document-frequency counting.
func (d *Dict) NGrams(dst []int32, terms []int32, maxN int) []int32 {
	start := len(dst)
	dst = append(dst, terms...)
	if maxN >= 2 {
		for i := 1; i < len(terms); i++ {
			dst = append(dst, d.Bigram(terms[i-1], terms[i]))
		}
	}
	if maxN >= 3 {
		for i := 2; i < len(terms); i++ {
			dst = append(dst, d.Trigram(terms[i-2], terms[i-1], terms[i]))
		}
	}
	set := dst[start:]
	slices.Sort(set)
	return dst[:start+len(slices.Compact(set))]
}
