package integration

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"go/format"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/diverse-select/diverse-select/integration/stack"
)

// SnippetDocs are the documents whose code blocks TestDocSnippets runs as
// written: the one list, so a new document is one line here.
var SnippetDocs = []string{"README.md", "docs/clients.md", "docs/rag.md", "docs/gateway.md"}

// fragmentMarker, on the line before a fenced block, marks a block that is
// not a program (a shell command that starts servers, a piece of a larger
// program): TestDocSnippets counts these and runs the others.
const fragmentMarker = "<!-- fragment:"

// Snippet is one fenced code block of a document.
type Snippet struct {
	Doc, Lang, Code string
	Line            int    // the fence's line, 1-based
	Fragment        string // the marker's reason; "" for a block that runs
}

func (s Snippet) String() string { return fmt.Sprintf("%s:%d (%s)", s.Doc, s.Line, s.Lang) }

// ParseSnippets returns the fenced blocks of a markdown document. A block
// with no language is output or a wire form, not code: it is left out.
func ParseSnippets(doc, text string) []Snippet {
	var out []Snippet
	lines := strings.Split(text, "\n")
	for i := 0; i < len(lines); i++ {
		lang, ok := strings.CutPrefix(lines[i], "```")
		if !ok {
			continue
		}
		start := i
		var code []string
		for i++; i < len(lines) && !strings.HasPrefix(lines[i], "```"); i++ {
			code = append(code, lines[i])
		}
		if lang = strings.TrimSpace(lang); lang == "" {
			continue
		}
		s := Snippet{Doc: doc, Lang: lang, Code: strings.Join(code, "\n") + "\n", Line: start + 1}
		if start > 0 {
			if reason, ok := strings.CutPrefix(strings.TrimSpace(lines[start-1]), fragmentMarker); ok {
				s.Fragment = strings.TrimSpace(strings.TrimSuffix(reason, "-->"))
			}
		}
		out = append(out, s)
	}
	return out
}

func TestParseSnippets(t *testing.T) {
	doc := "text\n```\noutput\n```\n<!-- fragment: starts servers -->\n```sh\nmake run\n```\n```python\nprint(1)\n```\n"
	got := ParseSnippets("d.md", doc)
	want := []Snippet{
		{Doc: "d.md", Lang: "sh", Code: "make run\n", Line: 6, Fragment: "starts servers"},
		{Doc: "d.md", Lang: "python", Code: "print(1)\n", Line: 9},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) || len(got) != 2 || got[0].Fragment != want[0].Fragment || got[1].Code != want[1].Code {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
}

// maxFragments bounds the blocks marked as fragments: they stay few.
const maxFragments = 6

// snippetCollections are the collections the documents' programs create:
// the README's and docs/rag.md's, which has a generative module.
var snippetCollections = []string{"Article", "RagArticle"}

// TestDocSnippets runs every code block of SnippetDocs as written against
// the shared server: Python through the venv, JavaScript through node
// beside the official client of integration/ts, Go built in a temporary
// package of the integration module, GraphQL over HTTP, shell blocks with
// curl through bash. Programs learn the server's ports from HTTP_PORT and
// GRPC_PORT, as after `make run HTTP_PORT=... GRPC_PORT=...`, and run from
// the clone's root. Each client program runs twice on a fresh collection
// (the second run reuses it) and must print a selection; a block that asks
// for generate must also print the LLM's answer, generative-dummy's echo of
// the prompt, which must hold exactly the printed picks in order. Then all
// of a document's programs and GraphQL blocks that print picks run on one
// collection, and print the same lines.
func TestDocSnippets(t *testing.T) {
	root, err := stack.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	fragments := 0
	t.Cleanup(func() { // the other tests create them their way
		for _, c := range snippetCollections {
			deleteClass(t, c)
		}
	})
	for _, doc := range SnippetDocs {
		text, err := os.ReadFile(filepath.Join(root, doc))
		if err != nil {
			t.Fatal(err)
		}
		var pickers []Snippet // the blocks that print picks
		for _, s := range ParseSnippets(doc, string(text)) {
			if s.Fragment != "" {
				fragments++
				t.Logf("%s: fragment (%s)", s, s.Fragment)
				continue
			}
			t.Run(fmt.Sprintf("%s:%d", doc, s.Line), func(t *testing.T) {
				out := runSnippet(t, root, s, true)
				t.Logf("%s printed:\n%s", s, out)
				if checkPicks(t, s, out) {
					pickers = append(pickers, s)
				}
			})
		}
		// Each program again, now on the collection the last one made
		// (the same pool for all): every client prints the same picks.
		if len(pickers) < 2 {
			continue
		}
		t.Run(doc+": the same picks from every client", func(t *testing.T) {
			var first string
			for _, s := range pickers {
				out := runSnippet(t, root, s, false)
				if first == "" {
					first = out
				} else if out != first {
					t.Errorf("%s printed other picks than %s:\n%s\nwant\n%s", s, pickers[0], out, first)
				}
			}
		})
	}
	t.Logf("%d blocks marked as fragments", fragments)
	if fragments > maxFragments {
		t.Errorf("%d blocks are marked as fragments, at most %d: make them programs that run", fragments, maxFragments)
	}
}

// programLangs are the languages of whole programs; each prints one line
// per pick: rank, tokens and title.
var programLangs = map[string]bool{"python": true, "js": true, "go": true}

// rePick is a printed pick: rank, tokens, title.
var rePick = regexp.MustCompile(`^(\d+) (\d+) (.+)$`)

// reBudget reads a program's token budget in each language's spelling: per
// query, or the collection's (JSON, Python and Go maps).
var reBudget = regexp.MustCompile(`(?:tokenBudget"?: |token_budget=|TokenBudget: dsclient\.Int\()(\d+)`)

// answerPrefix starts the line a block that asks for generate prints the
// LLM's answer on, after its picks.
const answerPrefix = "answer: "

// reGenerate tells a block that asks for generate, in each client's spelling.
var reGenerate = regexp.MustCompile(`\.generate\.|generate\(|GenerativeSearch`)

// checkPicks checks the picks a program (or a GraphQL block that asks for
// them) printed: ranks in order, within the budget, and for a block that
// asks for generate the answer after them; it reports whether the block
// printed picks.
func checkPicks(t *testing.T, s Snippet, out string) bool {
	if !programLangs[s.Lang] && !(s.Lang == "graphql" && rePick.MatchString(strings.SplitN(out, "\n", 2)[0])) {
		return false
	}
	m := reBudget.FindStringSubmatch(s.Code)
	if m == nil {
		t.Fatalf("%s names no token budget", s)
	}
	budget, _ := strconv.Atoi(m[1])
	lines := strings.Split(strings.TrimSpace(out), "\n")
	answer, generates := "", reGenerate.MatchString(s.Code)
	if generates {
		last := len(lines) - 1
		var ok bool
		if answer, ok = strings.CutPrefix(lines[last], answerPrefix); !ok {
			t.Fatalf("%s asks for generate and printed no %q line last:\n%s", s, answerPrefix, out)
		}
		lines = lines[:last]
	}
	if len(lines) < 2 {
		t.Fatalf("%s printed %d picks, want a selection of several:\n%s", s, len(lines), out)
	}
	sum := 0
	titles := make([]string, len(lines))
	for i, l := range lines {
		p := rePick.FindStringSubmatch(l)
		if p == nil {
			t.Fatalf("%s printed %q, want rank, tokens and title", s, l)
		}
		if rank, _ := strconv.Atoi(p[1]); rank != i+1 {
			t.Errorf("%s: pick %d has rank %d", s, i+1, rank)
		}
		n, _ := strconv.Atoi(p[2])
		sum += n
		titles[i] = p[3]
	}
	if sum > budget {
		t.Errorf("%s: the picks hold %d tokens, over the budget of %d", s, sum, budget)
	}
	if generates {
		checkAnswer(t, s, answer, titles)
	}
	return true
}

// checkAnswer checks a generate block's answer: generative-dummy's echo of
// the prompt, whose context (the task, then the objects' properties as
// JSON) holds exactly the printed picks, in order - the LLM got the
// selection and nothing else.
func checkAnswer(t *testing.T, s Snippet, answer string, titles []string) {
	t.Helper()
	prompt, ok := stack.DummyPrompt(answer)
	if !ok {
		t.Fatalf("%s: the answer is not generative-dummy's echo of a prompt: %.200q", s, answer)
	}
	_, context, ok := strings.Cut(prompt, ": [{")
	var objects []map[string]string
	if !ok || json.Unmarshal([]byte("[{"+context), &objects) != nil {
		t.Fatalf("%s: the prompt holds no context of objects: %.300q", s, prompt)
	}
	got := make([]string, len(objects))
	for i, o := range objects {
		got[i] = o["title"]
	}
	if !slices.Equal(got, titles) {
		t.Errorf("%s: the LLM got the titles %q, the selection printed is %q", s, got, titles)
	}
}

// runSnippet runs one block and returns what it printed; a program runs
// twice, on a fresh collection (fresh: the first run creates and imports)
// and again (the second run reuses it, and prints the same).
func runSnippet(t *testing.T, root string, s Snippet, fresh bool) string {
	t.Helper()
	c, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	env := append(os.Environ(), fmt.Sprintf("HTTP_PORT=%d", srv.HTTPPort), fmt.Sprintf("GRPC_PORT=%d", srv.GRPCPort))
	switch s.Lang {
	case "graphql":
		return graphqlPicks(t, postGraphQL(t, s.Code))
	case "python", "js", "go":
		runs := 1
		if fresh {
			for _, c := range snippetCollections {
				deleteClass(t, c)
			}
			runs = 2
		}
		var first string
		for run := 1; run <= runs; run++ {
			cmd := programCommand(t, c, root, s)
			cmd.Env = env
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("%s, run %d: %v\n%s%s", s, run, err, stdout.String(), stderr.String())
			}
			if stderr.Len() > 0 {
				t.Logf("%s, run %d, standard error:\n%s", s, run, stderr.String())
			}
			if run == 1 {
				first = stdout.String()
			} else if stdout.String() != first {
				t.Errorf("%s prints other picks on its second run:\n%s\nfirst:\n%s", s, stdout.String(), first)
			}
		}
		return first
	case "sh", "bash":
		if !strings.Contains(s.Code, "curl ") {
			t.Fatalf("%s is a shell block without curl: mark it %s reason -->, or make it a request", s, fragmentMarker)
		}
		cmd := exec.CommandContext(c, "bash", "-euo", "pipefail", "-c", s.Code)
		cmd.Dir, cmd.Env = root, env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", s, err, out)
		}
		return string(out)
	}
	t.Fatalf("%s: no runner for %q blocks; mark it %s reason --> if it is not a program", s, s.Lang, fragmentMarker)
	return ""
}

// programCommand writes a program block where its imports resolve and
// returns the command that runs it from the clone's root.
func programCommand(t *testing.T, c context.Context, root string, s Snippet) *exec.Cmd {
	switch s.Lang {
	case "python":
		file := filepath.Join(t.TempDir(), "snippet.py")
		writeFile(t, file, s.Code)
		cmd := exec.CommandContext(c, filepath.Join(root, ".venv", "bin", "python"), file)
		cmd.Dir = root
		return cmd
	case "js":
		// Beside integration/ts/node_modules: weaviate-client and the helper
		// as docs/clients.md installs it.
		dir, err := os.MkdirTemp(filepath.Join(root, "integration", "ts"), "snippet-")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(dir) })
		file := filepath.Join(dir, "snippet.mjs")
		writeFile(t, file, s.Code)
		cmd := exec.CommandContext(c, "node", file)
		cmd.Dir = root
		return cmd
	case "go":
		// A package of the integration module, which requires the Go client
		// and clients/go as a user's module would.
		dir, err := os.MkdirTemp(filepath.Join(root, "integration"), "snippet-")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(dir) })
		if formatted, err := format.Source([]byte(s.Code)); err != nil || string(formatted) != s.Code {
			t.Errorf("%s is not gofmt-formatted (%v)", s, err)
		}
		writeFile(t, filepath.Join(dir, "main.go"), s.Code)
		bin := filepath.Join(t.TempDir(), "snippet")
		build := exec.CommandContext(c, "go", "build", "-o", bin, ".")
		build.Dir = dir
		if out, err := build.CombinedOutput(); err != nil {
			t.Fatalf("%s does not build: %v\n%s", s, err, out)
		}
		cmd := exec.CommandContext(c, bin)
		cmd.Dir = root
		return cmd
	}
	t.Fatalf("%s: not a program", s)
	return nil
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// postGraphQL sends a GraphQL block as written and returns the answer's
// data; an error in the answer fails the test.
func postGraphQL(t *testing.T, query string) string {
	t.Helper()
	body, _ := json.Marshal(map[string]string{"query": query})
	resp, err := http.Post(srv.HTTPURL+"/v1/graphql", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		Data   json.RawMessage `json:"data"`
		Errors []struct {
			Message string `json:"message"`
		} `json:"errors"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatal(err)
	}
	if len(out.Errors) > 0 || resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d, errors %v", resp.StatusCode, out.Errors)
	}
	return string(out.Data)
}

// graphqlPicks prints a Get answer's hits as the programs print their picks
// (rank, tokens, title) when they carry diverseSelect's rank and tokens,
// then the grouped answer of generate when the first hit carries one, and
// returns the data as it came otherwise.
func graphqlPicks(t *testing.T, data string) string {
	var answer struct {
		Get map[string][]struct {
			Title string `json:"title"`
			Add   struct {
				DS       *struct{ Rank, Tokens int } `json:"diverseSelect"`
				Generate *struct {
					GroupedResult *string `json:"groupedResult"`
				} `json:"generate"`
			} `json:"_additional"`
		}
	}
	if err := json.Unmarshal([]byte(data), &answer); err != nil {
		return data
	}
	var b strings.Builder
	for _, hits := range answer.Get {
		for _, h := range hits {
			if h.Add.DS == nil || h.Title == "" {
				return data
			}
			fmt.Fprintf(&b, "%d %d %s\n", h.Add.DS.Rank, h.Add.DS.Tokens, h.Title)
		}
		if len(hits) > 0 && hits[0].Add.Generate != nil && hits[0].Add.Generate.GroupedResult != nil {
			fmt.Fprintf(&b, "%s%s\n", answerPrefix, *hits[0].Add.Generate.GroupedResult)
		}
	}
	if b.Len() == 0 {
		return data
	}
	return b.String()
}

func deleteClass(t *testing.T, class string) {
	t.Helper()
	_ = client.Schema().ClassDeleter().WithClassName(class).Do(context.Background())
}
