package integration

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/weaviate/weaviate-go-client/v5/weaviate"
	"github.com/weaviate/weaviate/entities/models"
	pb "github.com/weaviate/weaviate/grpc/generated/protocol/v1"

	"github.com/diverse-select/diverse-select/integration/stack"
)

// TestGatewayGenerate: RAG in one client call through the gateway. A
// generative search with settings selects first, then generates upstream
// over exactly the selected objects: each selected object - and no other -
// gets its single prompt, in the reply's selection order, and the grouped
// task's context holds exactly the selection, in the selection's order
// (the id-filtered search ranks them by a vector that orders them so).
// Both generative-dummy (which echoes its prompt) and generative-openai
// pointed at a local recorder (which keeps every request) answer.
func TestGatewayGenerate(t *testing.T) {
	eq := startGatewayEq(t)
	rec, err := stack.StartOpenAIRecorder()
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Close()
	up, err := weaviate.NewClient(weaviate.Config{Host: strings.TrimPrefix(eq.up.HTTPURL, "http://"), Scheme: "http"})
	if err != nil {
		t.Fatal(err)
	}
	classes := map[string]map[string]any{
		"GatewayRagDummy":  {"generative-dummy": map[string]any{}},
		"GatewayRagOpenAI": {"generative-openai": map[string]any{"baseURL": rec.URL, "model": stack.RecorderModel}},
	}
	gwConfig := map[string]any{}
	for class, gen := range classes {
		mc := transformers()
		for k, v := range gen {
			mc[k] = v
		}
		createOn(t, up, &models.Class{Class: class, Vectorizer: "text2vec-transformers", ModuleConfig: mc, Properties: bodyProps()})
		importOn(t, up, class, healthDocs)
		gwConfig[class] = ragSelection
	}
	gs := &gatewayStack{up: eq.up}
	gs.launch(t, "gateway-rag", gwConfig, nil, t.Cleanup)

	inOrder := 0
	runs := 0
	for class := range classes {
		for run := range 5 {
			tag := fmt.Sprintf("gw-%s-%d", class, run)
			sel, err := gs.search(ctx(t), ragGRPCRequest(class, ""))
			if err != nil || len(sel.Results) < 2 || len(sel.Results) >= ragPool {
				t.Fatalf("%s: the selection: %d objects, %v", class, len(sel.GetResults()), err)
			}
			selection := bodiesOf(sel)
			reply, err := gs.search(ctx(t), ragGRPCRequest(class, tag))
			if err != nil {
				t.Fatalf("%s: generative search through the gateway: %v\n%s", class, err, gs.logTail())
			}
			if got := bodiesOf(reply); !slices.Equal(got, selection) {
				t.Fatalf("%s: generate returned %v, the selection is %v", class, got, selection)
			}
			singles := map[string]bool{}
			for i, r := range reply.Results {
				v := r.GetGenerative().GetValues()
				if len(v) == 0 {
					t.Fatalf("%s: object %d has no single answer", class, i)
				}
				if class == "GatewayRagDummy" {
					p, ok := stack.DummyPrompt(v[0].GetResult())
					if want := wantSinglePrompt(tag, selection[i]); !ok || p != want {
						t.Errorf("%s: object %d: the LLM got %.200q, want %.200q", class, i, p, want)
					}
				} else if v[0].GetResult() != stack.RecorderAnswer {
					t.Errorf("%s: object %d: answer %q", class, i, v[0].GetResult())
				}
				singles[selection[i]] = true
			}
			grouped := reply.GetGenerativeGroupedResults().GetValues()
			if len(grouped) == 0 {
				t.Fatalf("%s: no grouped answer", class)
			}
			var prompt string
			if class == "GatewayRagDummy" {
				prompt, _ = stack.DummyPrompt(grouped[0].GetResult())
			} else {
				var prompts, singlePrompts []string
				for _, c := range rec.Calls() {
					p := c.Prompt()
					if strings.HasPrefix(p, groupedTask(tag)) {
						prompts = append(prompts, p)
					} else if strings.HasPrefix(p, "("+tag+")") {
						singlePrompts = append(singlePrompts, p)
					}
				}
				if len(prompts) != 1 {
					t.Fatalf("%s: the recorder got %d grouped prompts, want 1", class, len(prompts))
				}
				prompt = prompts[0]
				var want []string
				for _, b := range selection {
					want = append(want, wantSinglePrompt(tag, b))
				}
				sort.Strings(want)
				sort.Strings(singlePrompts)
				if !slices.Equal(singlePrompts, want) {
					t.Errorf("%s: the recorder got %d single prompts, want exactly the %d selected objects'", class, len(singlePrompts), len(want))
				}
			}
			context := groupedContext(t, tag, prompt)
			if !sameSet(context, selection) {
				t.Errorf("%s: the grouped prompt holds %v, the selection %v", class, context, selection)
			}
			if slices.Equal(context, selection) {
				inOrder++
			} else {
				t.Errorf("%s: the grouped prompt lists the selection as %v, not in its order %v", class, context, selection)
			}
			runs++
		}
	}
	t.Logf("grouped prompts in the selection's order: %d of %d", inOrder, runs)
}

func bodiesOf(r *pb.SearchReply) []string {
	var out []string
	for _, x := range r.Results {
		out = append(out, x.GetProperties().GetNonRefProps().GetFields()["body"].GetTextValue())
	}
	return out
}

// groupedContext reads the bodies from a grouped prompt (the task, then the
// objects' properties as JSON).
func groupedContext(t testing.TB, tag, prompt string) []string {
	t.Helper()
	rest, ok := strings.CutPrefix(prompt, groupedTask(tag)+": ")
	if !ok {
		t.Fatalf("grouped prompt %.200q does not start with the task", prompt)
	}
	var props []map[string]string
	if err := json.Unmarshal([]byte(rest), &props); err != nil {
		t.Fatalf("grouped prompt's context %.200q: %v", rest, err)
	}
	out := make([]string, len(props))
	for i, p := range props {
		out[i] = p["body"]
	}
	return out
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	sort.Strings(a)
	sort.Strings(b)
	return slices.Equal(a, b)
}
