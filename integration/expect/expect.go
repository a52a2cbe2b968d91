// Package expect computes offline the selection diverse-select must return
// for a query: the candidates a plain query of the pool size retrieved (ids
// in retrieval order, distances, vectors, texts) go through the selectors
// library exactly as the module sets the problem up - relevance 1 - cosine
// distance, token counts of the text by the default tokenizer, the class's
// and the query's settings merged over the defaults. The load check and the
// cluster tests compare every answer of the server with it, id for id.
package expect

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/diverse-select/diverse-select/config"
	"github.com/diverse-select/diverse-select/integration/stack"
	"github.com/diverse-select/diverse-select/selectors"
	_ "github.com/diverse-select/diverse-select/selectors/all" // the strategies a selection may name
	"github.com/diverse-select/diverse-select/selectors/tokens"
	"github.com/diverse-select/diverse-select/simcache"
)

// Candidate is one retrieved object of a near search (nearVector,
// nearText, ...), as a plain query of the pool size returns it.
type Candidate struct {
	ID       string
	Text     string  // the text property the selection reads
	Distance float64 // _additional { distance } (cosine)
	Vector   []float32
}

// Selector computes selections with the module's defaults (no
// DIVERSE_SELECT_* variables set).
type Selector struct {
	defaults config.Module
	counter  tokens.Counter
}

// New returns a Selector with the module's defaults.
func New() (*Selector, error) {
	defaults, err := config.FromEnv(func(string) string { return "" })
	if err != nil {
		return nil, err
	}
	counter, err := tokens.New(defaults.Tokenizer)
	if err != nil {
		return nil, err
	}
	return &Selector{defaults: defaults, counter: counter}, nil
}

// Query is one selection's settings.
type Query struct {
	// Class is the class's moduleConfig entry of the module (nil: none).
	Class map[string]any
	// Args are the query's diverseSelect arguments (nil: none; the gRPC
	// route has none).
	Args map[string]any
	// Limit is the query limit of the top-level form, which caps the
	// output; 0 for the _additional and rerank forms, whose limit is the pool.
	Limit int
	// Text is the query text the module sees: nearText's concepts (joined
	// by spaces), bm25's or hybrid's query; empty for nearVector.
	Text string
}

// Select returns the ids the module selects from cands for q, in order.
func (s *Selector) Select(ctx context.Context, cands []Candidate, q Query) ([]string, error) {
	var class *config.Overrides
	if q.Class != nil {
		var err error
		if class, err = config.Parse(q.Class, s.defaults.Limits); err != nil {
			return nil, fmt.Errorf("class config: %w", err)
		}
	}
	args, err := config.Parse(q.Args, s.defaults.Limits)
	if err != nil {
		return nil, err
	}
	eff, err := config.Merge(s.defaults, class, args)
	if err != nil {
		return nil, err
	}
	p := &selectors.Problem{Budget: eff.TokenBudget, MaxResults: eff.MaxResults, Order: eff.Order, Query: q.Text,
		DedupThreshold: eff.DedupThreshold, MaxMatrixBytes: s.defaults.MaxMatrixBytes()}
	if q.Limit > 0 && (p.MaxResults == 0 || q.Limit < p.MaxResults) {
		p.MaxResults = q.Limit
	}
	p.Candidates = make([]selectors.Candidate, len(cands))
	vecs := make([][]float32, len(cands))
	for i, c := range cands {
		rel := 1 - float64(float32(c.Distance)) // as the module derives it from Weaviate's float32 distance
		p.Candidates[i] = selectors.Candidate{ID: c.ID, Relevance: rel, Tokens: s.counter.Count(c.Text), Text: c.Text}
		vecs[i] = c.Vector
	}
	if eff.Selector.UsesVectors() || eff.DedupThreshold > 0 {
		for i := range p.Candidates {
			p.Candidates[i].Vector = slices.Clone(vecs[i])
		}
		sims, err := simcache.New(vecs)
		if err != nil {
			return nil, fmt.Errorf("offline selection: %w", err)
		}
		p.Similarities = sims
	}
	res, err := eff.Selector.Run(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("offline selection: %w", err)
	}
	out := make([]string, len(res.Items))
	for i, it := range res.Items {
		out[i] = p.Candidates[it.Index].ID
	}
	return out, nil
}

// Candidates runs a plain query of class with search (e.g. `nearVector:
// {...}`, from NearVector, or `nearText: {...}`) and limit pool, and returns
// its objects as the selection sees them: ids in retrieval order, the text
// of textProperty, distances and vectors. hc nil is http.DefaultClient.
func Candidates(ctx context.Context, hc *http.Client, baseURL, class, textProperty, search string, pool int) ([]Candidate, error) {
	if hc == nil {
		hc = http.DefaultClient
	}
	var in []map[string]json.RawMessage
	q := fmt.Sprintf("{ Get { %s(%s, limit: %d) { %s _additional { id distance vector } } } }", class, search, pool, textProperty)
	if err := stack.QueryGetWith(ctx, hc, baseURL, class, q, &in); err != nil {
		return nil, fmt.Errorf("candidates: %w", err)
	}
	if len(in) != pool {
		return nil, fmt.Errorf("candidates: %d retrieved, want %d", len(in), pool)
	}
	out := make([]Candidate, len(in))
	for i, obj := range in {
		var add struct {
			ID       string
			Distance float64
			Vector   []float32
		}
		if err := json.Unmarshal(obj["_additional"], &add); err != nil {
			return nil, fmt.Errorf("candidates: %w", err)
		}
		var text string
		if err := json.Unmarshal(obj[textProperty], &text); err != nil {
			return nil, fmt.Errorf("candidates: %s: %w", textProperty, err)
		}
		out[i] = Candidate{ID: add.ID, Text: text, Distance: add.Distance, Vector: add.Vector}
	}
	return out, nil
}

// NearVector is the GraphQL nearVector argument for v, each component in
// the shortest form that parses back to the same float32.
func NearVector(v []float32) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.FormatFloat(float64(x), 'g', -1, 32)
	}
	return "nearVector: {vector: [" + strings.Join(s, ",") + "]}"
}
