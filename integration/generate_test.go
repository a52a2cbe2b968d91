package integration

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/weaviate/weaviate-go-client/v5/weaviate/connection"
	"github.com/weaviate/weaviate/entities/models"
	pb "github.com/weaviate/weaviate/grpc/generated/protocol/v1"

	"github.com/diverse-select/diverse-select/integration/stack"
)

// RAG in one query: diverse selection, then Weaviate's generate, on every
// route - the top-level diverseSelect argument, the _additional field, and
// gRPC generative search with the rerank route (Go and TypeScript clients).
// Weaviate runs result hooks in map order; the selection stage runs
// generate after the selection, so the LLM gets exactly the selected
// objects in the selection's output order and its answer comes back. Two
// generative modules check it: generative-dummy, which answers with the
// prompt it was given, and generative-openai pointed at a local recorder
// (stack.OpenAIRecorder) that keeps the exact messages.

const (
	ragRuns   = 50 // repeated queries per form and route (map order used to decide 18 of 20)
	ragPool   = 15 // candidates: the query limit of the field form and of gRPC, candidates of the argument
	ragBudget = 80 // tokens: the selection keeps about a third of the pool
)

// ragSelection is the selection's config, in the class and as field arguments.
var ragSelection = map[string]any{"strategy": "adagres", "tokenBudget": ragBudget, "textProperty": "body"}

const ragSelectionArgs = `strategy: "adagres", tokenBudget: 80, textProperty: "body"`

// ragClass (re)creates a Health-corpus class with diverse-select, its gRPC
// reranker and the given generative module config.
func ragClass(t testing.TB, class string, generative map[string]any) {
	t.Helper()
	createClass(t, &models.Class{Class: class, Vectorizer: "text2vec-transformers",
		ModuleConfig: selectionWith(ragSelection, generative), Properties: bodyProps()})
	importDocs(t, class, healthDocs)
}

// selectionWith is a class's module config: the selection for both
// diverse-select modules (GraphQL and the gRPC reranker) and the given
// generative module.
func selectionWith(selection, generative map[string]any) map[string]any {
	mc := withReranker(selection)
	mc["diverse-select"] = selection
	for k, v := range generative {
		mc[k] = v
	}
	return mc
}

// A run's prompts carry its tag, so the recorder's calls of one run are found
// among all of them.
func groupedTask(tag string) string  { return "Answer from these chunks (" + tag + ")" }
func singlePrompt(tag string) string { return "(" + tag + ") Summarise: {body}" }

// wantGroupedPrompt is what Weaviate sends the LLM for the grouped task over
// these objects: the task, then the context (generative.MakeTaskPrompt).
func wantGroupedPrompt(tag string, bodies []string) string {
	return groupedTask(tag) + contextJSON(bodies)
}

// contextJSON is how a grouped prompt ends: the objects' body properties as
// JSON, in order.
func contextJSON(bodies []string) string {
	props := make([]map[string]string, len(bodies))
	for i, b := range bodies {
		props[i] = map[string]string{"body": b}
	}
	b, _ := json.Marshal(props)
	return ": " + string(b)
}

func wantSinglePrompt(tag, body string) string {
	return strings.Replace(singlePrompt(tag), "{body}", body, 1)
}

// ragReply is what one query returned, whatever the route.
type ragReply struct {
	Bodies  []string  `json:"bodies"`  // returned objects, in order
	Grouped *string   `json:"grouped"` // the grouped answer
	Singles []*string `json:"singles"` // each object's answer
	// GroupedNotFirst: the grouped answer came on an object other than the
	// first (GraphQL shows where; gRPC returns it once per reply).
	GroupedNotFirst bool `json:"groupedNotFirst"`
}

// ragCheck checks one reply against the selection (the same query without
// generate) and says, for the grouped task and for the single prompts,
// whether the LLM got exactly the selection in order and its answers came
// back; why not, when not.
type ragCheck struct {
	backend string // "dummy" or "openai"
	rec     *stack.OpenAIRecorder
}

func (c ragCheck) check(tag string, got ragReply, selection []string) (groupedWhy, singleWhy string) {
	if !slices.Equal(got.Bodies, selection) {
		why := fmt.Sprintf("returned %d objects, not the %d selected (or another order)", len(got.Bodies), len(selection))
		return why, why
	}
	var calls []stack.RecordedCall
	if c.rec != nil {
		for _, call := range c.rec.Calls() {
			if strings.Contains(call.Prompt(), "("+tag+")") {
				calls = append(calls, call)
			}
		}
	}
	return c.grouped(tag, got, selection, calls), c.single(tag, got, selection, calls)
}

func (c ragCheck) grouped(tag string, got ragReply, selection []string, calls []stack.RecordedCall) string {
	want := wantGroupedPrompt(tag, selection)
	switch {
	case got.Grouped == nil:
		return "no grouped answer came back"
	case got.GroupedNotFirst:
		return "the grouped answer is not on the first object"
	case c.backend == "dummy":
		if p, ok := stack.DummyPrompt(*got.Grouped); !ok || p != want {
			return fmt.Sprintf("the LLM got %.300q, want %.300q", p, want)
		}
	default:
		if *got.Grouped != stack.RecorderAnswer {
			return fmt.Sprintf("grouped answer %q, want the recorder's", *got.Grouped)
		}
		var prompts []string
		for _, call := range calls {
			if p := call.Prompt(); strings.HasPrefix(p, groupedTask(tag)) {
				prompts = append(prompts, p)
			}
		}
		if len(prompts) != 1 || prompts[0] != want {
			return fmt.Sprintf("the recorder got %d grouped prompts %.300q, want one: %.300q", len(prompts), prompts, want)
		}
	}
	return ""
}

func (c ragCheck) single(tag string, got ragReply, selection []string, calls []stack.RecordedCall) string {
	if len(got.Singles) != len(selection) {
		return fmt.Sprintf("%d single answers for %d objects", len(got.Singles), len(selection))
	}
	for i, s := range got.Singles {
		want := wantSinglePrompt(tag, selection[i])
		switch {
		case s == nil:
			return fmt.Sprintf("object %d: no single answer", i)
		case c.backend == "dummy":
			if p, ok := stack.DummyPrompt(*s); !ok || p != want {
				return fmt.Sprintf("object %d: the LLM got %.200q, want %.200q", i, p, want)
			}
		case *s != stack.RecorderAnswer:
			return fmt.Sprintf("object %d: answer %q, want the recorder's", i, *s)
		}
	}
	if c.backend == "openai" {
		var got, want []string
		for _, call := range calls {
			if p := call.Prompt(); strings.HasPrefix(p, "("+tag+")") {
				got = append(got, p)
			}
		}
		for _, b := range selection {
			want = append(want, wantSinglePrompt(tag, b))
		}
		sort.Strings(got) // the module sends single prompts concurrently
		sort.Strings(want)
		if !slices.Equal(got, want) {
			return fmt.Sprintf("the recorder got %d single prompts, want exactly the %d selected objects': %.300q", len(got), len(want), got)
		}
	}
	return ""
}

// ragTally counts the runs of one form or route whose grouped and single
// generation got exactly the selection.
type ragTally struct {
	name            string
	runs            int
	grouped, single int
}

func (tl *ragTally) add(t testing.TB, run int, groupedWhy, singleWhy string) {
	t.Helper()
	tl.runs++
	if groupedWhy == "" {
		tl.grouped++
	} else if tl.runs-tl.grouped <= 3 { // the first few failures say why
		t.Errorf("%s run %d, grouped task: %s", tl.name, run, groupedWhy)
	}
	if singleWhy == "" {
		tl.single++
	} else if tl.runs-tl.single <= 3 {
		t.Errorf("%s run %d, single prompt: %s", tl.name, run, singleWhy)
	}
}

func (tl *ragTally) report(t testing.TB) {
	t.Helper()
	t.Logf("%-44s groupedTask %d/%d, singlePrompt %d/%d: prompt == selection and answer returned", tl.name, tl.grouped, tl.runs, tl.single, tl.runs)
	if tl.grouped != tl.runs || tl.single != tl.runs {
		t.Errorf("%s: groupedTask %d/%d, singlePrompt %d/%d, want all", tl.name, tl.grouped, tl.runs, tl.single, tl.runs)
	}
}

// generateField is the _additional generate clause of one run.
func generateField(tag string) string {
	return fmt.Sprintf(`generate(singleResult: {prompt: %q}, groupedResult: {task: %q, properties: ["body"]}) { singleResult groupedResult error }`,
		singlePrompt(tag), groupedTask(tag))
}

// ragGraphQL is a GraphQL RAG query of one form; gen is the generate clause
// or "" for the selection alone.
func ragGraphQL(form, class, gen string) string {
	near := fmt.Sprintf("nearText: {concepts: [%q]}", healthQuery)
	switch form {
	case "argument":
		return fmt.Sprintf(`{ Get { %s(%s, limit: %d, diverseSelect: {candidates: %d}) { body _additional { id diverseSelect { rank } %s } } } }`,
			class, near, ragPool, ragPool, gen)
	default: // field
		return fmt.Sprintf(`{ Get { %s(%s, limit: %d) { body _additional { id diverseSelect(%s) { rank } %s } } } }`,
			class, near, ragPool, ragSelectionArgs, gen)
	}
}

// graphqlRAG runs a GraphQL query and returns its reply.
func graphqlRAG(t testing.TB, class, query string) (ragReply, error) {
	t.Helper()
	res := graphql(t, query, nil)
	if len(res.Errors) > 0 {
		return ragReply{}, fmt.Errorf("%s", res.errText())
	}
	var out ragReply
	for i, o := range res.Data.Get[class] {
		body, _ := o["body"].(string)
		out.Bodies = append(out.Bodies, body)
		add, _ := o["_additional"].(map[string]any)
		gen, _ := add["generate"].(map[string]any)
		if e, _ := gen["error"].(string); e != "" {
			return out, fmt.Errorf("object %d: generate error %s", i, e)
		}
		if s, ok := gen["singleResult"].(string); ok {
			out.Singles = append(out.Singles, &s)
		} else {
			out.Singles = append(out.Singles, nil)
		}
		if g, ok := gen["groupedResult"].(string); ok {
			if i == 0 {
				out.Grouped = &g
			} else {
				out.GroupedNotFirst = true
			}
		}
	}
	return out, nil
}

// ragGRPCRequest is the gRPC RAG request (the rerank route selects; the
// class's generative module answers); tag "" asks for no generation.
func ragGRPCRequest(class, tag string) *pb.SearchRequest {
	req := rerankRequest(class, ragPool)
	req.NearText = &pb.NearTextSearch{Query: []string{healthQuery}}
	if tag != "" {
		req.Generative = &pb.GenerativeSearch{
			Single:  &pb.GenerativeSearch_Single{Prompt: singlePrompt(tag)},
			Grouped: &pb.GenerativeSearch_Grouped{Task: groupedTask(tag), Properties: &pb.TextArray{Values: []string{"body"}}},
		}
	}
	return req
}

// grpcRAG sends a request and returns its reply.
func grpcRAG(t testing.TB, req *pb.SearchRequest) (ragReply, error) {
	t.Helper()
	reply, err := grpcc(t).Search(ctx(t), req)
	if err != nil {
		return ragReply{}, err
	}
	var out ragReply
	for _, r := range reply.Results {
		out.Bodies = append(out.Bodies, r.GetProperties().GetNonRefProps().GetFields()["body"].GetTextValue())
		if v := r.GetGenerative().GetValues(); len(v) > 0 {
			s := v[0].GetResult()
			out.Singles = append(out.Singles, &s)
		} else {
			out.Singles = append(out.Singles, nil)
		}
	}
	if v := reply.GetGenerativeGroupedResults().GetValues(); len(v) > 0 {
		g := v[0].GetResult()
		out.Grouped = &g
	}
	return out, nil
}

// ragBackends creates one class per generative module and returns them with
// their checkers; the OpenAI recorder runs until the test ends.
func ragBackends(t *testing.T) (classes []string, checks []ragCheck) {
	rec, err := stack.StartOpenAIRecorder()
	if err != nil {
		t.Fatalf("OpenAI recorder: %v", err)
	}
	t.Cleanup(func() { rec.Close() })
	ragClass(t, "RagDummy", map[string]any{"generative-dummy": map[string]any{}})
	ragClass(t, "RagOpenAI", map[string]any{"generative-openai": map[string]any{"baseURL": rec.URL, "model": stack.RecorderModel}})
	return []string{"RagDummy", "RagOpenAI"}, []ragCheck{{backend: "dummy"}, {backend: "openai", rec: rec}}
}

// TestRAGGenerate: 50 identical queries per form and route and per
// generative module; in every one the grouped task's prompt is exactly the
// selected objects in order, each selected object - and no other - got its
// single prompt, and the answers came back (on the first object for the
// grouped task). The selection is the same query's without generate, and
// drops most of the pool, so generation over the pool would show.
func TestRAGGenerate(t *testing.T) {
	classes, checks := ragBackends(t)
	for i, class := range classes {
		check := checks[i]
		t.Run(check.backend, func(t *testing.T) {
			for _, form := range []string{"argument", "field"} {
				selection, err := graphqlRAG(t, class, ragGraphQL(form, class, ""))
				if err != nil {
					t.Fatalf("%s form without generate: %v", form, err)
				}
				check.runs(t, fmt.Sprintf("%s, GraphQL %s form", check.backend, form), form, selection.Bodies,
					func(tag string) (ragReply, error) {
						return graphqlRAG(t, class, ragGraphQL(form, class, generateField(tag)))
					})
			}
			selection, err := grpcRAG(t, ragGRPCRequest(class, ""))
			if err != nil {
				t.Fatalf("gRPC rerank without generate: %v", err)
			}
			check.runs(t, check.backend+", gRPC generative search + rerank (Go)", "grpc", selection.Bodies,
				func(tag string) (ragReply, error) { return grpcRAG(t, ragGRPCRequest(class, tag)) })
		})
	}
}

// runs sends ragRuns queries, query(tag) for the tags prefix-0, prefix-1 ...,
// checks each against the selection and reports the counts. The selection
// must drop part of the pool, or generation over the pool would not show.
func (c ragCheck) runs(t *testing.T, name, prefix string, selection []string, query func(tag string) (ragReply, error)) {
	t.Helper()
	if n := len(selection); n < 2 || n >= ragPool {
		t.Fatalf("%s: %d of %d candidates selected; the test needs a selection that drops some", name, n, ragPool)
	}
	tally := ragTally{name: name}
	for run := range ragRuns {
		tag := fmt.Sprintf("%s-%d", prefix, run)
		got, err := query(tag)
		if err != nil {
			tally.add(t, run, err.Error(), err.Error())
			continue
		}
		groupedWhy, singleWhy := c.check(tag, got, selection)
		tally.add(t, run, groupedWhy, singleWhy)
	}
	tally.report(t)
}

// TestRAGGenerateTypeScript: the same 50 queries per generative module
// through the official TypeScript client's generate.nearText with rerank
// (ts/generate.mjs prints each reply; this test checks them and the
// recorder), then a query on Article with the collection's own settings.
func TestRAGGenerateTypeScript(t *testing.T) {
	classes, checks := ragBackends(t)
	ragArticle(t)
	c, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := nodeCommand(t, c, []string{"RAG_COLLECTIONS=" + strings.Join(classes, ","),
		fmt.Sprintf("RAG_RUNS=%d", ragRuns), fmt.Sprintf("RAG_POOL=%d", ragPool)}, "generate.mjs")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node generate.mjs: %v\n%s\n%s", err, stderr.Bytes(), out)
	}
	t.Logf("node generate.mjs: %s", time.Since(start).Round(time.Millisecond))

	tallies := map[string]*ragTally{}
	selections := map[string][]string{}
	var readme *ragReply
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		if !bytes.HasPrefix(sc.Bytes(), []byte("{")) {
			continue // not a reply
		}
		var line struct {
			ragReply
			Collection, Tag string
			Readme          *ragReply
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatalf("undecodable line %q: %v", sc.Text(), err)
		}
		if line.Readme != nil {
			readme = line.Readme
			continue
		}
		i := slices.Index(classes, line.Collection)
		if i < 0 {
			t.Fatalf("reply for unknown collection %q", line.Collection)
		}
		tl := tallies[line.Collection]
		if tl == nil {
			tl = &ragTally{name: checks[i].backend + ", gRPC generate.nearText + rerank (TS)"}
			tallies[line.Collection] = tl
			sel, err := grpcRAG(t, ragGRPCRequest(line.Collection, ""))
			if err != nil {
				t.Fatalf("gRPC rerank without generate on %s: %v", line.Collection, err)
			}
			selections[line.Collection] = sel.Bodies
		}
		groupedWhy, singleWhy := checks[i].check(line.Tag, line.ragReply, selections[line.Collection])
		tl.add(t, tl.runs, groupedWhy, singleWhy)
	}
	for _, class := range classes {
		tl := tallies[class]
		if tl == nil || tl.runs != ragRuns {
			t.Fatalf("%s: %v replies from the script, want %d", class, tl, ragRuns)
		}
		tl.report(t)
	}

	if readme == nil {
		t.Fatal("the script printed no reply for Article")
	}
	checkReadmeAnswer(t, "TypeScript", *readme, ragArticleSelection(t))
}

// ragArticle is an Article collection with the RAG set-up: the
// gRPC route's reranker, the GraphQL forms' defaults, and generative-dummy
// (a real collection would name generative-openai or another LLM module).
func ragArticle(t testing.TB) {
	t.Helper()
	createClass(t, &models.Class{
		Class:      "Article",
		Vectorizer: "text2vec-transformers",
		ModuleConfig: map[string]any{
			"reranker-diverse-select": map[string]any{"strategy": "adagres", "tokenBudget": 100},
			"generative-dummy":        map[string]any{},
		},
		Properties: []*models.Property{{Name: "body", DataType: []string{"text"}}},
	})
	importDocs(t, "Article", healthDocs)
}

// ragArticleSelection is the gRPC rerank route's selection on Article for the
// README's question and pool, without generate.
func ragArticleSelection(t testing.TB) []string {
	t.Helper()
	req := rerankRequest("Article", 40)
	req.NearText = &pb.NearTextSearch{Query: []string{healthQuery}}
	sel, err := grpcRAG(t, req)
	if err != nil {
		t.Fatalf("gRPC rerank on Article: %v", err)
	}
	if len(sel.Bodies) < 2 || len(sel.Bodies) >= len(healthDocs) {
		t.Fatalf("Article: %d objects selected of %d", len(sel.Bodies), len(healthDocs))
	}
	return sel.Bodies
}

// checkReadmeAnswer: a client's reply on Article (ragArticle) is the
// selection, and generative-dummy's answer shows it got exactly that
// context, in order.
func checkReadmeAnswer(t testing.TB, what string, got ragReply, selection []string) {
	t.Helper()
	if !slices.Equal(got.Bodies, selection) {
		t.Errorf("%s on Article returned %d objects %q, want the selection of %d", what, len(got.Bodies), got.Bodies, len(selection))
	}
	if got.Grouped == nil {
		t.Fatalf("%s on Article: no answer", what)
	}
	if p, ok := stack.DummyPrompt(*got.Grouped); !ok || !strings.HasSuffix(p, contextJSON(selection)) {
		t.Errorf("%s on Article: the LLM got %.300q, want the selection %.300q", what, p, contextJSON(selection))
	}
}

// answer asks the collection's LLM (its generative module) about question over
// gRPC, with the context diverse-select chose: the collection's reranker is
// reranker-diverse-select, so generate sees only the selection, in order.
func answer(ctx context.Context, conn *connection.GrpcClient, question string) (string, []*pb.SearchResult, error) {
	reply, err := conn.Search(ctx, &pb.SearchRequest{
		Collection: "Article",
		Limit:      40, // the candidate pool
		NearText:   &pb.NearTextSearch{Query: []string{question}},
		Rerank:     &pb.Rerank{Property: "body", Query: &question},
		Generative: &pb.GenerativeSearch{Grouped: &pb.GenerativeSearch_Grouped{
			Task:       fmt.Sprintf("Answer %q from these chunks only.", question),
			Properties: &pb.TextArray{Values: []string{"body"}},
		}},
		Properties:  &pb.PropertiesRequest{NonRefProperties: []string{"body"}},
		Metadata:    &pb.MetadataRequest{Uuid: true},
		Uses_123Api: true, Uses_125Api: true, Uses_127Api: true,
	})
	if err != nil {
		return "", nil, err
	}
	text := ""
	if grouped := reply.GetGenerativeGroupedResults().GetValues(); len(grouped) > 0 {
		text = grouped[0].GetResult()
	}
	return text, reply.Results, nil
}

// TestRAGArticle: a raw gRPC generative search with a rerank, through the
// Go client's connection, on Article with the collection's own settings,
// returns the selection, and the LLM (generative-dummy) got exactly that
// context, in order. (docs/rag.md's programs and GraphQL block run as
// written in TestDocSnippets.)
func TestRAGArticle(t *testing.T) {
	ragArticle(t)
	text, results, err := answer(ctx(t), grpcc(t), healthQuery)
	if err != nil {
		t.Fatal(err)
	}
	got := ragReply{Grouped: &text}
	for _, r := range results {
		got.Bodies = append(got.Bodies, r.GetProperties().GetNonRefProps().GetFields()["body"].GetTextValue())
	}
	checkReadmeAnswer(t, "Go", got, ragArticleSelection(t))
}

// BenchmarkRAGLatency measures, side by side in one interleaved run, a
// diverseSelect query and the same query with generate (groupedResult,
// generative-dummy: the LLM's own time left out) over GraphQL, and reports
// both medians and their ratio:
//
//	go test -run '^$' -bench RAGLatency -benchtime 300x ./integration/
func BenchmarkRAGLatency(b *testing.B) {
	const class = "RagBench"
	ensure(b, class, func(t testing.TB) { ragClass(t, class, map[string]any{"generative-dummy": map[string]any{}}) })
	alone := ragGraphQL("argument", class, "")
	withGenerate := ragGraphQL("argument", class,
		fmt.Sprintf(`generate(groupedResult: {task: %q, properties: ["body"]}) { groupedResult error }`, groupedTask("bench")))
	timed := func(q string) time.Duration {
		start := time.Now()
		got, err := graphqlRAG(b, class, q)
		d := time.Since(start)
		if err != nil || len(got.Bodies) == 0 {
			b.Fatalf("query failed: %v (%d objects)", err, len(got.Bodies))
		}
		return d
	}
	for range 20 { // warm caches and connections
		timed(alone)
		timed(withGenerate)
	}
	var a, g []time.Duration
	b.ResetTimer()
	for i := range b.N {
		if i%2 == 0 { // alternate which goes first
			a, g = append(a, timed(alone)), append(g, timed(withGenerate))
		} else {
			g, a = append(g, timed(withGenerate)), append(a, timed(alone))
		}
	}
	median := func(ds []time.Duration) float64 {
		slices.Sort(ds)
		return float64(ds[len(ds)/2]) / float64(time.Millisecond)
	}
	ma, mg := median(a), median(g)
	b.ReportMetric(ma, "ms-diverseSelect")
	b.ReportMetric(mg, "ms-diverseSelect+generate")
	b.ReportMetric(mg/ma, "ratio")
}
