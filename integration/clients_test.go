package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/weaviate/weaviate-go-client/v5/weaviate"
	"github.com/weaviate/weaviate/entities/models"
	pb "github.com/weaviate/weaviate/grpc/generated/protocol/v1"

	dsclient "github.com/diverse-select/diverse-select/clients/go"
	"github.com/diverse-select/diverse-select/integration/stack"
	"github.com/diverse-select/diverse-select/internal/corpus"
	"github.com/diverse-select/diverse-select/selectors/tokens"
)

// The official clients. The README's programs run as written in
// TestDocSnippets; TestREADMEClientSnippets (internal/doccheck) checks that every
// region marked "README: <name> begin/end" here and in ts/clients.test.mjs
// appears in the doc it names (docs/grpc-route.md).

// selectChunks returns the diverse selection for question over gRPC: the
// collection configures reranker-diverse-select, and settings (zero: the
// collection's) override its config for this query. The question is plain
// text: an end user's words cannot change the settings.
func selectChunks(ctx context.Context, conn dsclient.Searcher, question string, settings dsclient.Options) ([]dsclient.Object, error) {
	return dsclient.Select(ctx, conn, dsclient.Query{
		Collection: "Article",
		Limit:      40, // the candidate pool; tokenBudget and maxResults cap the output
		NearText:   question,
		Property:   "body", // the text the selection counts and reads
	}, settings)
}

// perQueryCases are per-query settings the Go and TypeScript clients send
// through their helpers (options: JSON with the wire names), with the
// library run each one implies on the Article collection (tokens: cl100k of
// the body); settings is the same as GraphQL arguments, the cases' name.
var perQueryCases = []struct {
	settings, options string
	lib               libraryRun
}{
	{`strategy: "mmr", tokenBudget: 60, lambda: 0.7`, `{"strategy": "mmr", "tokenBudget": 60, "lambda": 0.7}`,
		libraryRun{strategy: "mmr", params: map[string]any{"lambda": 0.7}, budget: 60}},
	{`strategy: "topk", tokenBudget: 50, maxResults: 2`, `{"strategy": "topk", "tokenBudget": 50, "maxResults": 2}`,
		libraryRun{strategy: "topk", budget: 50, max: 2}},
	{`tokenBudget: 70`, `{"tokenBudget": 70}`, libraryRun{strategy: "adagres", budget: 70}}, // the collection's strategy
}

// badSettings are per-query settings the module refuses, on every route
// with the same message: as GraphQL arguments and as the rerank property's
// JSON. The helpers refuse them before sending.
var badSettings = []struct{ gql, json, key string }{
	{`tokenBudget: -5`, `{"tokenBudget":-5}`, "tokenBudget"},
	{`strategy: "nope"`, `{"strategy":"nope"}`, "strategy"},
	{`strategy: "mmr", lambda: 2.5`, `{"lambda":2.5,"strategy":"mmr"}`, "lambda"},
}

// options decodes a case's options into the Go helper's Options.
func options(t testing.TB, js string) dsclient.Options {
	t.Helper()
	var o dsclient.Options
	if err := json.Unmarshal([]byte(js), &o); err != nil {
		t.Fatalf("options %s: %v", js, err)
	}
	return o
}

// checkPerQuery compares the selections per settings (ids in order) with
// the library's over the Article pool (vector: the legacy one, or the named
// vector the TypeScript client's collection has).
func checkPerQuery(t *testing.T, got map[string][]string, vector string) {
	t.Helper()
	pool := fetchPool(t, "Article", fmt.Sprintf(`nearText: {concepts: [%q]}, limit: 40`, healthQuery), "body", vector)
	for _, c := range perQueryCases {
		c.lib.tokensOf = bodyTokens(t)
		want, _ := c.lib.run(t, pool)
		if fmt.Sprint(got[c.settings]) != fmt.Sprint(want) {
			t.Errorf("settings %s: selected %v, the library selects %v", c.settings, got[c.settings], want)
		}
	}
}

// README: go-graphql begin
// selectChunksGraphQL runs the top-level diverseSelect argument through the
// Go client's raw GraphQL.
func selectChunksGraphQL(ctx context.Context, client *weaviate.Client, query string) (*models.GraphQLResponse, error) {
	q := fmt.Sprintf(`{ Get { Article(nearText: {concepts: [%q]}, limit: 8,
	    diverseSelect: {strategy: "adagres", tokenBudget: 100, candidates: 40}) {
	  body _additional { id diverseSelect { rank tokens tokensUsed } } } } }`, query)
	return client.GraphQL().Raw().WithQuery(q).Do(ctx)
}

// README: go-graphql end

// articleClass is the README's collection, configuring
// reranker-diverse-select, with the Health corpus.
func articleClass(t testing.TB) {
	t.Helper()
	ctx := ctx(t)
	_ = client.Schema().ClassDeleter().WithClassName("Article").Do(ctx)
	// README: go-class begin
	class := &models.Class{
		Class:      "Article",
		Vectorizer: "text2vec-transformers",
		ModuleConfig: map[string]any{
			"reranker-diverse-select": map[string]any{"strategy": "adagres", "tokenBudget": 100},
		},
		Properties: []*models.Property{{Name: "body", DataType: []string{"text"}}},
	}
	err := client.Schema().ClassCreator().WithClass(class).Do(ctx)
	// README: go-class end
	if err != nil {
		t.Fatalf("create Article: %v", err)
	}
	importDocs(t, "Article", healthDocs)
}

// TestREADMEGraphQL posts the README's raw GraphQL example (the first
// graphql block of "Use it from your client") as it is written, on the
// collection the README's programs create: the demo corpus, whose planted
// near-copies share their original's title (and no other chunk's), so a
// title picked twice is a near-copy the selection kept.
func TestREADMEGraphQL(t *testing.T) {
	readmeCollection(t, client, "Article")
	query := readmeGraphQL(t, "Use it from your client")
	m := reBudget.FindStringSubmatch(query)
	if m == nil {
		t.Fatalf("the README's GraphQL names no tokenBudget:\n%s", query)
	}
	budget, _ := strconv.Atoi(m[1])
	hits := get(t, "Article", query, nil)
	if len(hits) < 2 || len(hits) > 8 {
		t.Fatalf("%d objects selected, want 2 to limit 8", len(hits))
	}
	used, titles := 0, map[string]int{}
	for i, h := range hits {
		if h.DS == nil || h.DS.Rank != i+1 || h.DS.Tokens < 1 {
			t.Fatalf("object %d: explanation %+v", i, h.DS)
		}
		used += h.DS.Tokens
		title, _ := h.Props["title"].(string)
		if j, seen := titles[title]; seen {
			t.Errorf("picks %d and %d are near-copies (%q)", j+1, i+1, title)
		}
		titles[title] = i
	}
	if used > budget {
		t.Errorf("the picks hold %d tokens, over the README's budget of %d", used, budget)
	}
}

// readmeCollection (re)creates class through c as the README's programs
// create Article: title and body, vectorized by the stack's embedder, the
// reranker with a budget of 600, holding the demo corpus.
func readmeCollection(t testing.TB, c *weaviate.Client, class string) {
	t.Helper()
	createOn(t, c, &models.Class{
		Class:      class,
		Vectorizer: "text2vec-transformers",
		ModuleConfig: map[string]any{
			"reranker-diverse-select": map[string]any{"tokenBudget": 600},
		},
		Properties: []*models.Property{
			{Name: "title", DataType: []string{"text"}},
			{Name: "body", DataType: []string{"text"}},
		},
	})
	chunks := corpus.Chunks()
	objs := make([]*models.Object, len(chunks))
	for i, ch := range chunks {
		objs[i] = &models.Object{Class: class, Properties: map[string]any{"title": ch.Title, "body": ch.Body}}
	}
	res, err := c.Batch().ObjectsBatcher().WithObjects(objs...).Do(ctx(t))
	if err != nil {
		t.Fatalf("import the demo corpus: %v", err)
	}
	for _, r := range res {
		if r.Result != nil && r.Result.Errors != nil {
			t.Fatalf("import the demo corpus: %v", r.Result.Errors.Error[0].Message)
		}
	}
}

// cl100k counts tokens as the module does by default.
func cl100k(t testing.TB, text string) int {
	t.Helper()
	c, err := tokens.New("cl100k_base")
	if err != nil {
		t.Fatal(err)
	}
	return c.Count(text)
}

// TestGoClient: the README's Go snippets through weaviate-go-client/v5, over
// gRPC (rerank route) and over GraphQL (raw query, diverseSelect argument).
func TestGoClient(t *testing.T) {
	articleClass(t)
	idx := index("Article", healthDocs)
	ctx := context.Background()
	check := func(t *testing.T, ids, bodies []string) {
		t.Helper()
		if len(ids) < 2 || len(ids) >= len(healthDocs) {
			t.Fatalf("%d of %d selected", len(ids), len(healthDocs))
		}
		groups := make([]int, len(ids))
		used := 0
		for i, id := range ids {
			d, ok := idx[id]
			if !ok {
				t.Fatalf("%s is not an Article of the corpus", id)
			}
			groups[i] = d.Group
			used += cl100k(t, bodies[i])
		}
		if pairs := duplicatePairs(groups); len(pairs) > 0 {
			t.Errorf("planted duplicates selected: groups %v", groups)
		}
		if used > 100 {
			t.Errorf("%d tokens selected, budget 100", used)
		}
		t.Logf("selected groups %v, %d of 100 tokens", groups, used)
	}
	t.Run("gRPC rerank", func(t *testing.T) {
		results, err := selectChunks(ctx, grpcc(t), "statins cholesterol heart", dsclient.Options{})
		if err != nil {
			t.Fatal(err)
		}
		var ids, bodies []string
		for i, r := range results {
			ids = append(ids, r.ID)
			bodies = append(bodies, r.Properties["body"].(string))
			if ex := r.Explanation; ex == nil || ex.Rank != i+1 || ex.Strategy != "adagres" || ex.Budget != 100 || ex.Tokens != cl100k(t, bodies[i]) {
				t.Errorf("object %d: explanation %+v", i, ex)
			}
		}
		check(t, ids, bodies)
	})
	t.Run("GraphQL raw diverseSelect", func(t *testing.T) {
		resp, err := selectChunksGraphQL(ctx, client, "statins cholesterol heart")
		if err != nil {
			t.Fatal(err)
		}
		if len(resp.Errors) > 0 {
			t.Fatalf("GraphQL errors: %s", resp.Errors[0].Message)
		}
		objs, _ := resp.Data["Get"].(map[string]any)["Article"].([]any)
		var ids, bodies []string
		for _, o := range objs {
			m := o.(map[string]any)
			ids = append(ids, m["_additional"].(map[string]any)["id"].(string))
			bodies = append(bodies, m["body"].(string))
		}
		check(t, ids, bodies)
	})
}

// TestGoClientPerQuerySettings: per-query settings over gRPC from the Go
// client select what the library selects on the same candidates; a bad
// value fails with the GraphQL field's error.
func TestGoClientPerQuerySettings(t *testing.T) {
	articleClass(t)
	got := map[string][]string{}
	for _, c := range perQueryCases {
		results, err := selectChunks(context.Background(), grpcc(t), healthQuery, options(t, c.options))
		if err != nil {
			t.Fatalf("%s: %v", c.settings, err)
		}
		for _, r := range results {
			got[c.settings] = append(got[c.settings], r.ID)
		}
	}
	checkPerQuery(t, got, "")
	// The helper refuses a bad value before sending; the server, sent the
	// same settings in the rerank property, fails with the GraphQL field's
	// message named after the module that gives it.
	for _, bad := range badSettings {
		if _, err := selectChunks(context.Background(), grpcc(t), healthQuery, options(t, bad.json)); err == nil ||
			!strings.Contains(err.Error(), `"`+bad.key+`"`) {
			t.Errorf("helper with %s: error %v, want one naming %s", bad.json, err, bad.key)
		}
		gql := gqlError(t, field("Article", healthNear(40), bad.gql, "body"), nil)
		cause, ok := strings.CutPrefix(gql, "diverseSelect: ")
		if !ok {
			t.Fatalf("GraphQL error %q does not name the module", gql)
		}
		want := "reranker-diverse-select: rerank: " + cause
		q := healthQuery
		_, err := grpcc(t).Search(ctx(t), &pb.SearchRequest{Collection: "Article", Limit: 40,
			NearText:    &pb.NearTextSearch{Query: []string{healthQuery}},
			Rerank:      &pb.Rerank{Property: "body|" + dsclient.Version + "|" + bad.json, Query: &q},
			Uses_123Api: true, Uses_125Api: true, Uses_127Api: true})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("settings %s over gRPC: error %v, want %q (GraphQL's %q)", bad.json, err, want, gql)
		}
	}
}

// TestTypeScriptClient runs ts/clients.test.mjs (node --test) with the
// official TypeScript client against the shared stack: the gRPC rerank route
// next to the client's built-in MMR, and per-query settings (whose
// selections this test checks against the library). Node.js and the pinned weaviate-client
// (npm ci in integration/ts, as make test does first) are required: a missing
// node or a failed install fails the test.
func TestTypeScriptClient(t *testing.T) {
	type doc struct {
		Key    string `json:"key"`
		Body   string `json:"body"`
		Group  int    `json:"group"`
		Tokens int    `json:"tokens"`
	}
	docs := make([]doc, len(healthDocs))
	for i, d := range healthDocs {
		docs[i] = doc{d.Key, d.Body, d.Group, cl100k(t, d.Body)}
	}
	b, _ := json.Marshal(docs)
	docsFile := filepath.Join(t.TempDir(), "docs.json")
	if err := os.WriteFile(docsFile, b, 0o644); err != nil {
		t.Fatal(err)
	}
	cases := map[string]json.RawMessage{}
	for _, c := range perQueryCases {
		cases[c.settings] = json.RawMessage(c.options)
	}
	settings, _ := json.Marshal(cases)
	type badCase struct{ GQL, JSON, Key string }
	var bads []badCase
	for _, b := range badSettings {
		bads = append(bads, badCase{b.gql, b.json, b.key})
	}
	bad, _ := json.Marshal(bads)
	outFile := filepath.Join(t.TempDir(), "selections.json")
	c, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if srv.Reranker == nil {
		t.Fatal("the shared stack runs no rerank server")
	}
	reranked := rerankedHealth(t) // reranker-transformers: the cross-encoder + selection case
	demoPagesCollection(t)
	demoPages, _ := json.Marshal(demoPagesInput())
	demoPagesFile := filepath.Join(t.TempDir(), "demo-pages.json")
	cmd := nodeCommand(t, c, []string{"DIVERSE_SELECT_DOCS=" + docsFile, "DIVERSE_SELECT_SETTINGS=" + string(settings),
		"DIVERSE_SELECT_BAD_SETTINGS=" + string(bad), "DIVERSE_SELECT_OUT=" + outFile, "DIVERSE_SELECT_RERANKED=" + reranked,
		"DIVERSE_SELECT_DEMO_PAGES=" + string(demoPages), "DIVERSE_SELECT_DEMO_PAGES_OUT=" + demoPagesFile},
		"--test", "--test-reporter=spec", "clients.test.mjs")
	start := time.Now()
	out, err := cmd.CombinedOutput()
	t.Logf("node --test clients.test.mjs (%s):\n%s", time.Since(start).Round(time.Millisecond), out)
	if err != nil {
		t.Fatalf("TypeScript client test failed: %v", err)
	}
	// The per-query selections the TypeScript client got, against the library.
	got := map[string][]string{}
	readJSON(t, outFile, "the TypeScript test", &got)
	checkPerQuery(t, got, "default")
	// The demo corpus's pages at a small budget (issue 42), against the corpus.
	checkHelperDemoPages(t, "TypeScript", demoPagesFile)
}

// nodeCommand is node with args in integration/ts, connected to the shared
// stack (WEAVIATE_HTTP_PORT, WEAVIATE_GRPC_PORT) with env added. Node.js and
// the pinned weaviate-client (npm ci, as make test does first) are required:
// a missing node or a failed install fails the test.
func nodeCommand(t *testing.T, ctx context.Context, env []string, args ...string) *exec.Cmd {
	t.Helper()
	root, err := stack.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "integration", "ts")
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node not found: the TypeScript client tests need Node.js (>= 20) and npm")
	}
	if err := npmCI(t, dir); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, node, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(),
		fmt.Sprintf("WEAVIATE_HTTP_PORT=%d", srv.HTTPPort),
		fmt.Sprintf("WEAVIATE_GRPC_PORT=%d", srv.GRPCPort),
		"NO_COLOR=1")
	cmd.Env = append(cmd.Env, env...)
	return cmd
}

// npmCI installs integration/ts's locked dependencies unless node_modules
// already matches package-lock.json.
func npmCI(t *testing.T, dir string) error {
	lock, err := os.ReadFile(filepath.Join(dir, "package-lock.json"))
	if err != nil {
		return err
	}
	// npm writes node_modules/.package-lock.json after a successful install;
	// its packages section matches the lockfile's when nothing changed.
	if installed, err := os.ReadFile(filepath.Join(dir, "node_modules", ".package-lock.json")); err == nil && samePackages(lock, installed) {
		return nil
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		return fmt.Errorf("npm not found: the TypeScript client test installs weaviate-client with npm")
	}
	start := time.Now()
	cmd := exec.Command(npm, "ci")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("npm ci in %s failed: %v\n%s", dir, err, out)
	}
	t.Logf("npm ci in integration/ts: %s", time.Since(start).Round(time.Millisecond))
	return nil
}

// samePackages compares the "packages" of two npm lockfiles, ignoring the
// root entry (absent from node_modules/.package-lock.json).
func samePackages(lock, installed []byte) bool {
	var a, b struct {
		Packages map[string]json.RawMessage `json:"packages"`
	}
	if json.Unmarshal(lock, &a) != nil || json.Unmarshal(installed, &b) != nil {
		return false
	}
	delete(a.Packages, "")
	delete(b.Packages, "")
	if len(a.Packages) != len(b.Packages) {
		return false
	}
	for k, v := range a.Packages {
		var x, y map[string]any
		if json.Unmarshal(v, &x) != nil || json.Unmarshal(b.Packages[k], &y) != nil || x["version"] != y["version"] || x["integrity"] != y["integrity"] {
			return false
		}
	}
	return true
}

// readmeText returns the repository root and the README.
func readmeText(t testing.TB) (string, []byte) {
	t.Helper()
	root, err := stack.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	return root, readme
}

// readmeGraphQL returns the first graphql block of the README's section with
// this heading, as written.
func readmeGraphQL(t testing.TB, heading string) string {
	t.Helper()
	return docGraphQL(t, "README.md", heading)
}

// docGraphQL returns the first graphql block after the heading (of any level)
// in the repository's markdown file, as written.
func docGraphQL(t testing.TB, file, heading string) string {
	t.Helper()
	root, _ := readmeText(t)
	doc, err := os.ReadFile(filepath.Join(root, file))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut("\n"+string(doc), "# "+heading+"\n")
	_, block, ok2 := strings.Cut(section, "```graphql\n")
	query, _, ok3 := strings.Cut(block, "```")
	if !ok || !ok2 || !ok3 {
		t.Fatalf("%s: no graphql block in the section %q", file, heading)
	}
	return query
}
