package coverage

// wordFilter is a set of words that can answer "certainly not in the set"
// from a word's length and three of its bytes (text.TermHash), without
// hashing the whole word: most words of a pool are neither a query term nor the start of a
// title, and the map look-ups were most of the cost of finding those. Two
// bits per word in one of 64 words, from one multiplicative hash of those
// features (one bit from the length and first and last bytes alone let
// through half the words of the demo pools to the map when the set was
// their titles' first terms).
type wordFilter [64]uint64

func (f *wordFilter) addHash(h uint32) { f[h>>26] |= wordBits(h) }

// hasHash reports whether the word of hash h (text.TermHash) may be in the set.
// (Callers hash the word themselves: a method that did both would be too
// large to inline.)
func (f *wordFilter) hasHash(h uint32) bool {
	m := wordBits(h)
	return f[h>>26]&m == m
}

// wordBits are the word's two bits within its 64-bit word of the filter
// (chosen by the top bits of the hash; one cache line holds the bits of
// every word).
func wordBits(h uint32) uint64 { return 1<<(h>>20&63) | 1<<(h>>14&63) }
