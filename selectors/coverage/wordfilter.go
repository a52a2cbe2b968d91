package coverage

// wordFilter is a set of words that can answer "certainly not in the set"
// from a word's length and first and last bytes, without hashing it: most
// words of a pool are neither a query term nor the start of a title, and
// the map look-ups were most of the cost of finding those.
type wordFilter [64]uint64

func filterBit(w string) uint { return (uint(len(w))*31 + uint(w[0])*7 + uint(w[len(w)-1])) & 4095 }

func (f *wordFilter) add(w string) { b := filterBit(w); f[b>>6] |= 1 << (b & 63) }

func (f *wordFilter) mayHave(w string) bool {
	if len(w) == 0 {
		return false
	}
	b := filterBit(w)
	return f[b>>6]&(1<<(b&63)) != 0
}
