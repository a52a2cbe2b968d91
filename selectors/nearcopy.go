package selectors

import (
	"hash/fnv"
	"unicode"
	"unicode/utf8"
)

// NearCopyCosine is the cosine at or above which two candidates' vectors make
// them near-copies. A context that holds the same passage twice wastes the
// budget and is the one failure a user notices at once, so the diversity
// strategies (coverage, mmr, adagres, dpp, knapsack) never select a
// near-copy of an item they already hold (docs/quality.md measures it).
const NearCopyCosine = 0.95

// CopyGuard tells whether a candidate is a near-copy of a selection: its
// cosine to a selected item is at least NearCopyCosine (when the problem has
// vectors), or its text equals a selected item's once normalised (case,
// punctuation and spacing folded). It works pick by pick - O(|S|) look-ups
// per check - so it adds no N x N work; the normalised texts are hashed only
// for the candidates it is asked about.
type CopyGuard struct {
	p    *Problem
	sims Similarities // nil without vectors
	keys map[int]uint64
}

// NewCopyGuard returns the guard of p.
func NewCopyGuard(p *Problem) *CopyGuard {
	g := &CopyGuard{p: p, keys: map[int]uint64{}}
	if p.Similarities != nil || (len(p.Candidates) > 0 && p.HasVectors()) {
		g.sims = p.Sims()
	}
	return g
}

// CopyOf reports whether d is a near-copy of an item of sel (d itself excluded).
func (g *CopyGuard) CopyOf(sel []int, d int) bool {
	for _, s := range sel {
		if g.pair(s, d) {
			return true
		}
	}
	return false
}

// CopyOfItems is CopyOf for a selection held as items.
func (g *CopyGuard) CopyOfItems(items []Item, d int) bool {
	for _, it := range items {
		if g.pair(it.Index, d) {
			return true
		}
	}
	return false
}

// pair reports whether two distinct candidates are near-copies.
func (g *CopyGuard) pair(s, d int) bool {
	if s == d {
		return false
	}
	if g.sims != nil && g.sims.At(s, d) >= NearCopyCosine {
		return true
	}
	c := g.p.Candidates
	return c[d].Text != "" && c[s].Text != "" && g.key(s) == g.key(d)
}

// key is the hash of d's normalised text.
func (g *CopyGuard) key(d int) uint64 {
	if k, ok := g.keys[d]; ok {
		return k
	}
	k := NormalizedTextHash(g.p.Candidates[d].Text)
	g.keys[d] = k
	return k
}

// NormalizedTextHash hashes a text after folding case and reducing every run
// of characters other than letters and digits to one separator, so texts
// that differ only in case, punctuation or spacing hash alike.
func NormalizedTextHash(s string) uint64 {
	h := fnv.New64a()
	var buf [utf8.UTFMax]byte
	sep := false
	started := false
	for _, r := range s {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			sep = started
			continue
		}
		if sep {
			h.Write([]byte{' '})
			sep = false
		}
		started = true
		n := utf8.EncodeRune(buf[:], unicode.ToLower(r))
		h.Write(buf[:n])
	}
	return h.Sum64()
}
