package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/diverse-select/diverse-select/internal/corpus"
)

// The demo suite (issue 42): make run's corpus (internal/corpus: five
// topics, each query's facets, planted near-copies and hand-written
// paraphrases) as a library measurement. Per demo query the pool is the
// demoPool chunks of the whole corpus most like the query, as make run's
// nearText gives them; the metrics count, per selection, the query's facets
// covered, the near-copies (a pick of a copy group already picked), the
// paraphrase pairs (a paraphrase picked with the chunk it rewords, or a
// copy of it) and the picks and tokens of other topics.

// demoPool and demoBudgets are make run's pool and budget, and a tighter one.
const demoPool = 40

var demoBudgets = []int{300, 600}

// Demo metric names.
const (
	mFacets   = "facets covered"
	mCopies   = "near-copies"
	mParaPair = "paraphrase pairs"
	mOffPicks = "off-topic picks"
)

// demoSuite builds the demo suite with one encoder's vectors.
func demoSuite(e *env) *suite {
	chunks := corpus.Chunks()
	texts := make([]string, 0, len(chunks)+8)
	for _, c := range chunks {
		texts = append(texts, c.Text())
	}
	queries := corpus.Queries()
	for _, q := range queries {
		texts = append(texts, q.Text)
	}
	e.embedAll(texts)
	s := &suite{Name: "Demo", Metrics: []string{mFacets, mCopies, mParaPair, mOffPicks, mOtherTok}, Score: demoScore}
	for _, b := range demoBudgets {
		s.Constraints = append(s.Constraints, constraint{Budget: b})
	}
	for qi, q := range queries {
		qv := e.vec(q.Text)
		facet := map[string]int{}
		for fi, f := range q.Facets {
			facet[f.Facet] = fi
		}
		all := &instance{ID: q.ID, Query: q.Text, Half: qi % 2, NLabels: len(q.Facets), Other: []bool{}}
		for _, c := range chunks {
			all.Cands = append(all.Cands, e.candidate(c.ID, c.Text(), qv))
			var l []int
			if fi, ok := facet[c.Facet]; ok && c.Topic == q.Topic {
				l = []int{fi}
			}
			all.Labels = append(all.Labels, l)
			all.Other = append(all.Other, c.Topic != q.Topic)
		}
		finish(all)
		n := min(demoPool, len(all.Cands))
		in := &instance{ID: all.ID, Query: all.Query, Half: all.Half, NLabels: all.NLabels,
			Cands: all.Cands[:n], Labels: all.Labels[:n], Other: all.Other[:n]}
		s.Insts = append(s.Insts, in)
	}
	return s
}

// demoChunk finds a demo chunk by ID.
var demoChunk = func() func(id string) corpus.Chunk {
	byID := map[string]corpus.Chunk{}
	for _, c := range corpus.Chunks() {
		byID[c.ID] = c
	}
	return func(id string) corpus.Chunk { return byID[id] }
}()

func demoScore(in *instance, sel []int, _ constraint) []float64 {
	groups := map[string]bool{}
	copies, pairs, off := 0, 0, 0
	picked := map[string]bool{}
	for _, i := range sel {
		picked[in.Cands[i].ID] = true
	}
	// A chunk's group: its copy group, or itself.
	group := func(c corpus.Chunk) string {
		if c.DupGroup != "" {
			return c.DupGroup
		}
		return c.ID
	}
	pickedGroup := map[string]bool{}
	for _, i := range sel {
		pickedGroup[group(demoChunk(in.Cands[i].ID))] = true
	}
	for _, i := range sel {
		c := demoChunk(in.Cands[i].ID)
		if c.DupGroup != "" {
			if groups[c.DupGroup] {
				copies++
			}
			groups[c.DupGroup] = true
		}
		if c.ParaphraseOf != "" && pickedGroup[group(demoChunk(c.ParaphraseOf))] {
			pairs++
		}
		if in.Other[i] {
			off++
		}
	}
	return []float64{float64(labelsHit(sel, in.Labels)), float64(copies), float64(pairs), float64(off), float64(otherTokens(sel, in))}
}

// printDemo prints the demo suite per query: each label's facets (of the
// query's), near-copies, paraphrase pairs, off-topic picks and tokens at
// each budget.
func printDemo(w io.Writer, r *results, labels []string) {
	s := r.suite("Demo")
	if s == nil {
		return
	}
	fmt.Fprintf(w, "\n%s demo suite (pool %d): facets/of, near-copies, paraphrase pairs, off-topic picks, off-topic tokens\n", r.enc, demoPool)
	for ii, in := range s.Insts {
		for ci, c := range s.Constraints {
			fmt.Fprintf(w, "%-12s %s", in.ID, c)
			for _, l := range labels {
				o := r.out[s.Name][l]
				if o == nil {
					continue
				}
				v := func(m string) float64 { return o.vals[ci][slices.Index(s.Metrics, m)][ii] }
				fmt.Fprintf(w, "  %s %.0f/%d %.0f %.0f %.0f %.0f", strings.TrimPrefix(l, "coverage:"), v(mFacets), in.NLabels,
					v(mCopies), v(mParaPair), v(mOffPicks), v(mOtherTok))
			}
			fmt.Fprintln(w)
		}
	}
}
