package text

import "slices"

// TermHash is a cheap hash of a term for set-membership pre-filters: the
// term's length and its first, middle and last bytes, mixed by one
// multiplication (its high half: 32 bits keep a cached term's hash at 4
// bytes, and the filters read fewer). It does not read the whole term, so distinct terms
// collide often; a filter built on it answers "certainly not in the set"
// and leaves the rest to an exact look-up. A caller that keeps a text's
// terms can keep their hashes too (TermHashes, Candidate.TermHashes), so
// that a strategy does not load and hash every term on every query.
func TermHash(term string) uint32 {
	n := len(term)
	if n == 0 {
		return 0
	}
	return uint32((uint64(n) | uint64(term[0])<<8 | uint64(term[n-1])<<16 | uint64(term[n>>1])<<24) * 0x9E3779B97F4A7C15 >> 32)
}

// TermHashes appends the TermHash of each of terms to dst.
func TermHashes(dst []uint32, terms []string) []uint32 {
	dst = slices.Grow(dst, len(terms))
	for _, t := range terms {
		dst = append(dst, TermHash(t))
	}
	return dst
}
