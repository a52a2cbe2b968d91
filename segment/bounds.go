package segment

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/diverse-select/diverse-select/selectors/tokens"
)

// The size bounds every chunker keeps: no chunk over MaxTokens, and none
// under MinTokens unless the text is shorter or no cut of its units keeps
// every chunk within both (a neighbour too full to take a small piece is
// re-split around it; with no such cut, the two are joined and cut once at
// a word boundary, flagged Cut). Chunks hold whole sentences; a sentence
// longer than MaxTokens alone is cut at word boundaries into pieces of at
// most MaxTokens, each flagged ([Chunk.Cut]).

// unit is one piece a chunk is made of: a sentence, or a piece of a sentence
// longer than the maximum.
type unit struct {
	Span
	tokens   int
	sentence int  // index of the sentence it belongs to
	cut      bool // a piece of a sentence over the maximum
}

// CheckBounds refuses bounds no chunker can keep: maxTokens >= 1 and
// 0 <= minTokens <= maxTokens/2 (so two neighbours under the minimum always
// fit in one chunk).
func CheckBounds(minTokens, maxTokens int) error {
	if maxTokens < 1 {
		return fmt.Errorf("segment: maxTokens is %d; want at least 1", maxTokens)
	}
	if minTokens < 0 || minTokens > maxTokens/2 {
		return fmt.Errorf("segment: minTokens is %d; want 0..%d (at most half of maxTokens %d)", minTokens, maxTokens/2, maxTokens)
	}
	return nil
}

// units counts each sentence and cuts the ones over hi tokens at word
// boundaries (a single word over hi at rune boundaries) into pieces of at
// most hi tokens.
func units(text string, sents []Span, c tokens.Counter, hi int) []unit {
	out := make([]unit, 0, len(sents))
	for i, s := range sents {
		n := c.Count(text[s.Start:s.End])
		if n <= hi {
			out = append(out, unit{Span: s, tokens: n, sentence: i})
			continue
		}
		for _, p := range cutWords(text, s, c, hi) {
			out = append(out, unit{Span: p, tokens: c.Count(text[p.Start:p.End]), sentence: i, cut: true})
		}
	}
	return out
}

// cutWords packs the words of text[s] greedily into pieces of at most hi
// tokens (by the piece's own count); a word over hi alone is cut at rune
// boundaries.
func cutWords(text string, s Span, c tokens.Counter, hi int) []Span {
	var ws []Span
	var toks []int
	for _, w := range words(text[s.Start:s.End]) {
		start, end := s.Start+w.Start, s.Start+w.End
		for {
			n := c.Count(text[start:end])
			if n <= hi {
				ws, toks = append(ws, Span{Start: start, End: end}), append(toks, n)
				break
			}
			e := longestPrefix(text, start, end, c, hi)
			ws, toks = append(ws, Span{Start: start, End: e}), append(toks, c.Count(text[start:e]))
			start = e
		}
	}
	count := func(a, b int) int { return c.Count(text[ws[a].Start:ws[b-1].End]) }
	var out []Span
	for _, r := range pack(nil, toks, 0, len(ws), hi, count) {
		out = append(out, Span{Start: ws[r.a].Start, End: ws[r.b-1].End})
	}
	return out
}

// longestPrefix is the largest rune boundary e in (s, end] with
// text[s:e] at most hi tokens (at least one rune), by binary search.
func longestPrefix(text string, s, end int, c tokens.Counter, hi int) int {
	_, size := utf8.DecodeRuneInString(text[s:])
	lo, top := s+size, end
	for lo < top {
		mid := (lo + top + 1) / 2
		for mid > lo && !utf8.RuneStart(text[mid]) {
			mid--
		}
		if mid == lo {
			break
		}
		if c.Count(text[s:mid]) <= hi {
			lo = mid
		} else {
			top = mid - 1
			for top > lo && top < end && !utf8.RuneStart(text[top]) {
				top--
			}
		}
	}
	return lo
}

// span is a run of units [a, b) and its tokens.
type span struct{ a, b, tokens int }

// bound makes the runs that start at starts (increasing, starts[0] = 0)
// keep the bounds over units of toks tokens each (every one at most hi),
// count giving a run's own token count: a run over hi is packed again
// greedily ([Coarse]); a run under lo is merged with the neighbour it fits
// best - the one whose merge stays within hi and, given affinity (higher:
// more alike), the more alike, else the smaller. A run no neighbour can take
// borrows units from the end of the run before it while that one stays at lo
// or more. One pass; a run stays under lo only when neither helps.
func bound(toks, starts []int, lo, hi int, count func(a, b int) int, affinity func(a, b span) float64) []int {
	var runs []span
	for k, a := range starts {
		b := len(toks)
		if k+1 < len(starts) {
			b = starts[k+1]
		}
		runs = pack(runs, toks, a, b, hi, count)
	}
	var out []span
	for i := 0; i < len(runs); i++ {
		cur := runs[i]
		for cur.tokens < lo {
			var l, r span
			left := len(out) > 0
			if left {
				l = span{out[len(out)-1].a, cur.b, count(out[len(out)-1].a, cur.b)}
				left = l.tokens <= hi
			}
			right := i+1 < len(runs)
			if right {
				r = span{cur.a, runs[i+1].b, count(cur.a, runs[i+1].b)}
				right = r.tokens <= hi
			}
			if left && right {
				if affinity != nil {
					left = affinity(out[len(out)-1], cur) >= affinity(cur, runs[i+1])
				} else {
					left = l.tokens <= r.tokens
				}
			}
			if left {
				out, cur = out[:len(out)-1], l
			} else if right {
				i++
				cur = r
			} else {
				break
			}
		}
		if n := len(out); cur.tokens < lo && n > 0 {
			cur = borrow(&out[n-1], cur, lo, hi, count)
			// the lender shrank: a run under lo before it may fit with it now
			if m := 0; n >= 2 && out[n-2].tokens < lo {
				if m = count(out[n-2].a, out[n-1].b); m <= hi {
					out = append(out[:n-2], span{out[n-2].a, out[n-1].b, m})
				}
			}
		}
		out = append(out, cur)
	}
	if under(out, lo) && count(0, len(toks)) >= lo {
		out = repair(toks, out, lo, hi, count)
	}
	return startsOf(out)
}

// under reports whether a run is under lo.
func under(runs []span, lo int) bool {
	for _, r := range runs {
		if r.tokens < lo {
			return true
		}
	}
	return false
}

// repair cuts the units again when a run is still under lo after the merges
// (a merge over hi on both sides, a first run with no run before it to
// borrow from): the cut with the fewest runs under lo - none whenever whole
// units allow it - and, of those, the fewest boundaries added or dropped
// from runs, so a too-small run's neighbours are re-split around it and
// the rest of the cut stays. Dynamic programming over the run ends; a run's
// own count is taken exactly only near a bound (the sum of its units'
// counts within a token per unit of it, at most 18), which keeps the cost
// near linear, and the chosen runs are counted again: a cut that misjudged one
// is dropped for the runs as they were.
func repair(toks []int, runs []span, lo, hi int, count func(a, b int) int) []span {
	n := len(toks)
	start := make([]int, n+1) // start[i]: runs starting before unit i
	for _, r := range runs {
		start[r.a+1]++
	}
	for i := 1; i <= n; i++ {
		start[i] += start[i-1]
	}
	isStart := func(a int) bool { return start[a+1] > start[a] }
	const violation = 1 << 30 // a run under lo outweighs any moved boundary
	cost := make([]int, n+1)
	from := make([]int, n+1)
	for b := 1; b <= n; b++ {
		cost[b] = -1
		sum := 0
		for a := b - 1; a >= 0; a-- {
			sum += toks[a]
			slack := 2 + min(b-a, 16) // a unit's count beside its count in the run: a token or so a boundary
			if sum > hi+slack {
				break // longer runs only grow
			}
			if cost[a] < 0 {
				continue
			}
			m := sum
			if sum >= hi-slack || sum <= lo+slack {
				m = count(a, b)
			}
			if m > hi {
				continue
			}
			c := cost[a] + start[b] - start[a+1] // the boundaries inside (a, b) dropped
			if !isStart(a) {
				c++
			}
			if m < lo {
				c += violation
			}
			if cost[b] < 0 || c < cost[b] {
				cost[b], from[b] = c, a
			}
		}
	}
	if cost[n] < 0 {
		return runs
	}
	var out []span
	for b := n; b > 0; b = from[b] {
		out = append(out, span{from[b], b, count(from[b], b)})
	}
	slices.Reverse(out)
	bad, was := 0, 0
	for _, r := range out {
		if r.tokens > hi {
			return runs
		}
		if r.tokens < lo {
			bad++
		}
	}
	for _, r := range runs {
		if r.tokens < lo {
			was++
		}
	}
	if bad >= was {
		return runs
	}
	return out
}

// pack appends the run of units [a, b) to runs if it is within hi by its own
// count, else the runs of packing its units greedily by their counts, each
// end moved back while the run's own count is over hi (a single unit is
// within hi, being counted alone).
func pack(runs []span, toks []int, a, b, hi int, count func(a, b int) int) []span {
	if n := count(a, b); n <= hi {
		return append(runs, span{a, b, n})
	}
	for a < b {
		e, used := a+1, toks[a]
		for e < b && used+toks[e] <= hi {
			used += toks[e]
			e++
		}
		n := count(a, e)
		for n > hi && e-a > 1 {
			e--
			n = count(a, e)
		}
		runs = append(runs, span{a, e, n})
		a = e
	}
	return runs
}

// startsOf is the first unit of each run.
func startsOf(runs []span) []int {
	out := make([]int, len(runs))
	for k, r := range runs {
		out[k] = r.a
	}
	return out
}

// borrow moves units from the end of l, the run before cur, into cur while
// cur is under lo and l stays at lo or more: for a run no neighbour can
// take without going over the maximum (the text's tail, cut by length),
// and cur within hi.
func borrow(l *span, cur span, lo, hi int, count func(a, b int) int) span {
	for cur.tokens < lo && l.b-l.a > 1 {
		rest := count(l.a, l.b-1)
		if rest < lo || count(l.b-1, cur.b) > hi {
			break
		}
		l.b--
		l.tokens = rest
		cur = span{l.b, cur.b, count(l.b, cur.b)}
	}
	return cur
}

// unitTokens is the token counts of us.
func unitTokens(us []unit) []int {
	out := make([]int, len(us))
	for i, u := range us {
		out[i] = u.tokens
	}
	return out
}

// finish keeps the bounds on the runs of units that start at starts
// ([bound]), by each run's own token count, and makes them chunks.
func finish(text string, us []unit, starts []int, lo, hi int, c tokens.Counter, aff func(a, b span) float64) []Chunk {
	count := func(a, b int) int { return c.Count(text[us[a].Start:us[b-1].End]) }
	starts = bound(unitTokens(us), starts, lo, hi, count, aff)
	out := make([]Chunk, 0, len(starts))
	for k, first := range starts {
		last := len(us)
		if k+1 < len(starts) {
			last = starts[k+1]
		}
		out = append(out, chunkOf(text, us[first:last], c))
	}
	if lo > 0 && len(out) > 1 && c.Count(text[out[0].Start:out[len(out)-1].End]) >= lo {
		out = joinAndCut(text, us, out, lo, hi, c)
	}
	return out
}

// joinAndCut is the last resort of the bounds: a chunk still under lo has
// no cut of whole units around it (a short sentence beside one of nearly
// hi tokens), so it is joined with the neighbour whose join is smaller and
// the join is cut once at the word boundary nearest their old boundary
// that leaves both pieces within [lo, hi]; both are flagged Cut.
func joinAndCut(text string, us []unit, cs []Chunk, lo, hi int, c tokens.Counter) []Chunk {
	for k := 0; k < len(cs); k++ {
		if cs[k].Tokens >= lo {
			continue
		}
		nb := k - 1
		if nb < 0 || (k+1 < len(cs) && cs[k+1].Tokens < cs[nb].Tokens) {
			nb = k + 1
		}
		a, b := min(k, nb), max(k, nb)
		s, e, old := cs[a].Start, cs[b].End, cs[b].Start
		// The word boundaries nearest the old boundary first (ties: the
		// earlier), so the tokens are counted only until one fits.
		var at []int
		for _, w := range words(text[s:e]) {
			if w.Start > 0 {
				at = append(at, s+w.Start)
			}
		}
		slices.SortStableFunc(at, func(x, y int) int { return dist(x, old) - dist(y, old) })
		i := slices.IndexFunc(at, func(p int) bool {
			n, m := c.Count(strings.TrimRightFunc(text[s:p], unicode.IsSpace)), c.Count(text[p:e])
			return n >= lo && n <= hi && m >= lo && m <= hi
		})
		if i < 0 {
			continue
		}
		best := at[i]
		left, right := piece(text, us, s, best, c), piece(text, us, best, e, c)
		cs = append(cs[:a], append([]Chunk{left, right}, cs[b+1:]...)...)
	}
	return cs
}

// piece is the chunk text[s:e] (its trailing space left out), cut out of
// the units us: the whole sentences it holds, flagged Cut.
func piece(text string, us []unit, s, e int, c tokens.Counter) Chunk {
	e = s + len(strings.TrimRightFunc(text[s:e], unicode.IsSpace))
	ch := Chunk{Start: s, End: e, Tokens: c.Count(text[s:e]), Cut: true}
	for _, u := range us {
		if !u.cut && u.Start >= s && u.End <= e {
			ch.Sentences++
		}
	}
	return ch
}

func dist(a, b int) int {
	if a < b {
		return b - a
	}
	return a - b
}

// chunkOf is the chunk of the units us: from the first one's start to the
// last one's end, with the whole sentences it holds and whether it holds a
// piece of a sentence cut over the maximum.
func chunkOf(text string, us []unit, c tokens.Counter) Chunk {
	s, e := us[0].Start, us[len(us)-1].End
	ch := Chunk{Start: s, End: e, Tokens: c.Count(text[s:e])}
	for _, u := range us {
		if u.cut {
			ch.Cut = true
		} else {
			ch.Sentences++
		}
	}
	return ch
}
