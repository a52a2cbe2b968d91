package integration

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	pb "github.com/weaviate/weaviate/grpc/generated/protocol/v1"

	dsclient "github.com/diverse-select/diverse-select/clients/go"
)

// pagesFields are the figures of a paged selection.
const pagesFields = "rank offset exhausted selected candidates"

// page is one page as returned: ids in order, ranks, and the page's figures.
type page struct {
	ids       []string
	ranks     []int
	offset    int
	exhausted *bool
}

// pageQuery builds a paged query in either form: search is the Get
// arguments without offset, diverse the diverse-select settings.
func pageQuery(class, form, search, diverse string, offset int) string {
	search += fmt.Sprintf(", offset: %d", offset)
	if form == "argument" {
		return fmt.Sprintf("{ Get { %s(%s, diverseSelect: {%s}) { body _additional { id diverseSelect { %s } } } } }", class, search, diverse, pagesFields)
	}
	return fmt.Sprintf("{ Get { %s(%s) { body _additional { id diverseSelect(%s) { %s } } } } }", class, search, diverse, pagesFields)
}

func getPage(t *testing.T, class, q string) page {
	t.Helper()
	res := graphql(t, q, nil)
	if len(res.Errors) > 0 {
		t.Fatalf("query failed: %s\nquery: %s", res.errText(), q)
	}
	var p page
	for _, o := range res.Data.Get[class] {
		add := o["_additional"].(map[string]any)
		ds := add["diverseSelect"].(map[string]any)
		p.ids = append(p.ids, add["id"].(string))
		p.ranks = append(p.ranks, int(ds["rank"].(float64)))
		p.offset = int(ds["offset"].(float64))
		if ex, ok := ds["exhausted"].(bool); ok {
			p.exhausted = &ex
		} else {
			p.exhausted = nil
		}
	}
	return p
}

// walkPages fetches pages at offsets 0, n1, n1+n2, ... (the number of
// results shown so far, as a UI passes it) until a page comes back empty,
// checking each page's figures on the way.
func walkPages(t *testing.T, class string, query func(offset int) string) [][]string {
	t.Helper()
	var out [][]string
	offset := 0
	for k := 0; ; k++ {
		if k > 20 {
			t.Fatal("more than 20 pages from a pool of at most 19")
		}
		p := getPage(t, class, query(offset))
		if len(p.ids) == 0 {
			if k == 0 {
				t.Fatal("page 1 is empty")
			}
			return out
		}
		for i, r := range p.ranks {
			if r != offset+i+1 {
				t.Errorf("page %d: ranks %v, want %d.. (they continue across pages)", k+1, p.ranks, offset+1)
				break
			}
		}
		if p.offset != offset {
			t.Errorf("page %d: offset %d, want %d", k+1, p.offset, offset)
		}
		if p.exhausted == nil {
			t.Fatalf("page %d: exhausted is null although the query gives offset", k+1)
		}
		next := getPage(t, class, query(offset+len(p.ids)))
		if *p.exhausted != (len(next.ids) == 0) {
			t.Errorf("page %d: exhausted %v, but the next page has %d results", k+1, *p.exhausted, len(next.ids))
		}
		out = append(out, p.ids)
		offset += len(p.ids)
	}
}

// TestPages: offset continues the selection in both GraphQL forms. Pages
// never overlap, the same offset gives the same page, the forms give the
// same pages, the pages of a greedy strategy are one selection with the
// limit of all of them, pages end (exhausted, then empty) when the pool is
// spent, and no page repeats a near-copy of what an earlier page showed.
func TestPages(t *testing.T) {
	c := health(t)
	idx := index(c, healthDocs)
	pool := len(healthDocs)
	near := fmt.Sprintf(`nearText: {concepts: [%q]}`, healthQuery)
	for _, strategy := range []string{"mmr", "coverage", "adagres", "dpp", "knapsack", "topk", "cliff"} {
		t.Run(strategy, func(t *testing.T) {
			st := fmt.Sprintf("strategy: %q", strategy)
			arg := func(offset int) string {
				return pageQuery(c, "argument", near+", limit: 3", st+fmt.Sprintf(", candidates: %d", pool), offset)
			}
			fld := func(offset int) string {
				return pageQuery(c, "field", near+fmt.Sprintf(", limit: %d", pool), st+", maxResults: 3", offset)
			}
			pages := walkPages(t, c, arg)
			if got := walkPages(t, c, fld); fmt.Sprint(got) != fmt.Sprint(pages) {
				t.Errorf("field form pages %v, argument form %v", got, pages)
			}
			if len(pages) < 2 {
				t.Fatalf("only %d page(s): %v", len(pages), pages)
			}
			seen := map[string]int{}
			groups := map[int]int{}
			for k, p := range pages {
				for _, id := range p {
					if prev, ok := seen[id]; ok {
						t.Errorf("%s on pages %d and %d", idx[id].Key, prev+1, k+1)
					}
					seen[id] = k
					groups[idx[id].Group]++
				}
			}
			// The near-copy guard reads the text where the strategy does
			// (coverage, knapsack; the vector strategies compare cosines only).
			if strategy == "coverage" || strategy == "knapsack" {
				for g, n := range groups {
					if g < 10 && n > 1 {
						t.Errorf("planted copy group %d shown %d times across pages %v", g, n, pages)
					}
				}
			}
			// Page 2 again, on a fresh query: the same objects.
			if again := getPage(t, c, arg(len(pages[0]))); !slices.Equal(again.ids, pages[1]) {
				t.Errorf("page 2 again: %v, first time %v", again.ids, pages[1])
			}
			// Greedy strategies without fill: pages 1..3 are one selection of 9.
			if strategy == "mmr" || strategy == "dpp" || strategy == "topk" {
				var union []string
				for _, p := range pages[:min(3, len(pages))] {
					union = append(union, p...)
				}
				whole := get(t, c, sel(c, near+fmt.Sprintf(", limit: %d", 3*min(3, len(pages))), st+fmt.Sprintf(", candidates: %d", pool), "body"), nil)
				if !slices.Equal(ids(whole), union) {
					t.Errorf("pages 1..3 %v, one selection of 9 %v", union, ids(whole))
				}
			}
			t.Logf("%s pages: %v", strategy, keysOf(idx, pages))
		})
	}
	t.Run("without offset exhausted is null", func(t *testing.T) {
		q := fmt.Sprintf("{ Get { %s(%s, limit: 3, diverseSelect: {strategy: \"mmr\"}) { body _additional { id diverseSelect { %s } } } } }", c, near, pagesFields)
		p := getPage(t, c, q)
		if p.exhausted != nil || p.offset != 0 || len(p.ids) == 0 {
			t.Errorf("page without offset: %+v", p)
		}
	})
	t.Run("offset as a diverse-select setting", func(t *testing.T) {
		first := getPage(t, c, pageQuery(c, "argument", near+", limit: 3", `strategy: "mmr"`, 0))
		q := fmt.Sprintf("{ Get { %s(%s, limit: 3, diverseSelect: {strategy: \"mmr\", offset: %d}) { body _additional { id diverseSelect { %s } } } } }",
			c, near, len(first.ids), pagesFields)
		setting := getPage(t, c, q)
		query := getPage(t, c, pageQuery(c, "argument", near+", limit: 3", `strategy: "mmr"`, len(first.ids)))
		if !slices.Equal(setting.ids, query.ids) || len(setting.ids) == 0 {
			t.Errorf("offset setting gives %v, the query's offset %v", setting.ids, query.ids)
		}
	})
}

func keysOf(idx map[string]Doc, pages [][]string) [][]string {
	out := make([][]string, len(pages))
	for k, p := range pages {
		for _, id := range p {
			out[k] = append(out[k], idx[id].Key)
		}
	}
	return out
}

// TestGRPCPages: over gRPC with reranker-diverse-select (the official Go
// client's connection), the search's offset pages the selection: the same
// pages as the GraphQL field form with the same settings, the figures in
// explainScore, and the offset may also come in the rerank settings.
func TestGRPCPages(t *testing.T) {
	c := rerankHealth(t)
	pool := len(healthDocs)
	idx := index(c, healthDocs)
	grpcPage := func(offset int, viaSettings bool) ([]string, []string) {
		req := rerankRequest(c, pool)
		req.NearText = &pb.NearTextSearch{Query: []string{healthQuery}}
		req.Metadata.ExplainScore = true
		q := healthQuery
		settings := dsclient.Options{Strategy: dsclient.StrategyMMR, MaxResults: dsclient.Int(3)}
		if viaSettings {
			settings.Offset = dsclient.Int(offset)
		} else {
			req.Offset = uint32(offset)
		}
		req.Rerank.Query = &q
		req.Rerank.Property = rerankProperty(t, "body", settings)
		reply, err := grpcc(t).Search(ctx(t), req)
		if err != nil {
			t.Fatalf("gRPC search at offset %d: %v", offset, err)
		}
		var ids, explain []string
		for _, r := range reply.Results {
			ids = append(ids, r.GetMetadata().GetId())
			explain = append(explain, r.GetMetadata().GetExplainScore())
		}
		return ids, explain
	}
	field := func(offset int) string {
		return pageQuery(c, "field", fmt.Sprintf(`nearText: {concepts: [%q]}, limit: %d`, healthQuery, pool),
			fmt.Sprintf(`strategy: "mmr", maxResults: 3, tokenBudget: 120, tokenProperty: "ntok", textProperty: "body", query: %q`, healthQuery), offset)
	}
	want := walkPages(t, c, field)
	if len(want) < 2 {
		t.Fatalf("only %d page(s)", len(want))
	}
	offset := 0
	for k, w := range append(want, nil) {
		got, explain := grpcPage(offset, false)
		if !slices.Equal(got, w) {
			t.Errorf("gRPC page %d at offset %d: %v, GraphQL %v", k+1, offset, keysOf(idx, [][]string{got}), keysOf(idx, [][]string{w}))
		}
		if viaSettings, _ := grpcPage(offset, true); !slices.Equal(viaSettings, got) {
			t.Errorf("page %d: offset in the rerank settings gives %v, the search's offset %v", k+1, viaSettings, got)
		}
		for i, e := range explain {
			wantText := fmt.Sprintf("diverseSelect: rank %d, offset %d", offset+i+1, offset)
			if offset > 0 {
				wantText += fmt.Sprintf(", exhausted %t", k == len(want)-1)
			}
			if !strings.Contains(e, wantText) {
				t.Errorf("page %d result %d: explainScore %q, want %q", k+1, i, e, wantText)
			}
		}
		offset += len(got)
	}
	t.Logf("gRPC pages: %v", keysOf(idx, want))
}
