package evidence

import (
	"math"
	"math/bits"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/diverse-select/diverse-select/selectors/sentences"
	"github.com/diverse-select/diverse-select/selectors/text"
)

// Span is one sentence of a chunk (the splitter's span).
type Span = sentences.Span

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

// maxScored is the most sentences of a chunk that can be picked for its
// card: the term index keeps one bit per sentence. Later sentences of a
// longer chunk are never picked (a chunk meant for retrieval is rarely that long).
const maxScored = 64

// Analysed is a chunk split into sentences with an index of its terms. It
// depends on the chunk alone, so a caller caches it per object and reuses it
// across queries; scoring a card against a query then costs a few binary
// searches.
type Analysed struct {
	Text  string
	Spans []Span
	// Words and Tokens per sentence; Tokens is nil when Analyse had no counter.
	Words, Tokens []int
	// terms are the analysed terms of every sentence, in text order;
	// sentence i's are terms[termEnds[i-1]:termEnds[i]] (termEnds[-1] = 0).
	terms    []string
	termEnds []int
	// termHashes is every distinct term of the chunk (by hash), ascending;
	// termSentences[k] the sentences holding term k (bit i = sentence i).
	termHashes, termSentences []uint64
}

// Analyse splits a chunk into sentences and indexes their terms (text.Terms).
// a may be nil; count, when not nil, counts each sentence's tokens so cards
// get their cost without counting again (a card's cost is then the sum of
// its sentences', which a BPE tokenizer may count one token apart at each joint).
func Analyse(chunk string, a *text.Analyzer, count func(string) int) *Analysed {
	if a == nil {
		a = text.NewAnalyzer()
	}
	spans := sentences.Sentences(chunk)
	x := &Analysed{Text: chunk, Spans: spans, Words: make([]int, len(spans)), termEnds: make([]int, len(spans))}
	if count != nil {
		x.Tokens = make([]int, len(spans))
	}
	masks := map[uint64]uint64{}
	for i, s := range spans {
		sentence := chunk[s.Start:s.End]
		x.Words[i] = len(strings.Fields(sentence))
		if count != nil {
			x.Tokens[i] = count(sentence)
		}
		from := len(x.terms)
		x.terms = a.Terms(x.terms, sentence)
		x.termEnds[i] = len(x.terms)
		if i >= maxScored {
			continue
		}
		for _, t := range x.terms[from:] {
			masks[hash(t)] |= 1 << i
		}
	}
	x.termHashes = make([]uint64, 0, len(masks))
	for h := range masks {
		x.termHashes = append(x.termHashes, h)
	}
	slices.Sort(x.termHashes)
	x.termSentences = make([]uint64, len(x.termHashes))
	for k, h := range x.termHashes {
		x.termSentences[k] = masks[h]
	}
	return x
}

// Terms appends the analysed terms (text.Terms) of the given sentences to
// dst, in the order given: a card's terms without analysing its text again.
func (x *Analysed) Terms(dst []string, sentences []int) []string {
	for _, i := range sentences {
		from := 0
		if i > 0 {
			from = x.termEnds[i-1]
		}
		dst = append(dst, x.terms[from:x.termEnds[i]]...)
	}
	return dst
}

// Bytes estimates the memory x holds (for a memory-bounded cache): the
// text, the per-sentence figures, the terms and the term index.
func (x *Analysed) Bytes() int {
	const word, str = 8, 16
	n := len(x.Text) + len(x.Spans)*2*word + (len(x.Words)+len(x.Tokens)+len(x.termEnds))*word +
		(len(x.termHashes)+len(x.termSentences))*word + len(x.terms)*str
	for _, t := range x.terms {
		n += len(t)
	}
	return n
}

// sentencesWith returns the sentences holding the term with hash h.
func (x *Analysed) sentencesWith(h uint64) uint64 {
	if k, ok := slices.BinarySearch(x.termHashes, h); ok {
		return x.termSentences[k]
	}
	return 0
}

// Query scores the cards of a pool of chunks: each query term weighs the
// BM25 idf of the term over the pool (rare terms decide). It finds once
// which sentences of which chunk hold each query term. A Query is not safe
// for concurrent use (it keeps scratch space).
type Query struct {
	pool    []*Analysed
	hashes  []uint64
	known   map[uint64]bool // the hashes, for the distinct-term test
	weights []float64
	// masks[d*len(hashes)+j] are the sentences of chunk d holding term j.
	masks  []uint64
	scores []float64 // scratch, one per sentence
}

// NewQuery weighs the distinct terms of the query by their idf over pool,
// the chunks whose cards it will make.
func NewQuery(queryTerms []string, pool []*Analysed) *Query {
	q := &Query{pool: pool}
	q.add(queryTerms, -1)
	return q
}

// Expand adds terms to the query with weight w each (unless the query has
// the term already): bridge entities from other selected chunks, for the
// second hop of a multi-hop question, which often shares no word with it.
func (q *Query) Expand(terms []string, w float64) { q.add(terms, w) }

// add appends the new distinct terms with weight w, or their idf when w < 0,
// and rebuilds the masks.
func (q *Query) add(terms []string, w float64) {
	old := len(q.hashes)
	for _, t := range terms {
		if h := hash(t); !q.known[h] {
			if q.known == nil {
				q.known = map[uint64]bool{}
			}
			q.known[h] = true
			q.hashes = append(q.hashes, h)
		}
	}
	nt := len(q.hashes)
	masks := make([]uint64, len(q.pool)*nt)
	df := make([]float64, nt)
	for d, x := range q.pool {
		copy(masks[d*nt:], q.masks[d*old:(d+1)*old])
		for j := old; j < nt; j++ {
			if m := x.sentencesWith(q.hashes[j]); m != 0 {
				masks[d*nt+j] = m
				df[j]++
			}
		}
	}
	q.masks = masks
	n := float64(len(q.pool))
	for j := old; j < nt; j++ {
		if w < 0 {
			q.weights = append(q.weights, math.Log((n-df[j]+0.5)/(df[j]+0.5)+1))
		} else {
			q.weights = append(q.weights, w)
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

// Card is a chunk compressed to its best sentences, in text order.
type Card struct {
	Text string
	// Sentences are the indices (into Analysed.Spans) of the kept sentences, ascending.
	Sentences []int
	Words     int
	// Tokens is the sum of the kept sentences' tokens (0 without a counter;
	// for a cut sentence, the uncut sentence's).
	Tokens int
	// Cut reports that the one kept sentence was longer than MaxWords and was cut.
	Cut bool
}

// Card keeps the chunk's best sentences for q: those that share a term with
// the query, by idf-weighted overlap of their distinct terms (ties: the
// earlier sentence), as many as o.Sentences and o.MaxWords allow, then puts
// them back in text order. A chunk that shares no term with the query keeps
// its leading sentences (a chunk's topic sentence usually comes first).
func (q *Query) Card(d int, o Options) Card {
	x := q.pool[d]
	p := q.pick(d, o)
	if p.kept == 0 {
		if len(x.Spans) == 0 {
			return Card{}
		}
		s := x.Spans[p.best] // the best sentence alone is longer than MaxWords
		return Card{Text: cutWords(x.Text[s.Start:s.End], o.MaxWords), Sentences: []int{p.best},
			Words: o.MaxWords, Tokens: p.tokens, Cut: true}
	}
	c := Card{Sentences: make([]int, 0, bits.OnesCount64(p.kept)), Words: p.words, Tokens: p.tokens}
	var b strings.Builder
	for m := p.kept; m != 0; m &= m - 1 {
		i := bits.TrailingZeros64(m)
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(x.Text[x.Spans[i].Start:x.Spans[i].End])
		c.Sentences = append(c.Sentences, i)
	}
	c.Text = b.String()
	return c
}

// Tokens is the token cost of chunk d's card (as Card.Tokens), without
// building the card's text: a selection prices every candidate, then builds
// the cards of the few it selects.
func (q *Query) Tokens(d int, o Options) int { return q.pick(d, o).tokens }

// picked is a card before its text is built.
type picked struct {
	kept                uint64 // bit i = sentence i kept; 0 = the best sentence, cut
	best, words, tokens int
}

func (q *Query) pick(d int, o Options) picked {
	x := q.pool[d]
	n := min(len(x.Spans), maxScored)
	if n == 0 {
		return picked{}
	}
	scores := q.score(d, n)
	if o.Lead {
		scores[0] = math.Inf(1)
	}
	matched := slices.Max(scores) > 0
	limit := max(o.Sentences, 1)
	p := picked{best: -1}
	var considered uint64
	// Repeatedly take the best sentence not yet considered: Sentences is small.
	for count := 0; count < limit; {
		i := -1
		for s := range n {
			if considered&(1<<s) == 0 && (i < 0 || scores[s] > scores[i]) {
				i = s
			}
		}
		if i < 0 || matched && scores[i] == 0 {
			break
		}
		considered |= 1 << i
		if p.best < 0 {
			p.best = i
		}
		if o.MaxWords > 0 && p.words+x.Words[i] > o.MaxWords {
			continue
		}
		p.kept |= 1 << i
		p.words += x.Words[i]
		p.tokens += x.tokens(i)
		count++
	}
	if p.kept == 0 {
		p.words, p.tokens = o.MaxWords, x.tokens(p.best)
	}
	return p
}

// score fills the first n sentence scores of chunk d: the sum of the
// weights of the query terms each sentence holds.
func (q *Query) score(d, n int) []float64 {
	q.scores = slices.Grow(q.scores[:0], n)[:n]
	clear(q.scores)
	nt := len(q.hashes)
	for j, m := range q.masks[d*nt : (d+1)*nt] {
		for ; m != 0; m &= m - 1 {
			q.scores[bits.TrailingZeros64(m)] += q.weights[j]
		}
	}
	return q.scores
}

func (x *Analysed) tokens(i int) int {
	if x.Tokens == nil {
		return 0
	}
	return x.Tokens[i]
}

// cutWords keeps the first n words of s and marks the cut.
func cutWords(s string, n int) string {
	f := strings.Fields(s)
	if len(f) <= n {
		return s
	}
	return strings.Join(f[:n], " ") + " …"
}

// hash is 64-bit FNV-1a: terms are short, and a collision between two of a
// chunk's terms and a query term (odds about 2^-50) only shifts a score.
func hash(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

// Entities returns the terms of the names in text: words that start with a
// capital letter and do not start a sentence ("Oslo", "Lowe"). They are the
// bridge of a multi-hop question: a selected chunk's names lead to the
// sentence of another chunk that holds the answer.
func Entities(chunk string, a *text.Analyzer) []string {
	if a == nil {
		a = text.NewAnalyzer()
	}
	var out []string
	for _, s := range sentences.Sentences(chunk) {
		first := true
		for w := range strings.FieldsSeq(chunk[s.Start:s.End]) {
			w = strings.TrimFunc(w, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
			if w == "" {
				continue
			}
			if r, _ := utf8.DecodeRuneInString(w); !first && unicode.IsUpper(r) {
				out = a.Terms(out, w)
			}
			first = false
		}
	}
	return out
}

// Auto is the card rule of the module's `evidence: auto`, chosen on the
// tuning half of HotpotQA on both encoders (docs/quality.md): when the
// budget is tight for the pool - below 3.5 chunks of the pool's median
// token count - every candidate becomes a card of its lead sentence and its
// three best, within a third of the budget in words (so that at least two
// or three cards fit); otherwise cards would drop answers that whole chunks
// already bring, and ok is false: the chunks stay whole. A budget of 0 (none)
// keeps chunks whole too.
func Auto(budget int, chunkTokens []int) (o Options, ok bool) {
	if budget <= 0 || len(chunkTokens) == 0 {
		return Options{}, false
	}
	t := slices.Clone(chunkTokens)
	slices.Sort(t)
	if 2*budget >= 7*t[len(t)/2] {
		return Options{}, false
	}
	return Options{Sentences: 4, MaxWords: max(budget/3, 1), Lead: true}, true
}
