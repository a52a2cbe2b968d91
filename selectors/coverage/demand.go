package coverage

import (
	"math"
	"slices"
	"strings"
	"unicode"

	"github.com/diverse-select/diverse-select/selectors/text"
)

// Part demand ("parts"): the question split into its parts - clauses and
// the phrases a conjunction joins ("Which is older, the Tower of London or
// the Eiffel Tower?" has three) - each a demand point a chunk covers by the
// idf-weighted share of the part's terms it contains. Facility location
// over the parts (GeoRAG's demand-weighted coverage, with lexical coverage
// in place of embedded parts: the module has one vector per query):
//
//	PD(S) = sum_p W_p * max_{d in S} c(d,p),  c(d,p) = sum_{t in p, t in d} w_t / W_p
//
// with w_t the query-term weights of QC and W_p = sum_{t in p} w_t over
// the part's terms found in the pool. Query-term coverage counts a term
// once whichever chunk has it; PD rewards the chunk that has a part's terms
// together (the paragraph about "the Eiffel Tower", not one that says
// "tower"). It is monotone submodular, scaled by kappa like QC.

// partDemand holds the parts and each candidate's coverage of them.
// A nil *partDemand is off: its methods do nothing.
type partDemand struct {
	weight []float64 // per part, kappa * parts * W_p
	// cover[start[d]:start[d+1]] are the parts candidate d covers in part
	// (one array for the pool: no allocation per candidate).
	cover []partCov
	start []int32
	cur   []float64 // per part, max_{d in S} c(d,p)
}

type partCov struct {
	part int32
	c    float64 // c(d,p) in (0, 1]
}

// connectives end a part: conjunctions, relative and comparative words.
var connectives = map[string]bool{
	"and": true, "or": true, "but": true, "nor": true, "which": true, "who": true, "whom": true,
	"whose": true, "that": true, "where": true, "when": true, "while": true, "than": true,
	"because": true, "if": true, "although": true, "whereas": true, "versus": true, "vs": true,
}

// queryParts splits the query into parts at punctuation and connectives and
// returns each part's analysed terms (parts without terms dropped, repeats
// merged).
func queryParts(query string, an *text.Analyzer) [][]string {
	var parts [][]string
	seen := map[string]bool{}
	flush := func(words []string) {
		if len(words) == 0 {
			return
		}
		terms := an.Terms(nil, strings.Join(words, " "))
		slices.Sort(terms)
		terms = slices.Compact(terms)
		if key := strings.Join(terms, " "); len(terms) > 0 && !seen[key] {
			seen[key] = true
			parts = append(parts, terms)
		}
	}
	segments := strings.FieldsFunc(query, func(r rune) bool {
		return unicode.IsPunct(r) && r != '\'' && r != '-' && r != '’' && r != '.' && r != '&'
	})
	for _, seg := range segments {
		var words []string
		for tok := range text.Tokens(seg) {
			if connectives[tok] {
				flush(words)
				words = words[:0]
				continue
			}
			words = append(words, tok)
		}
		flush(words)
	}
	return parts
}

// newPartDemand builds the part demand for a query: ids maps an analysed
// query term to its index in w (the query-term weights, terms found in the
// pool), terms[d] are candidate d's query-term indices. It returns nil when
// the query has fewer than two parts (one part is QC over the same terms).
func newPartDemand(query string, an *text.Analyzer, ids map[string]int32, w []float64, terms [][]int32, scale float64) *partDemand {
	parts := queryParts(query, an)
	if len(parts) < 2 || len(w) == 0 {
		return nil
	}
	// Per query term, the parts it belongs to.
	inParts := make([][]int32, len(w))
	var weight []float64
	for _, p := range parts {
		var wp float64
		for _, t := range p {
			if id, ok := ids[t]; ok {
				wp += w[id]
			}
		}
		if wp == 0 {
			continue // no term of the part is in the pool
		}
		k := int32(len(weight))
		for _, t := range p {
			if id, ok := ids[t]; ok {
				inParts[id] = append(inParts[id], k)
			}
		}
		weight = append(weight, wp)
	}
	if len(weight) < 2 {
		return nil
	}
	pd := &partDemand{weight: make([]float64, len(weight)), start: make([]int32, len(terms)+1)}
	for k, wp := range weight {
		pd.weight[k] = scale * wp
	}
	acc := make([]float64, len(weight))
	for d, ts := range terms {
		from := len(pd.cover)
		for _, t := range ts {
			for _, k := range inParts[t] {
				if acc[k] == 0 {
					pd.cover = append(pd.cover, partCov{part: k})
				}
				acc[k] += w[t]
			}
		}
		for i := range pd.cover[from:] {
			pc := &pd.cover[from+i]
			pc.c = math.Min(1, acc[pc.part]/weight[pc.part])
			acc[pc.part] = 0
		}
		pd.start[d+1] = int32(len(pd.cover))
	}
	pd.reset()
	return pd
}

// covers returns the parts candidate d covers in part.
func (pd *partDemand) covers(d int) []partCov { return pd.cover[pd.start[d]:pd.start[d+1]] }

func (pd *partDemand) reset() {
	if pd != nil {
		pd.cur = make([]float64, len(pd.weight))
	}
}

// gain is PD(S+d) - PD(S), d credited with gate (in [0, 1]) of its coverage
// of each part (precision.go, termGates).
func (pd *partDemand) gain(d int, gate float64) float64 {
	if pd == nil {
		return 0
	}
	var g float64
	for _, pc := range pd.covers(d) {
		if x, c := gate*pc.c, pd.cur[pc.part]; x > c {
			g += pd.weight[pc.part] * (x - c)
		}
	}
	return g
}

func (pd *partDemand) add(d int, gate float64) {
	if pd == nil {
		return
	}
	for _, pc := range pd.covers(d) {
		pd.cur[pc.part] = max(pd.cur[pc.part], gate*pc.c)
	}
}
