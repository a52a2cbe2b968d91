package knapsack

import (
	"context"
	"slices"

	"github.com/diverse-select/diverse-select/selectors"
)

func (in *instance) fits(used, d int) bool {
	return in.budget <= 0 || used+in.c[d].Tokens <= in.budget
}

// gain is the weight of d's concepts not yet covered.
func (in *instance) gain(d int, covered []bool) float64 {
	var g float64
	for _, u := range in.concepts(d) {
		if !covered[u] {
			g += in.w[u]
		}
	}
	return g
}

func (in *instance) key(g float64, d int) float64 {
	if in.density {
		return g / float64(in.c[d].Tokens)
	}
	return g
}

func (in *instance) cover(d int, covered []bool) {
	for _, u := range in.concepts(d) {
		covered[u] = true
	}
}

// greedy extends sel, whose items cover covered and use used tokens, by the
// lazy greedy over the other candidates, and returns the extended
// selection. covered is updated; q is scratch.
func (in *instance) greedy(ctx context.Context, sel []int, covered []bool, used int, q *queue) []int {
	q.e, q.c = q.e[:0], in.c
	seed := len(sel) // at most 3 (enumerate seeds): a linear scan is cheapest
	for d := range in.c {
		if in.fits(used, d) && !slices.Contains(sel[:seed], d) {
			g := in.gain(d, covered)
			q.e = append(q.e, entry{key: in.key(g, d), gain: g, d: int32(d)})
		}
	}
	q.init()
	var round int32
	for len(sel) < in.k && len(q.e) > 0 {
		top := &q.e[0]
		d := int(top.d)
		switch {
		case !in.fits(used, d): // the budget only shrinks: drop it for good
			q.pop()
		case top.round != round: // stale bound: refresh and re-sift
			top.gain = in.gain(d, covered)
			top.key, top.round = in.key(top.gain, d), round
			q.down(0)
		case top.gain <= 0: // the best gain is 0: nothing adds coverage
			return sel
		case in.guard.CopyOf(sel, d): // a near-copy of a selected item never becomes new
			q.pop()
		default:
			if ctx.Err() != nil {
				return sel // Select reports the error
			}
			q.pop()
			sel = append(sel, d)
			in.cover(d, covered)
			used += in.c[d].Tokens
			round++
		}
	}
	return sel
}

// greedyWithGuard runs the greedy from scratch and returns the best single
// fitting item instead when its coverage is larger.
func (in *instance) greedyWithGuard(ctx context.Context, stats map[string]float64) []int {
	covered := make([]bool, len(in.w))
	sel := in.greedy(ctx, nil, covered, 0, &queue{})
	stats["singleGuard"] = 0
	if in.k < 1 {
		return sel
	}
	clear(covered)
	best, bestV := -1, 0.0
	for d := range in.c {
		if !in.fits(0, d) {
			continue
		}
		if v := in.gain(d, covered); best < 0 || v > bestV || (v == bestV && selectors.Better(in.c, d, best)) {
			best, bestV = d, v
		}
	}
	if best >= 0 && bestV > in.value(sel) {
		stats["singleGuard"] = 1
		return []int{best}
	}
	return sel
}

// continueWithGuard extends the earlier pages' selection pre (their
// concepts covered, their tokens not counted) by the lazy greedy, and
// returns the new picks, or the best single new item when its gain given
// pre is larger.
func (in *instance) continueWithGuard(ctx context.Context, pre []int, stats map[string]float64) []int {
	covered := make([]bool, len(in.w))
	for _, d := range pre {
		in.cover(d, covered)
	}
	k := in.k
	in.k += len(pre) // greedy counts the seed in its limit
	sel := in.greedy(ctx, slices.Clone(pre), covered, 0, &queue{})[len(pre):]
	in.k = k
	stats["singleGuard"] = 0
	if k < 1 {
		return sel
	}
	clear(covered)
	for _, d := range pre {
		in.cover(d, covered)
	}
	var greedyGain float64
	for _, it := range in.items(append(slices.Clone(pre), sel...))[len(pre):] {
		greedyGain += it.Gain
	}
	best, bestV := -1, 0.0
	for d := range in.c {
		if !in.fits(0, d) || slices.Contains(pre, d) || in.guard.CopyOf(nil, d) {
			continue
		}
		if v := in.gain(d, covered); best < 0 || v > bestV || (v == bestV && selectors.Better(in.c, d, best)) {
			best, bestV = d, v
		}
	}
	if best >= 0 && bestV > greedyGain {
		stats["singleGuard"] = 1
		return []int{best}
	}
	return sel
}

// value is f(S), summed over the universe in id order so that every
// evaluation of the same set gives the same float.
func (in *instance) value(sel []int) float64 {
	return in.valueWith(sel, make([]bool, len(in.w)))
}

func (in *instance) valueWith(sel []int, scratch []bool) float64 {
	clear(scratch)
	for _, d := range sel {
		in.cover(d, scratch)
	}
	var f float64
	for u, c := range scratch {
		if c {
			f += in.w[u]
		}
	}
	return f
}

// items replays the selection order to explain every pick.
func (in *instance) items(sel []int) []selectors.Item {
	covered := make([]bool, len(in.w))
	out := make([]selectors.Item, len(sel))
	for k, d := range sel {
		var gain, red float64
		for _, u := range in.concepts(d) {
			if covered[u] {
				red += in.w[u]
			} else {
				gain += in.w[u]
			}
		}
		in.cover(d, covered)
		c := in.c[d]
		out[k] = selectors.Item{Index: d, Gain: gain, Relevance: c.Relevance, Redundancy: red, Tokens: c.Tokens}
	}
	return out
}
