package integration

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/diverse-select/diverse-select/integration/stack"
)

// pythonTests are the tests of py/test_client.py, each of which must pass:
// a renamed, skipped or missing one fails TestPythonClient.
var pythonTests = []string{
	"test_readme_snippet",
	"test_collection_settings_next_to_builtin_mmr",
	"test_typed_settings_per_query",
	"test_explanation_typed_fields",
	"test_pages",
	"test_demo_pages",
	"test_cross_encoder_with_selection",
	"test_generative_with_selection",
	"test_injection",
	"test_policy_caps",
	"test_rag_snippet",
}

// pythonRAGRuns are the generative queries per collection of the Python test
// (the Go and TypeScript ones send ragRuns).
const pythonRAGRuns = 20

// TestPythonClient runs py/ (pytest) with the official Python client
// (weaviate-client v4, pinned in requirements/clients.txt) and the helper
// (clients/python, installed in the venv) against the shared stack, then
// checks what it wrote: the selections per settings against the library's,
// and each generative reply against the selection and what the LLM was sent.
// The venv (`make venv`, which make test runs first) is required: without
// it the test fails.
func TestPythonClient(t *testing.T) {
	if srv.Reranker == nil {
		t.Fatal("the shared stack runs no rerank server")
	}
	// The collections the Python tests query but do not create (they create Article, as the README does).
	inText := articleInText(t)
	demoPagesCollection(t)
	policyClasses(t)
	reranked := rerankedHealth(t)
	ragClasses, checks := ragBackends(t)

	dir := t.TempDir()
	injection := make([]map[string]string, len(injectionCases))
	for i, c := range injectionCases {
		injection[i] = map[string]string{"name": c.name, "question": c.question, "plain": c.plain, "optIn": c.optIn}
	}
	injectionFile := writeJSON(t, filepath.Join(dir, "injection.json"), injection) // 1 MB questions: too long for the environment
	type doc struct {
		Key    string `json:"key"`
		UUID   string `json:"uuid"` // as the Go tests' imports
		Body   string `json:"body"`
		Group  int    `json:"group"`
		Tokens int    `json:"tokens"`
	}
	docs := make([]doc, len(healthDocs))
	for i, d := range healthDocs {
		docs[i] = doc{d.Key, uuidOf("Article", d.Key), d.Body, d.Group, cl100k(t, d.Body)}
	}
	settings := map[string]json.RawMessage{}
	for _, c := range perQueryCases {
		settings[c.settings] = json.RawMessage(c.options)
	}
	var bads []map[string]string
	for _, b := range badSettings {
		bads = append(bads, map[string]string{"GQL": b.gql, "JSON": b.json, "Key": b.key})
	}
	input := writeJSON(t, filepath.Join(dir, "input.json"), map[string]any{
		"docs": docs, "settings": settings, "badSettings": bads, "injectionFile": injectionFile, "policy": policyRerankCases,
		"collections": map[string]string{"inText": inText, "reranked": reranked},
		"rag":         map[string]any{"collections": ragClasses, "dummy": "RagDummy", "runs": pythonRAGRuns, "pool": ragPool},
		"demoPages":   demoPagesInput(),
	})

	runPytest(t, "py", pythonTests, fmt.Sprintf("WEAVIATE_HTTP_PORT=%d", srv.HTTPPort),
		fmt.Sprintf("WEAVIATE_GRPC_PORT=%d", srv.GRPCPort), "DIVERSE_SELECT_PY_INPUT="+input, "DIVERSE_SELECT_PY_OUT="+dir)

	// The demo corpus's pages at a small budget (issue 42), against the corpus.
	checkHelperDemoPages(t, "Python", filepath.Join(dir, "demo-pages.json"))

	// The per-query selections the Python client got, against the library.
	got := map[string][]string{}
	readJSON(t, filepath.Join(dir, "selections.json"), "the Python test", &got)
	checkPerQuery(t, got, "default")

	// Each generative reply: the LLM got exactly the selection, in order.
	b, err := os.ReadFile(filepath.Join(dir, "rag.jsonl"))
	if err != nil {
		t.Fatalf("the Python test wrote no generative replies: %v", err)
	}
	tallies := map[string]*ragTally{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var line struct {
			ragReply
			Collection, Tag string
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatalf("undecodable line %q: %v", sc.Text(), err)
		}
		i := slices.Index(ragClasses, line.Collection)
		if i < 0 {
			t.Fatalf("reply for unknown collection %q", line.Collection)
		}
		tl := tallies[line.Collection]
		if tl == nil {
			tl = &ragTally{name: checks[i].backend + ", gRPC generate.near_text + rerank (Python)"}
			tallies[line.Collection] = tl
		}
		sel, err := grpcRAG(t, ragGRPCRequest(line.Collection, ""))
		if err != nil {
			t.Fatalf("gRPC rerank without generate on %s: %v", line.Collection, err)
		}
		groupedWhy, singleWhy := checks[i].check(line.Tag, line.ragReply, sel.Bodies)
		tl.add(t, tl.runs, groupedWhy, singleWhy)
	}
	for _, class := range ragClasses {
		tl := tallies[class]
		if tl == nil || tl.runs != pythonRAGRuns {
			t.Fatalf("%s: %v replies from the Python test, want %d", class, tl, pythonRAGRuns)
		}
		tl.report(t)
	}

	// generate.near_text on Article with its own settings: the LLM got the selection.
	var readme ragReply
	if b, err = os.ReadFile(filepath.Join(dir, "rag-readme.json")); err != nil || json.Unmarshal(b, &readme) != nil {
		t.Fatalf("the Python RAG query on Article wrote no reply: %v", err)
	}
	checkReadmeAnswer(t, "Python", readme, ragArticleSelection(t))
}

// venvPython is the Python of the venv under the clone (`make venv`, which
// make test runs first): without it the calling test fails.
func venvPython(t testing.TB) string {
	t.Helper()
	root, err := stack.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	python := filepath.Join(root, ".venv", "bin", "python")
	if _, err := os.Stat(python); err != nil {
		t.Fatalf("%s is missing: run `make venv` (make test does) for the Python tests", python)
	}
	return python
}

// runPytest runs pytest from the venv in integration/folder with env added,
// and checks its report: every test of want ran and passed.
func runPytest(t testing.TB, folder string, want []string, env ...string) {
	t.Helper()
	python := venvPython(t)
	root, err := stack.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	junit := filepath.Join(t.TempDir(), "junit.xml")
	c, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(c, python, "-m", "pytest", "-p", "no:cacheprovider", "-v", "-rA", "--junitxml", junit, ".")
	cmd.Dir = filepath.Join(root, "integration", folder)
	cmd.Env = append(os.Environ(), env...)
	start := time.Now()
	out, err := cmd.CombinedOutput()
	t.Logf("pytest integration/%s (%s):\n%s", folder, time.Since(start).Round(time.Millisecond), out)
	if err != nil {
		t.Fatalf("pytest integration/%s failed: %v", folder, err)
	}
	checkPytestReport(t, junit, want)
}

// writeJSON writes v as JSON to path and returns path.
func writeJSON(t testing.TB, path string, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// checkPytestReport reads pytest's JUnit XML report: every test of want ran
// and passed, and none was skipped.
func checkPytestReport(t testing.TB, path string, want []string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("pytest wrote no report: %v", err)
	}
	var report struct {
		Suites []struct {
			Cases []struct {
				Name    string    `xml:"name,attr"`
				Failure *struct{} `xml:"failure"`
				Error   *struct{} `xml:"error"`
				Skipped *struct{} `xml:"skipped"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(b, &report); err != nil {
		t.Fatalf("pytest report %s: %v", path, err)
	}
	passed := map[string]bool{}
	for _, s := range report.Suites {
		for _, c := range s.Cases {
			ok := c.Failure == nil && c.Error == nil && c.Skipped == nil
			if !ok {
				t.Errorf("pytest %s did not pass (failure, error or skip)", c.Name)
			}
			passed[c.Name] = ok
		}
	}
	var missing []string
	for _, name := range want {
		if !passed[name] {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		t.Errorf("pytest did not pass %s (ran %d tests)", strings.Join(missing, ", "), len(passed))
	}
}
