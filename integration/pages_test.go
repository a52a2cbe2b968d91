package integration

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	pb "github.com/weaviate/weaviate/grpc/generated/protocol/v1"

	dsclient "github.com/diverse-select/diverse-select/clients/go"
	"github.com/diverse-select/diverse-select/internal/corpus"
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

// demoPagesClass holds make run's demo corpus (readmeCollection) for the
// paging tests at small budgets.
const demoPagesClass = "DemoPages"

// demoPagesBudget and demoPagesPool: a budget for one or two of the demo's
// chunks (62 tokens and more) a page, from make run's pool.
const (
	demoPagesBudget = 100
	demoPagesPool   = 40
)

func demoPagesCollection(t *testing.T) {
	ensure(t, demoPagesClass, func(t testing.TB) { readmeCollection(t, client, demoPagesClass) })
}

// demoPage is one page of a demo query as a helper returned it: the
// chunks' bodies in order, the page's exhausted and stopReason.
type demoPage struct {
	Bodies     []string `json:"bodies"`
	Exhausted  *bool    `json:"exhausted"`
	StopReason string   `json:"stopReason"`
}

// checkDemoPages checks the pages of one demo query at demoPagesBudget,
// walked until the first empty page (issue 42 point 3): every page before
// it holds something and is not exhausted but the last, which is; the
// pages never repeat a chunk or show a near-copy of one shown; they go on
// past page 2 while the topic is unshown, and end with the pool's chunks
// on the query's topic shown - at most a third of them left (a chunk
// with its near-copies counts once) - while most of its chunks of other
// topics are left. pool is the pool's bodies. (Before, the default's
// pages ended after 3 to 5 pages with more than half of the topic
// unshown.)
func checkDemoPages(t *testing.T, who string, q corpus.Query, pool []string, pages []demoPage) {
	t.Helper()
	byBody := map[string]corpus.Chunk{}
	for _, c := range corpus.Chunks() {
		byBody[c.Body] = c
	}
	if len(pages) == 0 || len(pages[len(pages)-1].Bodies) != 0 {
		t.Fatalf("%s %s: the pages end without an empty page: %d pages", who, q.ID, len(pages))
	}
	shown := map[string]bool{}
	groups := map[string]bool{}
	offTopic := 0
	var sizes []int
	for k, p := range pages[:len(pages)-1] {
		sizes = append(sizes, len(p.Bodies))
		if len(p.Bodies) == 0 {
			t.Errorf("%s %s: page %d is empty before the last", who, q.ID, k+1)
		}
		last := k == len(pages)-2
		if p.Exhausted == nil || *p.Exhausted != last {
			t.Errorf("%s %s: page %d of %d: exhausted %v (stop %s)", who, q.ID, k+1, len(pages)-1, p.Exhausted, p.StopReason)
		}
		for _, b := range p.Bodies {
			c, ok := byBody[b]
			if !ok {
				t.Fatalf("%s %s: a chunk not in the demo corpus: %.60q", who, q.ID, b)
			}
			if shown[b] {
				t.Errorf("%s %s: %s shown twice", who, q.ID, c.ID)
			}
			shown[b] = true
			if c.DupGroup != "" {
				if groups[c.DupGroup] {
					t.Errorf("%s %s: %s is a near-copy of a chunk shown before", who, q.ID, c.ID)
				}
				groups[c.DupGroup] = true
			}
			if c.Topic != q.Topic {
				offTopic++
			}
		}
	}
	if len(sizes) < 3 {
		t.Errorf("%s %s: %d pages of %v (want the pages to go on past page 2 while the topic is unshown)", who, q.ID, len(sizes), sizes)
	}
	// A chunk and its near-copies are one group.
	group := func(c corpus.Chunk) string {
		if c.DupGroup != "" {
			return c.DupGroup
		}
		return c.ID
	}
	onTopic, others := map[string]bool{}, 0
	var left []string
	for _, b := range pool {
		c := byBody[b]
		if c.Topic != q.Topic {
			others++
			continue
		}
		if g := group(c); !onTopic[g] {
			onTopic[g] = true
			if !shown[b] && !groups[g] && !slices.Contains(left, g) {
				left = append(left, g)
			}
		}
	}
	if 3*len(left) > len(onTopic) {
		t.Errorf("%s %s: the pages leave %d of the pool's %d groups on the topic unshown: %v", who, q.ID, len(left), len(onTopic), left)
	}
	if 2*offTopic > others {
		t.Errorf("%s %s: the pages show %d of the pool's %d chunks of other topics", who, q.ID, offTopic, others)
	}
	t.Logf("%s %s: pages of %v; of other topics %d of %d shown; on the topic %d of %d groups left unshown: %v",
		who, q.ID, sizes, offTopic, others, len(left), len(onTopic), left)
}

// demoPool is the bodies of the pool a demo query retrieves (nearText, demoPagesPool).
func demoPool(t *testing.T, q corpus.Query) []string {
	t.Helper()
	hits := get(t, demoPagesClass, fmt.Sprintf(`{ Get { %s(nearText: {concepts: [%q]}, limit: %d) { body } } }`,
		demoPagesClass, q.Text, demoPagesPool), nil)
	var out []string
	for _, h := range hits {
		out = append(out, h.Str("body"))
	}
	return out
}

// TestDemoPagesSmallBudget (issue 42 point 3): the default pages make run's
// demo corpus at a budget of 100 tokens, in GraphQL's field form, until
// nothing relevant is left (checkDemoPages); the Python and TypeScript
// helpers' pages are checked the same way (test_demo_pages, the TypeScript
// client test).
func TestDemoPagesSmallBudget(t *testing.T) {
	demoPagesCollection(t)
	for _, q := range corpus.Queries() {
		var pages []demoPage
		for offset := 0; len(pages) <= demoPagesPool; {
			res := graphql(t, fmt.Sprintf(`{ Get { %s(nearText: {concepts: [%q]}, limit: %d, offset: %d) { body _additional { diverseSelect(tokenBudget: %d, textProperty: "body", query: %q) { exhausted stopReason } } } } }`,
				demoPagesClass, q.Text, demoPagesPool, offset, demoPagesBudget, q.Text), nil)
			if len(res.Errors) > 0 {
				t.Fatalf("%s at offset %d: %s", q.ID, offset, res.errText())
			}
			var p demoPage
			for _, o := range res.Data.Get[demoPagesClass] {
				p.Bodies = append(p.Bodies, o["body"].(string))
				ds := o["_additional"].(map[string]any)["diverseSelect"].(map[string]any)
				if ex, ok := ds["exhausted"].(bool); ok {
					p.Exhausted = &ex
				}
				p.StopReason, _ = ds["stopReason"].(string)
			}
			pages = append(pages, p)
			if len(p.Bodies) == 0 {
				break
			}
			offset += len(p.Bodies)
		}
		checkDemoPages(t, "GraphQL", q, demoPool(t, q), pages)
	}
}

// demoPagesInput is what a helper's test needs to page the demo queries.
func demoPagesInput() map[string]any {
	var queries []map[string]string
	for _, q := range corpus.Queries() {
		queries = append(queries, map[string]string{"id": q.ID, "text": q.Text})
	}
	return map[string]any{"collection": demoPagesClass, "budget": demoPagesBudget, "pool": demoPagesPool, "queries": queries}
}

// checkHelperDemoPages reads the demo pages a helper's test wrote (query
// id -> pages) and checks each query's (checkDemoPages).
func checkHelperDemoPages(t *testing.T, who, path string) {
	t.Helper()
	var got map[string][]demoPage
	readJSON(t, path, "the "+who+" test", &got)
	for _, q := range corpus.Queries() {
		pages, ok := got[q.ID]
		if !ok {
			t.Errorf("%s: no pages of %s", who, q.ID)
			continue
		}
		checkDemoPages(t, who, q, demoPool(t, q), pages)
	}
}
