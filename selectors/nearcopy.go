package selectors

import (
	"hash/fnv"
	"math"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Near-copies. A context that holds the same passage twice wastes the
// budget and is the one failure a user notices at once, so the diversity
// strategies (coverage, mmr, adagres, dpp, knapsack) never select a
// near-copy of an item they already hold (docs/quality.md measures it).
// Two candidates are near-copies when either test holds:
//   - their vectors have a cosine of at least NearCopyCosine;
//   - their texts share at least NearCopyOverlap of the distinct word pairs
//     (bigrams of the words, case and punctuation folded) of the longer of
//     the two. A reordered, retyped or extended copy keeps almost all of its
//     word pairs whatever the encoder makes of it (a one-word edit can leave
//     a cosine of only 0.86 under feature hashing, and centring on a pool
//     made only of copies hides them): one added word in a 12-word sentence
//     keeps 10 of 12 pairs, a clause of 5 words added to 15 keeps 14 of 19.
//     Texts that differ in what they say share fewer: "School uniforms
//     should (not) be banned" 3 of 5, "Animals should have rights (because
//     they feel pain)" 3 of 7.
const (
	NearCopyCosine  = 0.95
	NearCopyOverlap = 0.7
)

// CopyGuard tells whether a candidate is a near-copy of a selection. It
// works pick by pick - O(|S|) look-ups per check - so it adds no N x N work;
// the word pairs are computed only for the candidates it is asked about.
type CopyGuard struct {
	p        *Problem
	sims     Similarities // nil without vectors
	shingles [][]uint64   // per candidate, once asked about (nil before)
	done     []bool
}

// NewCopyGuard returns the guard of p.
func NewCopyGuard(p *Problem) *CopyGuard {
	g := &CopyGuard{p: p, shingles: make([][]uint64, len(p.Candidates)), done: make([]bool, len(p.Candidates))}
	if p.Similarities != nil || (len(p.Candidates) > 0 && p.HasVectors()) {
		g.sims = p.Sims()
	}
	return g
}

// CopyOf reports whether d is a near-copy of an item of sel or of a
// preselected candidate (Problem.Preselected: what earlier pages showed);
// d itself excluded.
func (g *CopyGuard) CopyOf(sel []int, d int) bool {
	for _, s := range sel {
		if g.pair(s, d) {
			return true
		}
	}
	return g.copyOfPreselected(d)
}

// CopyOfItems is CopyOf for a selection held as items.
func (g *CopyGuard) CopyOfItems(items []Item, d int) bool {
	for _, it := range items {
		if g.pair(it.Index, d) {
			return true
		}
	}
	return g.copyOfPreselected(d)
}

func (g *CopyGuard) copyOfPreselected(d int) bool {
	for _, s := range g.p.Preselected {
		if g.pair(s, d) {
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
	if c := g.p.Candidates; c[s].Text == c[d].Text {
		// The same text (a chunk stored twice): the same word pairs, all
		// shared if there are any; d's need not be computed.
		return len(g.shingle(s)) > 0
	}
	a, b := g.shingle(s), g.shingle(d)
	if len(a) == 0 || len(b) == 0 || float64(min(len(a), len(b))) < NearCopyOverlap*float64(max(len(a), len(b))) {
		return false // too different in length to share enough
	}
	return sharesAtLeast(a, b, NearCopyOverlap)
}

func (g *CopyGuard) shingle(d int) []uint64 {
	if !g.done[d] {
		c := &g.p.Candidates[d]
		if g.shingles[d] = c.WordPairs; c.WordPairs == nil {
			g.shingles[d] = WordPairs(c.Text)
		}
		g.done[d] = true
	}
	return g.shingles[d]
}

// SingleLine reports whether s is one line: no line break with more than
// white space after it (so no title line heads it).
func SingleLine(s string) bool {
	_, rest, ok := strings.Cut(s, "\n")
	return !ok || strings.TrimSpace(rest) == ""
}

// WordPairs returns the sorted distinct hashes of the text's consecutive word
// pairs, words being runs of letters and digits folded to lower case; a
// one-word text gives its word. Empty for a text without words.
func WordPairs(s string) []uint64 {
	const offset, prime = 14695981039346656037, 1099511628211 // FNV-1a
	// About one pair per 6 bytes of English text; sized once, not grown
	// from nothing (a 600-byte chunk cost 7 allocations).
	out := make([]uint64, 0, len(s)/5+1)
	var prev uint64
	h := uint64(offset)
	words := 0
	inWord := false
	end := func() {
		if words > 0 {
			out = append(out, prev*0x9E3779B97F4A7C15^h)
		}
		prev, h = h, offset
		words++
		inWord = false
	}
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf { // ASCII, the common case, without decoding
			i++
			switch {
			case 'a' <= c && c <= 'z' || '0' <= c && c <= '9':
			case 'A' <= c && c <= 'Z':
				c += 'a' - 'A'
			default:
				if inWord {
					end()
				}
				continue
			}
			h = (h ^ uint64(c)) * prime
			inWord = true
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		i += n
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			if inWord {
				end()
			}
			continue
		}
		var buf [utf8.UTFMax]byte
		for _, b := range buf[:utf8.EncodeRune(buf[:], unicode.ToLower(r))] {
			h = (h ^ uint64(b)) * prime
		}
		inWord = true
	}
	if inWord {
		end()
	}
	if words == 1 {
		out = append(out, prev)
	}
	sortHashes(out)
	return slices.Compact(out)
}

// sortHashes sorts hashes ascending. Up to 256 of them (a chunk's word
// pairs, most often) are spread over 64 buckets by their top bits, which
// for hashes are uniform, and the nearly sorted result is finished by
// insertion: half the time of slices.Sort for a chunk of 70 word pairs.
func sortHashes(h []uint64) {
	if len(h) > 256 {
		slices.Sort(h)
		return
	}
	var count [65]uint16
	var tmp [256]uint64
	for _, x := range h {
		count[x>>58+1]++
	}
	for b := 1; b < len(count); b++ {
		count[b] += count[b-1]
	}
	for _, x := range h {
		tmp[count[x>>58]] = x
		count[x>>58]++
	}
	copy(h, tmp[:len(h)])
	for i := 1; i < len(h); i++ {
		for j := i; j > 0 && h[j] < h[j-1]; j-- {
			h[j], h[j-1] = h[j-1], h[j]
		}
	}
}

// sharesAtLeast reports whether the share of the larger of two sorted sets
// found in the other is at least share, stopping as soon as what is left
// of the shorter cannot bring it there (most pairs of texts share few word
// pairs, so the merge rarely runs to the end).
func sharesAtLeast(a, b []uint64, share float64) bool {
	larger := float64(max(len(a), len(b)))
	// need: the fewest common elements that reach the share, as the
	// comparison float64(both)/larger >= share decides it.
	need := int(math.Ceil(share * larger))
	for need > 0 && float64(need-1)/larger >= share {
		need--
	}
	for float64(need)/larger < share {
		need++
	}
	i, j, both := 0, 0, 0
	for i < len(a) && j < len(b) {
		if both+min(len(a)-i, len(b)-j) < need {
			return false
		}
		x, y := a[i], b[j]
		if x == y {
			both++
		}
		if x <= y {
			i++
		}
		if y <= x {
			j++
		}
	}
	return both >= need
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

// SpentOnCopies reports whether a selection left room that the pool cannot
// fill with anything new: fewer than K items and budget left for some
// candidate not selected, yet every such candidate that fits is a near-copy
// of a selected (or preselected) one. A caller that can retrieve more (the
// module's widenTo) then widens the pool and selects again.
func SpentOnCopies(p *Problem, res *Result) bool {
	if len(res.Items) >= p.K() {
		return false
	}
	taken := make([]bool, len(p.Candidates))
	sel := make([]int, 0, len(res.Items)+len(p.Preselected))
	used := 0
	for _, it := range res.Items {
		taken[it.Index] = true
		sel = append(sel, it.Index)
		used += it.Tokens
	}
	for _, i := range p.Preselected {
		taken[i] = true
	}
	g := NewCopyGuard(p)
	fits := false
	for d, c := range p.Candidates {
		if taken[d] || !p.Fits(used, c.Tokens) {
			continue
		}
		fits = true
		if !g.CopyOf(sel, d) {
			return false // something new that fits: the strategy chose not to take it
		}
	}
	return fits
}
