package coverage

// wordFilter is a set of words that can answer "certainly not in the set"
// from a word's length and four of its bytes, without hashing the whole
// word: most words of a pool are neither a query term nor the start of a
// title, and the map look-ups were most of the cost of finding those. Two
// bits per word, taken from one multiplicative hash of those features, let
// through about 1 word in 200 that is not in a set of 100 (one bit from the
// length and first and last bytes alone let through half the words of the
// demo corpus when its titles' first terms were the set).
type wordFilter [64]uint64

func filterBits(w string) (uint, uint) {
	n := len(w)
	h := (uint64(n) | uint64(w[0])<<8 | uint64(w[n-1])<<16 | uint64(w[n/2])<<24 | uint64(w[(n-1)/3])<<32) *
		0x9E3779B97F4A7C15
	return uint(h >> 52), uint(h>>40) & 4095
}

func (f *wordFilter) add(w string) {
	if len(w) == 0 {
		return
	}
	a, b := filterBits(w)
	f[a>>6] |= 1 << (a & 63)
	f[b>>6] |= 1 << (b & 63)
}

func (f *wordFilter) mayHave(w string) bool {
	if len(w) == 0 {
		return false
	}
	a, b := filterBits(w)
	return f[a>>6]&(1<<(a&63)) != 0 && f[b>>6]&(1<<(b&63)) != 0
}
