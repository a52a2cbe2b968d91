package integration

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/weaviate/weaviate/entities/models"
	pb "github.com/weaviate/weaviate/grpc/generated/protocol/v1"

	"github.com/diverse-select/diverse-select/integration/stack"
)

// RAG in one query: diverse selection, then Weaviate's generate, on every
// route - the top-level diverseSelect argument, the _additional field, and
// gRPC generative search with the rerank route (Go and TypeScript clients).
// Weaviate runs result hooks in map order; the hook-order patch makes
// generate run after the selection, so the LLM gets exactly the selected
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
	mc := withReranker(ragSelection)
	mc["diverse-select"] = ragSelection
	for k, v := range generative {
		mc[k] = v
	}
	createClass(t, &models.Class{Class: class, Vectorizer: "text2vec-transformers", ModuleConfig: mc, Properties: bodyProps()})
	importDocs(t, class, healthDocs)
}

// A run's prompts carry its tag, so the recorder's calls of one run are found
// among all of them.
func groupedTask(tag string) string  { return "Answer from these chunks (" + tag + ")" }
func singlePrompt(tag string) string { return "(" + tag + ") Summarise: {body}" }

// wantGroupedPrompt is what Weaviate sends the LLM for the grouped task over
// these objects: the task, then the objects' body properties as JSON, in order
// (generative.MakeTaskPrompt).
func wantGroupedPrompt(tag string, bodies []string) string {
	props := make([]map[string]string, len(bodies))
	for i, b := range bodies {
		props[i] = map[string]string{"body": b}
	}
	b, _ := json.Marshal(props)
	return groupedTask(tag) + ": " + string(b)
}

func wantSinglePrompt(tag, body string) string {
	return strings.Replace(singlePrompt(tag), "{body}", body, 1)
}

// dummyPrompt recovers the prompt from generative-dummy's answer.
func dummyPrompt(answer string) (string, bool) {
	const head, tail = "You want me to generate something based on the following prompt: ", ". With settings: "
	rest, ok := strings.CutPrefix(answer, head)
	if i := strings.LastIndex(rest, tail); ok && i >= 0 {
		return rest[:i], true
	}
	return "", false
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
		if p, ok := dummyPrompt(*got.Grouped); !ok || p != want {
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
			if p, ok := dummyPrompt(*s); !ok || p != want {
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
				if n := len(selection.Bodies); n < 2 || n >= ragPool {
					t.Fatalf("%s form selects %d of %d candidates: the test needs a selection that drops some", form, n, ragPool)
				}
				tally := ragTally{name: fmt.Sprintf("%s, GraphQL %s form", check.backend, form)}
				for run := range ragRuns {
					tag := fmt.Sprintf("%s-%d", form, run)
					got, err := graphqlRAG(t, class, ragGraphQL(form, class, generateField(tag)))
					if err != nil {
						tally.add(t, run, err.Error(), err.Error())
						continue
					}
					groupedWhy, singleWhy := check.check(tag, got, selection.Bodies)
					tally.add(t, run, groupedWhy, singleWhy)
				}
				tally.report(t)
			}

			selection, err := grpcRAG(t, ragGRPCRequest(class, ""))
			if err != nil {
				t.Fatalf("gRPC rerank without generate: %v", err)
			}
			if n := len(selection.Bodies); n < 2 || n >= ragPool {
				t.Fatalf("gRPC rerank selects %d of %d candidates", n, ragPool)
			}
			tally := ragTally{name: check.backend + ", gRPC generative search + rerank (Go)"}
			for run := range ragRuns {
				tag := fmt.Sprintf("grpc-%d", run)
				got, err := grpcRAG(t, ragGRPCRequest(class, tag))
				if err != nil {
					tally.add(t, run, err.Error(), err.Error())
					continue
				}
				groupedWhy, singleWhy := check.check(tag, got, selection.Bodies)
				tally.add(t, run, groupedWhy, singleWhy)
			}
			tally.report(t)
		})
	}
}
