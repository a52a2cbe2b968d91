package selectors

import (
	"errors"
	"fmt"
	"math"
)

// Candidate is one retrieved chunk.
type Candidate struct {
	// ID is opaque to the selectors; it is carried for the caller's convenience.
	ID string
	// Relevance r_i: higher is more relevant. For vector search this is the
	// similarity derived from the distance, for keyword search the pool-normalised score.
	Relevance float64
	// Tokens t_i >= 1 is the cost of the chunk in the model's context window.
	Tokens int
	// Vector is the stored embedding. Strategies that compare candidates need it.
	Vector []float32
	// Text is the chunk's text, used by the text-based strategies (knapsack terms, ngram).
	Text string
	// Terms optionally holds Text already analysed, exactly as text.Terms
	// returns it (tokens, stopwords removed, stemmed, in text order); the
	// text-based strategies then skip tokenising and stemming, which is most
	// of their cost. A caller caches them per object (simcache.FeatureCache).
	// Nil means "analyse Text".
	Terms []string
	// TermHashes optionally holds text.TermHash of each of Terms, in the
	// same order (so only with Terms): a strategy that filters terms by
	// their hash (coverage, for the query's terms and the title links) then
	// reads them instead of loading and hashing every term on every query.
	// A caller keeps them with the Terms (simcache.Features). Nil means
	// "not given": the strategy hashes the terms itself, to the same result.
	TermHashes []uint32
	// WordPairs optionally holds WordPairs(Text), the word pairs the
	// near-copy guard (CopyGuard) compares: a caller that keeps them per
	// object (simcache.Features) saves hashing and sorting every text the
	// guard is asked about on every query. Nil means "compute them from
	// Text"; they must be Text's.
	WordPairs []uint64
	// SingleLine optionally tells that Text is one line (SingleLine(Text)):
	// it has no title line, which coverage then knows without reading the
	// text. A caller keeps it per object with WordPairs; false means "read
	// Text".
	SingleLine bool
	// Source is where the chunk comes from (a URL or a document name), used by ngram.
	Source string
	// Properties holds the object properties named by the strategy's
	// parameters of kind property (external strategies read them), as
	// decoded JSON values; nil when the strategy names none.
	Properties map[string]any
}

// Order is the order of the returned selection.
type Order string

const (
	// OrderSelection returns items in the order the strategy picked them (default).
	OrderSelection Order = "selection"
	// OrderRelevance returns items by decreasing relevance.
	OrderRelevance Order = "relevance"
	// OrderEdges puts the most useful items at the start and the end of the
	// list and the least useful in the middle, for long-context models that
	// lose the middle.
	OrderEdges Order = "edges"
)

// Orders lists the allowed values of Problem.Order.
var Orders = []Order{OrderSelection, OrderRelevance, OrderEdges}

// Problem is one selection task: a pool of candidates and the constraints
// every strategy honours.
type Problem struct {
	// Candidates in retrieval order (index 0 = first retrieved).
	Candidates []Candidate
	// Budget is the token budget B; 0 means no token constraint.
	Budget int
	// MaxResults is K, the most items selected; 0 means len(Candidates).
	MaxResults int
	// Query is the query text, for the strategies that use it (ngram's BM25).
	Query string
	// Order of the returned items; "" means OrderSelection.
	Order Order
	// DedupThreshold in (0,1] removes, before selection, every candidate whose
	// cosine to a more relevant candidate is >= the threshold; 0 is off.
	DedupThreshold float64
	// Similarities optionally supplies the cosine similarities between the
	// candidates (a faster engine, a cache). When nil, Run builds the
	// default one from the candidates' vectors.
	Similarities Similarities
	// MaxMatrixBytes caps the memory of the N x N matrices a strategy may
	// form (facility location); 0 = no cap. Run refuses a problem above it
	// with an error naming the need and the cap, before any work.
	MaxMatrixBytes int64
	// Preselected lists candidates already shown to the user (the earlier
	// pages of a paged selection), in the order they were selected. They
	// are not selected again; Budget and MaxResults bound the new picks
	// only. A strategy whose Definition says Continues counts them as
	// selected - their coverage and redundancy shape its new picks, and its
	// near-copy guard refuses copies of them; for the others Run selects
	// from the rest of the pool (see Definition.Continues). Page runs the
	// pages of a selection on it.
	Preselected []int
}

// K is the effective cardinality limit.
func (p *Problem) K() int {
	if p.MaxResults <= 0 || p.MaxResults > len(p.Candidates) {
		return len(p.Candidates)
	}
	return p.MaxResults
}

// Fits reports whether an item of t tokens fits when used tokens are spent.
func (p *Problem) Fits(used, t int) bool {
	return p.Budget <= 0 || used+t <= p.Budget
}

// Item is one selected candidate with the explanation of its choice.
type Item struct {
	// Index into Problem.Candidates.
	Index int
	// Rank is the 1-based position in selection order (independent of Order).
	Rank int
	// Gain is the marginal gain at the time the item was selected.
	Gain float64
	// Relevance is the candidate's relevance as the strategy used it.
	Relevance float64
	// Redundancy with the items selected before it, as the strategy defines it.
	Redundancy float64
	// Tokens is the candidate's token cost.
	Tokens int
}

// Result is a selection: the items in the requested order and per-query figures.
type Result struct {
	Strategy string
	Items    []Item
	// Objective is the strategy's objective value of the selected set.
	Objective  float64
	TokensUsed int
	Budget     int
	// Stats holds the strategy's calibrated parameters and diagnostics
	// (for adagres: beta, betaStar, kbar, eq, ep).
	Stats map[string]float64
	// Removed counts candidates dropped by the dedupThreshold pre-pass.
	Removed int
	// Stop is why the selection ended (Run sets it; see StopReason).
	Stop StopReason
}

// TokensLeft is the budget the selection left unused (0 without a budget).
func (r *Result) TokensLeft() int {
	if r.Budget <= 0 {
		return 0
	}
	return r.Budget - r.TokensUsed
}

// Indices returns the selected candidate indices in result order.
func (r *Result) Indices() []int {
	out := make([]int, len(r.Items))
	for i, it := range r.Items {
		out[i] = it.Index
	}
	return out
}

// MaxCandidates is the largest pool the selectors accept; callers (the
// Weaviate module) usually enforce a smaller configured cap.
const MaxCandidates = 1 << 20

// ErrInvalidProblem wraps every validation error of a Problem.
var ErrInvalidProblem = errors.New("invalid selection problem")

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalidProblem, fmt.Sprintf(format, args...))
}

// Validate checks the problem: finite relevances and vector components, token
// costs >= 1, vectors of one dimension, and constraints in range.
func (p *Problem) Validate() error {
	if len(p.Candidates) > MaxCandidates {
		return invalid("%d candidates exceed the maximum of %d", len(p.Candidates), MaxCandidates)
	}
	if p.MaxMatrixBytes < 0 {
		return invalid("maxMatrixBytes must be >= 0 (0 = no cap), got %d", p.MaxMatrixBytes)
	}
	if p.Budget < 0 {
		return invalid("token budget must be >= 0 (0 = no budget), got %d", p.Budget)
	}
	if p.MaxResults < 0 {
		return invalid("maxResults must be >= 0 (0 = no limit), got %d", p.MaxResults)
	}
	if p.DedupThreshold < 0 || p.DedupThreshold > 1 || math.IsNaN(p.DedupThreshold) {
		return invalid("dedupThreshold must be in (0,1] (0 = off), got %v", p.DedupThreshold)
	}
	switch p.Order {
	case "", OrderSelection, OrderRelevance, OrderEdges:
	default:
		return invalid("order must be one of %v, got %q", Orders, p.Order)
	}
	checker, _ := p.Similarities.(FiniteChecker)
	if p.Similarities != nil && p.Similarities.Len() != len(p.Candidates) {
		checker = nil // refused below
	}
	dim := -1
	for i, c := range p.Candidates {
		if math.IsNaN(c.Relevance) || math.IsInf(c.Relevance, 0) {
			return invalid("candidate %d has a non-finite relevance %v", i, c.Relevance)
		}
		if c.Tokens < 1 {
			return invalid("candidate %d has token cost %d, must be >= 1", i, c.Tokens)
		}
		if c.TermHashes != nil && (c.Terms == nil || len(c.TermHashes) != len(c.Terms)) {
			return invalid("candidate %d has %d term hashes for %d terms (TermHashes must parallel Terms, or be nil)",
				i, len(c.TermHashes), len(c.Terms))
		}
		if c.Vector == nil {
			continue
		}
		if dim < 0 {
			dim = len(c.Vector)
		} else if len(c.Vector) != dim {
			return invalid("candidate %d has a vector of %d dimensions, others have %d", i, len(c.Vector), dim)
		}
		if checker != nil {
			continue
		}
		for _, x := range c.Vector {
			if x-x != 0 { // NaN or +-Inf; cheaper than IsNaN || IsInf on long vectors
				return invalid("candidate %d has a non-finite vector component", i)
			}
		}
	}
	seen := make(map[int]bool, len(p.Preselected))
	for _, i := range p.Preselected {
		if i < 0 || i >= len(p.Candidates) {
			return invalid("preselected index %d is out of range: %d candidates", i, len(p.Candidates))
		}
		if seen[i] {
			return invalid("preselected index %d is listed twice", i)
		}
		seen[i] = true
	}
	if p.Similarities != nil && p.Similarities.Len() != len(p.Candidates) {
		return invalid("similarities cover %d candidates, problem has %d", p.Similarities.Len(), len(p.Candidates))
	}
	if checker != nil {
		if i := checker.NonFinite(); i >= 0 {
			return invalid("candidate %d has a non-finite vector component", i)
		}
	}
	return nil
}

// HasVectors reports whether every candidate carries a vector.
func (p *Problem) HasVectors() bool {
	for _, c := range p.Candidates {
		if c.Vector == nil {
			return false
		}
	}
	return true
}
