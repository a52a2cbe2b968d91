package integration

import (
	"bytes"
	"context"
	"crypto/sha1"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/go-openapi/strfmt"
	"github.com/weaviate/weaviate-go-client/v5/weaviate"
	"github.com/weaviate/weaviate/entities/models"

	"github.com/diverse-select/diverse-select/cmd/embedder/embed"
	"github.com/diverse-select/diverse-select/integration/stack"
)

// dsFields are every field of _additional { diverseSelect { ... } }.
const dsFields = "rank gain relevance relevanceSource redundancy tokens strategy objective tokensUsed budget stopReason tokensLeft candidates selected removed beta stats { name value }"

// Stat is one calibrated parameter of a selection.
type Stat struct {
	Name  string
	Value float64
}

// DS is _additional.diverseSelect of one returned object.
type DS struct {
	Rank      int
	Gain      float64
	Relevance float64
	// RelevanceSource: rerank, distance, score or order.
	RelevanceSource string
	Redundancy      float64
	Tokens          int
	Strategy        string
	Objective       float64
	TokensUsed      int
	Budget          int
	// StopReason is why the selection ended: budget, price, maxResults or pool.
	StopReason string
	TokensLeft int
	Candidates int
	Selected   int
	Removed    int
	Beta       *float64
	Stats      []Stat
	// Evidence is the evidence card (asked for by the evidence tests only).
	Evidence *string
}

// Stat returns a calibrated parameter by name.
func (d *DS) Stat(name string) (float64, bool) {
	for _, s := range d.Stats {
		if s.Name == name {
			return s.Value, true
		}
	}
	return 0, false
}

// Hit is one returned object.
type Hit struct {
	ID       string
	Props    map[string]any
	Distance *float64
	DS       *DS
}

// Str returns a text property.
func (h Hit) Str(name string) string {
	s, _ := h.Props[name].(string)
	return s
}

// Int returns an int property (GraphQL returns JSON numbers).
func (h Hit) Int(name string) int {
	switch v := h.Props[name].(type) {
	case float64:
		return int(v)
	case json.Number:
		n, _ := v.Int64()
		return int(n)
	}
	return -1
}

// gqlResult is a decoded GraphQL response.
type gqlResult struct {
	Data struct {
		Get map[string][]map[string]any `json:"Get"`
	} `json:"data"`
	Errors []struct {
		Message string `json:"message"`
	} `json:"errors"`
}

func (r gqlResult) errText() string {
	var msgs []string
	for _, e := range r.Errors {
		msgs = append(msgs, e.Message)
	}
	return strings.Join(msgs, "; ")
}

// graphql posts a query (with variables when vars is not nil) to /v1/graphql.
func graphql(t testing.TB, query string, vars map[string]any) gqlResult {
	t.Helper()
	body := map[string]any{"query": query}
	if vars != nil {
		body["variables"] = vars
	}
	b, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := httpc.Post(srv.HTTPURL+"/v1/graphql", "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatalf("POST /v1/graphql: %v (server alive: %v)", err, srv.Alive())
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	var out gqlResult
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("POST /v1/graphql: status %d, undecodable body %q: %v", resp.StatusCode, raw, err)
	}
	if resp.StatusCode != http.StatusOK && len(out.Errors) == 0 {
		t.Fatalf("POST /v1/graphql: status %d, body %s", resp.StatusCode, raw)
	}
	return out
}

// get runs a Get query that must succeed and returns the objects of class.
func get(t testing.TB, class, query string, vars map[string]any) []Hit {
	t.Helper()
	res := graphql(t, query, vars)
	if len(res.Errors) > 0 {
		t.Fatalf("query failed: %s\nquery: %s", res.errText(), query)
	}
	objs, ok := res.Data.Get[class]
	if !ok {
		t.Fatalf("no Get.%s in the response\nquery: %s", class, query)
	}
	hits := make([]Hit, 0, len(objs))
	for _, o := range objs {
		h := Hit{Props: map[string]any{}}
		for k, v := range o {
			if k != "_additional" {
				h.Props[k] = v
			}
		}
		if add, ok := o["_additional"].(map[string]any); ok {
			h.ID, _ = add["id"].(string)
			if d, ok := add["distance"].(float64); ok {
				h.Distance = &d
			}
			if ds, ok := add["diverseSelect"].(map[string]any); ok && ds != nil {
				b, _ := json.Marshal(ds)
				h.DS = &DS{}
				if err := json.Unmarshal(b, h.DS); err != nil {
					t.Fatalf("decode diverseSelect %s: %v", b, err)
				}
			}
		}
		hits = append(hits, h)
	}
	return hits
}

// gqlError runs a query that must fail and returns its error messages.
func gqlError(t testing.TB, query string, vars map[string]any) string {
	t.Helper()
	res := graphql(t, query, vars)
	if len(res.Errors) == 0 {
		data := fmt.Sprint(res.Data.Get)
		if len(data) > 400 {
			data = data[:400] + "..."
		}
		t.Fatalf("query succeeded, want an error\nquery: %s\ndata: %s", query, data)
	}
	return res.errText()
}

// sel builds a Get query with the top-level diverseSelect argument: search
// and diverse are the arguments inside Class(...) and diverseSelect: {...}
// (an empty diverse gives diverseSelect: {}, the class defaults).
func sel(class, search, diverse, props string) string {
	args := search
	if args != "" {
		args += ", "
	}
	args += "diverseSelect: {" + diverse + "}"
	return fmt.Sprintf("{ Get { %s(%s) { %s _additional { id distance diverseSelect { %s } } } } }", class, args, props, dsFields)
}

// field builds a Get query with the _additional { diverseSelect(...) } form.
func field(class, search, diverse, props string) string {
	args := ""
	if diverse != "" {
		args = "(" + diverse + ")"
	}
	return fmt.Sprintf("{ Get { %s(%s) { %s _additional { id distance diverseSelect%s { %s } } } } }", class, search, props, args, dsFields)
}

// plain builds a Get query without diverse selection.
func plain(class, search, props string) string {
	return fmt.Sprintf("{ Get { %s(%s) { %s _additional { id distance } } } }", class, search, props)
}

// checkSelection asserts what every selection must satisfy: a non-empty list
// of distinct objects, ranks 1..n in selection order (when inSelectionOrder),
// per-query figures consistent with the items, and the token budget held.
func checkSelection(t testing.TB, hits []Hit, budget int, inSelectionOrder bool) {
	t.Helper()
	if len(hits) == 0 {
		t.Fatal("empty selection")
	}
	seen := map[string]bool{}
	ranks := make([]int, len(hits))
	sum := 0
	for i, h := range hits {
		if h.DS == nil {
			t.Fatalf("hit %d (%s) has no _additional.diverseSelect", i, h.ID)
		}
		if seen[h.ID] {
			t.Errorf("object %s returned twice", h.ID)
		}
		seen[h.ID] = true
		ranks[i] = h.DS.Rank
		sum += h.DS.Tokens
		if h.DS.Tokens < 1 {
			t.Errorf("hit %d: tokens %d < 1", i, h.DS.Tokens)
		}
		if h.DS.Selected != len(hits) {
			t.Errorf("hit %d: selected %d, but %d objects returned", i, h.DS.Selected, len(hits))
		}
		if h.DS.Candidates < len(hits) {
			t.Errorf("hit %d: candidates %d < %d selected", i, h.DS.Candidates, len(hits))
		}
		if h.DS.Budget != budget {
			t.Errorf("hit %d: budget %d, want %d", i, h.DS.Budget, budget)
		}
		if inSelectionOrder && h.DS.Rank != i+1 {
			t.Errorf("hit %d has rank %d, want %d (selection order)", i, h.DS.Rank, i+1)
		}
		if math.IsNaN(h.DS.Gain) || math.IsNaN(h.DS.Relevance) {
			t.Errorf("hit %d: NaN in %+v", i, *h.DS)
		}
	}
	sort.Ints(ranks)
	for i, r := range ranks {
		if r != i+1 {
			t.Errorf("ranks %v are not 1..%d", ranks, len(hits))
			break
		}
	}
	if hits[0].DS.TokensUsed != sum {
		t.Errorf("tokensUsed %d, but the items' tokens sum to %d", hits[0].DS.TokensUsed, sum)
	}
	if d := hits[0].DS; !slices.Contains([]string{"budget", "price", "maxResults", "pool"}, d.StopReason) {
		t.Errorf("stopReason %q, want budget, price, maxResults or pool", d.StopReason)
	} else if left := max(0, budget-d.TokensUsed); budget > 0 && d.TokensLeft != left {
		t.Errorf("tokensLeft %d, want %d (budget %d, %d used)", d.TokensLeft, left, budget, d.TokensUsed)
	}
	if budget > 0 && sum > budget {
		t.Errorf("token budget exceeded: %d > %d", sum, budget)
	}
}

// ids returns the hits' ids in order.
func ids(hits []Hit) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.ID
	}
	return out
}

// assertAlive runs a good query and checks the server process still runs.
func assertAlive(t testing.TB) {
	t.Helper()
	if !srv.Alive() {
		t.Fatal("the Weaviate server process has exited")
	}
	health(t)
	res := graphql(t, "{ Get { Health(limit: 2, diverseSelect: {strategy: \"topk\"}) { body } } }", nil)
	if len(res.Errors) > 0 || len(res.Data.Get["Health"]) != 2 {
		t.Fatalf("server no longer answers a good query: errors %q, data %v", res.errText(), res.Data.Get)
	}
}

// ---- schema and data -------------------------------------------------------

// Doc is one object of a test corpus.
type Doc struct {
	Key     string // unique within the class; the object's UUID derives from it
	Body    string
	Group   int            // planted duplicate group: docs sharing it are near-duplicates
	Props   map[string]any // more properties
	Vector  []float32      // legacy vector (vectorizer none)
	Vectors map[string][]float32
	Tenant  string
}

// uuidOf derives a stable UUID from a class and a key.
func uuidOf(class, key string) string {
	h := sha1.Sum([]byte(class + "/" + key))
	h[6] = (h[6] & 0x0f) | 0x50
	h[8] = (h[8] & 0x3f) | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", h[0:4], h[4:6], h[6:8], h[8:10], h[10:16])
}

// index maps object ids to their docs.
func index(class string, docs []Doc) map[string]Doc {
	m := make(map[string]Doc, len(docs))
	for _, d := range docs {
		m[uuidOf(class, d.Tenant+"/"+d.Key)] = d
	}
	return m
}

func ctx(t testing.TB) context.Context {
	c, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return c
}

// createClass (re)creates a class through the Go client.
func createClass(t testing.TB, c *models.Class) {
	t.Helper()
	_ = client.Schema().ClassDeleter().WithClassName(c.Class).Do(ctx(t))
	if err := client.Schema().ClassCreator().WithClass(c).Do(ctx(t)); err != nil {
		t.Fatalf("create class %s: %v", c.Class, err)
	}
}

// importDocs batch-imports docs through the Go client and checks every object.
func importDocs(t testing.TB, class string, docs []Doc) {
	t.Helper()
	objs := make([]*models.Object, len(docs))
	for i, d := range docs {
		props := map[string]any{"body": d.Body, "grp": d.Group}
		for k, v := range d.Props {
			props[k] = v
		}
		o := &models.Object{
			Class:      class,
			ID:         strfmt.UUID(uuidOf(class, d.Tenant+"/"+d.Key)),
			Properties: props,
			Tenant:     d.Tenant,
		}
		if d.Vector != nil {
			o.Vector = d.Vector
		}
		if d.Vectors != nil {
			o.Vectors = models.Vectors{}
			for k, v := range d.Vectors {
				o.Vectors[k] = v
			}
		}
		objs[i] = o
	}
	res, err := client.Batch().ObjectsBatcher().WithObjects(objs...).Do(ctx(t))
	if err != nil {
		t.Fatalf("batch import into %s: %v", class, err)
	}
	if len(res) != len(docs) {
		t.Fatalf("batch import into %s: %d results for %d objects", class, len(res), len(docs))
	}
	for i, r := range res {
		if r.Result != nil && r.Result.Errors != nil && len(r.Result.Errors.Error) > 0 {
			t.Fatalf("batch import into %s, object %q: %s", class, docs[i].Key, r.Result.Errors.Error[0].Message)
		}
	}
}

// transformers is the class-level config of text2vec-transformers: the class
// name is not part of the embedded text, so near-duplicate bodies give
// near-identical vectors.
func transformers() map[string]any {
	return map[string]any{"text2vec-transformers": map[string]any{"vectorizeClassName": false}}
}

// skipVectorization marks a property as not embedded.
func skipVectorization() map[string]any {
	return map[string]any{"text2vec-transformers": map[string]any{"skip": true}}
}

// bodyProps are the properties every corpus has: body (text), grp and ntok (int).
func bodyProps(extra ...*models.Property) []*models.Property {
	return append([]*models.Property{
		{Name: "body", DataType: []string{"text"}},
		{Name: "grp", DataType: []string{"int"}},
		{Name: "ntok", DataType: []string{"int"}},
	}, extra...)
}

// groupsOf returns the planted groups of the hits.
func groupsOf(t testing.TB, hits []Hit, idx map[string]Doc) []int {
	t.Helper()
	out := make([]int, len(hits))
	for i, h := range hits {
		d, ok := idx[h.ID]
		if !ok {
			t.Fatalf("hit %s is not an object of this corpus", h.ID)
		}
		out[i] = d.Group
	}
	return out
}

// duplicatePairs lists the positions of hits that share a planted group.
func duplicatePairs(groups []int) [][2]int {
	var out [][2]int
	for i := range groups {
		for j := i + 1; j < len(groups); j++ {
			if groups[i] == groups[j] {
				out = append(out, [2]int{i, j})
			}
		}
	}
	return out
}

// ---- independent similarity: the embedder's hash vectors -------------------

// hashEmbedder recomputes the vectors the stack's embedder gives (hash mode,
// its default 256 dimensions): Weaviate's text2vec-transformers sends a
// Health-style object's body as is (vectorizeClassName off, one text
// property), so the tests can compute similarities without asking the server.
var hashEmbedder = func() *embed.Hash {
	h, err := embed.NewHash(embed.DefaultHashDims)
	if err != nil {
		panic(err)
	}
	return h
}()

// cosine of the hash vectors of two texts.
func cosine(a, b string) float64 {
	va, vb := hashEmbedder.Embed(a), hashEmbedder.Embed(b)
	s := 0.0
	for i := range va {
		s += float64(va[i]) * float64(vb[i])
	}
	return s
}

// startOwnStack starts an embedder and Weaviate of a test's own, beside the
// shared stack, with their output in a log file of name's (its path is
// returned and logged), and connects the Go client; stopping it is the
// caller's.
func startOwnStack(t *testing.T, name string, o stack.Options) (*stack.Stack, *weaviate.Client, string) {
	t.Helper()
	logFile, err := os.CreateTemp("", "diverse-select-"+name+"-it-*.log")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { logFile.Close() })
	o.Log = logFile
	c, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	s, err := stack.Start(c, o)
	if err != nil {
		t.Fatalf("start a %s stack: %v (log %s)\n%s", name, err, logFile.Name(), tail(logFile.Name(), 30))
	}
	wc, err := weaviate.NewClient(weaviate.Config{Host: fmt.Sprintf("127.0.0.1:%d", s.HTTPPort), Scheme: "http"})
	if err != nil {
		s.Stop()
		t.Fatal(err)
	}
	t.Logf("%s stack log: %s", name, logFile.Name())
	return s, wc, logFile.Name()
}

// readJSON decodes the JSON file a client's test wrote (writer names it in
// the failure) into v.
func readJSON(t testing.TB, path, writer string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%s wrote nothing to %s: %v", writer, filepath.Base(path), err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s's %s: %v", writer, filepath.Base(path), err)
	}
}
