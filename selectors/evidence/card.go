package evidence

import (
	"math"
	"slices"
	"strings"

	"github.com/diverse-select/diverse-select/selectors/text"
)

// Options says how much of a chunk a card keeps.
type Options struct {
	// Sentences is the most sentences kept (>= 1).
	Sentences int
	// MaxWords is the most words a card holds; 0 = no limit. A best sentence
	// longer than that is cut at a word boundary and marked with "…".
	MaxWords int
	// Lead keeps the chunk's first sentence as one of the Sentences, whatever
	// its score: it usually names what the chunk is about (the entity a
	// second-hop question reaches without naming it).
	Lead bool
}

// Defaults are the rule-based variant of the TREC RAG 2025 system: up to two
// sentences, at most 55 words (its LLM variant's card length).
var Defaults = Options{Sentences: 2, MaxWords: 55}

// Analysed is a chunk split into sentences, each with its terms (as
// text.Terms gives them). It depends on the chunk alone, so a caller caches
// it per object and reuses it across queries.
type Analysed struct {
	Text      string
	Spans     []Span
	Terms     [][]string
	WordCount []int
}

// Analyse splits text into sentences and analyses each one. a may be nil.
func Analyse(chunk string, a *text.Analyzer) *Analysed {
	if a == nil {
		a = text.NewAnalyzer()
	}
	spans := Sentences(chunk)
	out := &Analysed{Text: chunk, Spans: spans, Terms: make([][]string, len(spans)), WordCount: make([]int, len(spans))}
	for i, s := range spans {
		out.Terms[i] = a.Terms(nil, chunk[s.Start:s.End])
		out.WordCount[i] = len(strings.Fields(chunk[s.Start:s.End]))
	}
	return out
}

// Bytes estimates the memory an Analysed holds, for a size-bounded cache.
func (x *Analysed) Bytes() int {
	n := 64 + len(x.Text) + 40*len(x.Spans)
	for _, ts := range x.Terms {
		for _, t := range ts {
			n += 16 + len(t)
		}
	}
	return n
}

// Query is what a card is scored against: each query term with its weight,
// the BM25 idf of the term over the candidate pool (rare terms decide).
type Query struct {
	weights map[string]float64
}

// NewQuery weighs the distinct terms of the query by their idf over pool,
// the analysed terms of every candidate chunk (documents).
func NewQuery(queryTerms []string, pool [][]string) *Query {
	q := &Query{weights: make(map[string]float64, len(queryTerms))}
	for _, t := range queryTerms {
		q.weights[t] = 0
	}
	df := make(map[string]int, len(q.weights))
	for _, doc := range pool {
		for _, t := range dedup(doc) {
			if _, ok := q.weights[t]; ok {
				df[t]++
			}
		}
	}
	n := float64(len(pool))
	for t := range q.weights {
		m := float64(df[t])
		q.weights[t] = math.Log((n-m+0.5)/(m+0.5) + 1)
	}
	return q
}

// Expand adds terms to the query with weight w each (unless the query has
// the term already): bridge entities from other selected chunks, for the
// second hop of a multi-hop question, which often shares no word with it.
func (q *Query) Expand(terms []string, w float64) {
	for _, t := range terms {
		if _, ok := q.weights[t]; !ok {
			q.weights[t] = w
		}
	}
}

// MaxWeight is the largest weight of a query term (0 for an empty query).
func (q *Query) MaxWeight() float64 {
	m := 0.0
	for _, w := range q.weights {
		m = max(m, w)
	}
	return m
}

// Score is the idf-weighted overlap of a sentence's distinct terms with the query.
func (q *Query) Score(terms []string) float64 {
	s := 0.0
	for _, t := range dedup(terms) {
		s += q.weights[t]
	}
	return s
}

// Card is a chunk compressed to its best sentences, in text order.
type Card struct {
	Text string
	// Sentences are the indices (into Analysed.Spans) of the kept sentences, ascending.
	Sentences []int
	Words     int
	// Cut reports that the one kept sentence was longer than MaxWords and was cut.
	Cut bool
}

// Card keeps the chunk's best sentences for q: those that share a term with
// the query, by score (ties: the earlier sentence), as many as o.Sentences
// and o.MaxWords allow, then puts them back in text order. A chunk that
// shares no term with the query keeps its leading sentences (a chunk's topic
// sentence usually comes first).
func (q *Query) Card(x *Analysed, o Options) Card {
	if len(x.Spans) == 0 {
		return Card{}
	}
	order := make([]int, len(x.Spans))
	scores := make([]float64, len(x.Spans))
	for i := range order {
		order[i] = i
		scores[i] = q.Score(x.Terms[i])
	}
	if o.Lead {
		scores[0] = math.Inf(1)
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case scores[a] > scores[b]:
			return -1
		case scores[a] < scores[b]:
			return 1
		}
		return 0
	})
	limit := max(o.Sentences, 1)
	matched := scores[order[0]] > 0
	var kept []int
	words := 0
	for _, i := range order {
		if len(kept) == limit || matched && scores[i] == 0 {
			break
		}
		if o.MaxWords > 0 && words+x.WordCount[i] > o.MaxWords {
			continue
		}
		kept = append(kept, i)
		words += x.WordCount[i]
	}
	if len(kept) == 0 { // the best sentence alone is longer than MaxWords
		best := order[0]
		s := x.Spans[best]
		return Card{Text: cutWords(x.Text[s.Start:s.End], o.MaxWords), Sentences: []int{best}, Words: o.MaxWords, Cut: true}
	}
	slices.Sort(kept)
	parts := make([]string, len(kept))
	for j, i := range kept {
		parts[j] = x.Text[x.Spans[i].Start:x.Spans[i].End]
	}
	return Card{Text: strings.Join(parts, " "), Sentences: kept, Words: words}
}

// cutWords keeps the first n words of s and marks the cut.
func cutWords(s string, n int) string {
	f := strings.Fields(s)
	if len(f) <= n {
		return s
	}
	return strings.Join(f[:n], " ") + " …"
}

func dedup(terms []string) []string {
	if len(terms) < 2 {
		return terms
	}
	out := slices.Clone(terms)
	slices.Sort(out)
	return slices.Compact(out)
}
