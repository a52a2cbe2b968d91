package integration

import (
	"context"
	"fmt"
	"testing"

	"github.com/diverse-select/diverse-select/selectors"
)

// poolItem is one candidate as the module sees it, read back from Weaviate.
type poolItem struct {
	ID       string
	Body     string
	Ntok     int
	Distance float64
	Vector   []float32
}

// fetchPool runs a plain Get (no selection) with search and returns the
// candidates in retrieval order, with distance, props (body, and ntok when
// the class has it) and vector: the named vector, or the legacy one ("").
func fetchPool(t testing.TB, class, search, props, named string) []poolItem {
	t.Helper()
	vec := "vector"
	if named != "" {
		vec = fmt.Sprintf("vectors { %s }", named)
	}
	res := graphql(t, fmt.Sprintf("{ Get { %s(%s) { %s _additional { id distance %s } } } }", class, search, props, vec), nil)
	if len(res.Errors) > 0 {
		t.Fatalf("pool query: %s", res.errText())
	}
	rows := res.Data.Get[class]
	out := make([]poolItem, len(rows))
	for i, row := range rows {
		add, _ := row["_additional"].(map[string]any)
		it := poolItem{ID: fmt.Sprint(add["id"])}
		it.Body, _ = row["body"].(string)
		if n, ok := row["ntok"].(float64); ok {
			it.Ntok = int(n)
		}
		d, _ := add["distance"].(float64)
		it.Distance = float64(float32(d)) // the module reads Weaviate's float32
		v, _ := add["vector"].([]any)
		if named != "" {
			vs, _ := add["vectors"].(map[string]any)
			v, _ = vs[named].([]any)
		}
		for _, x := range v {
			f, _ := x.(float64)
			it.Vector = append(it.Vector, float32(f))
		}
		out[i] = it
	}
	return out
}

// libraryRun is the selectors library's own selection over pool: relevance
// 1 - distance (cosine), tokens from tokensOf, the item vectors.
type libraryRun struct {
	strategy string
	params   map[string]any
	budget   int
	max      int
	tokensOf func(poolItem) int
}

// run returns the selected ids in selection order and the tokens used.
func (l libraryRun) run(t testing.TB, pool []poolItem) ([]string, int) {
	t.Helper()
	p := &selectors.Problem{Budget: l.budget, MaxResults: l.max}
	for _, it := range pool {
		p.Candidates = append(p.Candidates, selectors.Candidate{ID: it.ID, Relevance: 1 - it.Distance,
			Tokens: l.tokensOf(it), Vector: it.Vector})
	}
	s, err := selectors.New(l.strategy, l.params)
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Run(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(res.Items))
	for i, it := range res.Items {
		out[i] = pool[it.Index].ID
	}
	return out, res.TokensUsed
}

// bodyTokens counts a candidate's body as the module does by default.
func bodyTokens(t testing.TB) func(poolItem) int {
	return func(it poolItem) int { return cl100k(t, it.Body) }
}

func ntokTokens(it poolItem) int { return it.Ntok }
