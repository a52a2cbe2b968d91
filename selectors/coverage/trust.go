package coverage

import (
	"math"
	"slices"

	"github.com/diverse-select/diverse-select/selectors"
)

// Reading the pool (issue 42): how far the default trusts relevance
// against coverage. A strong encoder often sets the few chunks a question
// needs apart from the rest of the pool - a drop in the relevance curve
// right after them - and those chunks are often alike (two films, two
// people compared), so a coverage objective trades the second one for
// something more different. When the head of the curve has such a drop,
// within the items the budget admits (kbar), the candidates above it are
// the trusted head:
//
//   - their relevance is the pool's best (no lexical score reorders them),
//   - they cover none of each other, so each keeps its whole value beside
//     the others (the near-copy guard still drops a copy),
//   - and the kernel's power rises to trustedPower for this pool: only
//     closer likeness counts as covering, as the encoder's ranking is
//     trusted more.
//
// Then the head is worth what top-k would give it, and the rest of the
// budget diversifies. (Taking the head first, in relevance order, was
// measured and dropped: 3-8 points lower on HotpotQA's both-gold with
// every encoder, as the density greedy's order also weighs tokens.)
//
// When the curve is flat (no drop of DefaultTrustGap standard deviations
// of the pool's relevance), nothing changes. The drop is read in standard
// deviations of the pool's own relevance, so the rule is the same for
// every encoder's cosine scale. Even steps are sqrt(12)/n
// deviations apart, so a flat curve sets no head apart from 7 candidates
// up; in smaller pools the head is the first steps, which costs nothing
// when the budget admits most of the pool anyway.
//
// Evidence (make eval-tune, tuning and held-out halves, three encoders,
// docs/quality.md "Reading the pool"): the gap 0.5 lifted MiniLM's MuSiQue
// all-gold by 2-4 points and HotpotQA's by up to 2, held GloVe-SIF and
// USE-Lite within a point, and lowered Perspectrum's distractor tokens;
// 0.35 cost Perspectrum coverage 1-2 points, 0.75 gained less; power 4
// and 8 gave the same selections on these sets.
//
// Measured and dropped (issue 42): where a head is trusted and the price
// leaves the pool alone, the demand sharpened as the price sharpens it
// (relevance^4). A decisive curve says what the query wants, so a cluster
// of less relevant chunks should not outbid a trusted chunk by its mass -
// and 2Wiki's all-gold rose 1-2 points with every encoder, but GloVe-SIF's
// trusted heads hold fewer gold paragraphs: its HotpotQA both-gold at
// B = 600 fell 90.0 -> 88.7 and 18 eval-check floors failed. Only where the
// head is also decisive (headHeight 2.5), nothing was gained and
// all-MiniLM-L6-v2's MuSiQue answer in context at B = 600 fell 56 -> 54.
const (
	DefaultTrustGap = 0.5
	trustedPower    = 4.0
)

// trustedTop returns the most relevant candidates that stand above the
// largest gap at the head of the pool's relevance curve, when that gap is
// at least minGap standard deviations of the pool's relevance: the k most
// relevant for the k in [2, kmax] with the widest drop from the k-th to
// the (k+1)-th. nil when no gap qualifies. It reads the pool once for the
// deviation and once for its kmax+1 most relevant (kmax is kbar: a few).
func trustedTop(c []selectors.Candidate, kmax int, minGap float64) []int {
	n := len(c)
	kmax = min(kmax, n-1, maxTrusted)
	if minGap <= 0 || kmax < 2 {
		return nil
	}
	mean, sd := relevanceSpread(c)
	if !(sd > 1e-12*max(1, math.Abs(mean))) {
		return nil
	}
	head := headByRelevance(c, kmax+1)
	best, bestGap := 0, 0.0
	for k := 2; k <= kmax; k++ {
		if g := (c[head[k-1]].Relevance - c[head[k]].Relevance) / sd; g > bestGap {
			best, bestGap = k, g
		}
	}
	if best == 0 || bestGap < minGap {
		return nil
	}
	return head[:best]
}

// maxTrusted caps the head: without a budget kbar is the result cap,
// and a head is a few chunks, not a page.
const maxTrusted = 16

// headByRelevance returns the m most relevant candidates, most relevant
// first (ties: pool order), by insertion into a buffer of m: O(N m).
func headByRelevance(c []selectors.Candidate, m int) []int {
	head := make([]int, 0, m)
	for i := range c {
		r := c[i].Relevance
		if len(head) == m && !(r > c[head[m-1]].Relevance) {
			continue
		}
		j := len(head)
		if j < m {
			head = append(head, i)
		} else {
			j = m - 1
		}
		for ; j > 0 && r > c[head[j-1]].Relevance; j-- {
			head[j] = head[j-1]
		}
		head[j] = i
	}
	return head
}

// trust makes the trusted candidates cover none of each other: each keeps
// its whole value beside the others (the near-copy guard still applies).
// Their first gains are summed again as kernelGains sums them, so the lazy
// greedy's bounds stay exact.
func (o *objective) trust(top []int) {
	for _, d := range top {
		row := o.s[d*o.ld : d*o.ld+len(o.targets)]
		for _, u := range top {
			// The targets are in pool order (topTargets).
			if t, ok := slices.BinarySearch(o.targets, u); ok && u != d {
				row[t] = 0
			}
		}
		var g float64
		for t, x := range row {
			g += o.w[t] * float64(x)
		}
		o.base[d] = g
	}
}
