package integration

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/weaviate/weaviate-go-client/v5/weaviate"
	"github.com/weaviate/weaviate-go-client/v5/weaviate/connection"
	"github.com/weaviate/weaviate/entities/models"

	dsclient "github.com/diverse-select/diverse-select/clients/go"

	"github.com/diverse-select/diverse-select/integration/stack"
)

// TestImportDocuments runs the Python helper's import_documents (issue 46,
// point 4), and the Go and TypeScript helpers' equivalents, with the
// official clients against the module's server and through the gateway in
// front of a stock Weaviate: the helper cuts each
// document on the segment endpoint (the module's, or the gateway's own)
// and writes the chunks with the client. It checks the stored objects
// themselves: their ids (uuid5 of the collection, the source id and the
// byte range), their offsets (the document's bytes [start, end) are the
// chunk), that a second import leaves the same objects, that a re-import
// of a changed text keeps only its new chunks, and that a document with a
// chunk the server refuses has no chunk left while the other documents
// stay.
func TestImportDocuments(t *testing.T) {
	t.Run("module", func(t *testing.T) { checkImportDocuments(t, importTarget{http: srv.HTTPURL, grpc: srv.GRPCAddr}) })
	t.Run("gateway", func(t *testing.T) {
		gs := startGatewayStack(t, "import", gatewayOptions{})
		checkImportDocuments(t, importTarget{http: gs.HTTPURL, grpc: gs.GRPCAddr})
		checkImportDocumentsGo(t, importTarget{http: gs.HTTPURL, grpc: gs.GRPCAddr})
		checkImportDocumentsTS(t, importTarget{http: gs.HTTPURL, grpc: gs.GRPCAddr})
	})
	t.Run("module, Go", func(t *testing.T) { checkImportDocumentsGo(t, importTarget{http: srv.HTTPURL, grpc: srv.GRPCAddr}) })
	t.Run("module, TypeScript", func(t *testing.T) { checkImportDocumentsTS(t, importTarget{http: srv.HTTPURL, grpc: srv.GRPCAddr}) })
}

// checkImportDocumentsTS runs the TypeScript helper's importDocuments with
// the official TypeScript client (ts/import.test.mjs): the same ids as the
// other helpers' for the same chunks, a second import leaving the same
// objects, a source property of word tokenization refused by name, and a
// document whose every chunk the server refuses left with no chunk - its
// previous import's included - while the others stay.
func checkImportDocumentsTS(t *testing.T, to importTarget) {
	const class = "ImportedChunksTs"
	docs := []importDoc{
		{ID: "a", Text: "First sentence of a. Second sentence of a, a bit longer than the first. Third one — with a dash, café ☕.", Properties: map[string]string{"title": "A"}},
		{ID: "broken", Text: "Broken starts well. It is imported once. Then its title is a number.", Properties: map[string]string{"title": "B"}},
	}
	raw, _ := json.Marshal(docs)
	type result struct {
		IDs      map[string][]string
		Error    string
		Failures map[string]struct{ Start, End int }
		Imported map[string][]string
	}
	run := func(phase string) result {
		t.Helper()
		outFile := filepath.Join(t.TempDir(), "import.json")
		c, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		cmd := nodeCommand(t, c, []string{"DIVERSE_SELECT_HTTP=" + to.http, "DIVERSE_SELECT_GRPC=" + to.grpc, "DIVERSE_SELECT_PHASE=" + phase,
			"DIVERSE_SELECT_DOCS=" + string(raw), "DIVERSE_SELECT_OUT=" + outFile}, "--test", "--test-reporter=spec", "import.test.mjs")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("node --test import.test.mjs, %s: %v\n%s", phase, err, out)
		}
		var r result
		readJSON(t, outFile, "the TypeScript import", &r)
		return r
	}
	first := run("import")
	if first.Error != "" {
		t.Fatalf("import: %s", first.Error)
	}
	stored := checkStored(t, to, class, docs, first.IDs)
	second := run("import")
	if !reflect.DeepEqual(first.IDs, second.IDs) {
		t.Errorf("a second import returned other ids:\n%v\n%v", first.IDs, second.IDs)
	}
	if again := checkStored(t, to, class, docs, second.IDs); !reflect.DeepEqual(stored, again) {
		t.Errorf("a second import changed the stored objects:\n%v\n%v", stored, again)
	}
	if word := run("word"); !strings.Contains(word.Error, `the property "source_id" of collection "ImportedChunksTsWord" must be text with tokenization field (it is text with tokenization word)`) {
		t.Errorf("word tokenization: %+v", word)
	}
	broken := run("broken")
	if !strings.Contains(broken.Error, `document "broken": chunk [0, `) || len(broken.Failures) != 1 {
		t.Fatalf("a title of the wrong type: %+v", broken)
	}
	checkStored(t, to, class, docs[:1], map[string][]string{"a": broken.Imported["a"]})
}

// checkImportDocumentsGo runs the Go helper's ImportDocuments with the
// official Go client: the same ids as the Python helper's for the same
// chunks, a second import leaving the same objects, and a document whose
// every chunk the server refuses (a title of the wrong type) left with no
// chunk - its previous import's included - while the others stay.
func checkImportDocumentsGo(t *testing.T, to importTarget) {
	const class = "ImportedChunksGo"
	host := strings.TrimPrefix(to.http, "http://")
	wc, err := weaviate.NewClient(weaviate.Config{Host: host, Scheme: "http"})
	if err != nil {
		t.Fatal(err)
	}
	conn := connection.NewConnection("http", host, nil, time.Minute, nil)
	props := []*models.Property{{Name: "text", DataType: []string{"text"}}, {Name: "source_id", DataType: []string{"text"}, Tokenization: "field"},
		{Name: "start", DataType: []string{"int"}}, {Name: "end", DataType: []string{"int"}}, {Name: "title", DataType: []string{"text"}}}
	if err := wc.Schema().ClassCreator().WithClass(&models.Class{Class: class, Vectorizer: "none", Properties: props}).Do(ctx(t)); err != nil {
		t.Fatal(err)
	}
	// A source property of word tokenization is refused by name: "doc 1" would equal "doc 1 2".
	word := &models.Class{Class: class + "Word", Vectorizer: "none", Properties: []*models.Property{{Name: "source_id", DataType: []string{"text"}}}}
	if err := wc.Schema().ClassCreator().WithClass(word).Do(ctx(t)); err != nil {
		t.Fatal(err)
	}
	_, err = dsclient.ImportDocuments(ctx(t), wc, conn, dsclient.ImportRequest{Collection: word.Class, Documents: []dsclient.Document{{ID: "doc 1", Text: "One."}}})
	if err == nil || !strings.Contains(err.Error(), `the property "source_id" of collection "ImportedChunksGoWord" must be text with tokenization field (it is text with tokenization word)`) {
		t.Errorf("word tokenization: %v", err)
	}

	docs := []importDoc{
		{ID: "a", Text: "First sentence of a. Second sentence of a, a bit longer than the first. Third one — with a dash.", Properties: map[string]string{"title": "A"}},
		{ID: "broken", Text: "Broken starts well. It is imported once. Then its title is a number.", Properties: map[string]string{"title": "B"}},
	}
	run := func(docs []importDoc, title map[string]any) (map[string][]string, error) {
		req := dsclient.ImportRequest{Collection: class, Segment: dsclient.SegmentRequest{Method: "packed", MaxTokens: 16}, BatchSize: 2}
		for _, d := range docs {
			p := map[string]any{"title": d.Properties["title"]}
			if v, ok := title[d.ID]; ok {
				p["title"] = v
			}
			req.Documents = append(req.Documents, dsclient.Document{ID: d.ID, Text: d.Text, Properties: p})
		}
		return dsclient.ImportDocuments(ctx(t), wc, conn, req)
	}
	first, err := run(docs, nil)
	if err != nil {
		t.Fatal(err)
	}
	stored := checkStored(t, to, class, docs, first)
	second, err := run(docs, nil)
	if err != nil || !reflect.DeepEqual(first, second) {
		t.Fatalf("a second import: %v, ids %v, the first's %v", err, second, first)
	}
	if again := checkStored(t, to, class, docs, second); !reflect.DeepEqual(stored, again) {
		t.Errorf("a second import changed the stored objects:\n%v\n%v", stored, again)
	}
	_, err = run(docs, map[string]any{"broken": 42})
	var ie *dsclient.ImportError
	if !errors.As(err, &ie) || len(ie.Failures) != 1 || !strings.Contains(err.Error(), `document "broken": chunk [0, `) {
		t.Fatalf("a title of the wrong type: %v", err)
	}
	checkStored(t, to, class, docs[:1], map[string][]string{"a": ie.Imported["a"]})
}

// TestGatewaySegmentAuth: the gateway's segment endpoint in front of a
// stock Weaviate with API keys: the upstream authenticates each caller with
// the caller's own key (the gateway holds none), a collection the upstream
// does not have is refused by name, and import_documents through the
// gateway sends the client's own key to it.
func TestGatewaySegmentAuth(t *testing.T) {
	gs := startGatewayStack(t, "segment-auth", gatewayOptions{env: map[string]string{
		"AUTHENTICATION_ANONYMOUS_ACCESS_ENABLED": "false",
		"AUTHENTICATION_APIKEY_ENABLED":           "true",
		"AUTHENTICATION_APIKEY_ALLOWED_KEYS":      authAdmin.key,
		"AUTHENTICATION_APIKEY_USERS":             authAdmin.name,
	}})
	body := map[string]any{"text": "One sentence. Two sentences.", "method": "packed"}
	for _, tc := range []struct {
		name, key string
		body      any
		status    int
		want      string
	}{
		{"anonymous", "", body, 401, "anonymous access not enabled"},
		{"wrong key", "nope", body, 401, "invalid api key"},
		{"unknown collection", authAdmin.key, map[string]any{"text": "One.", "method": "packed", "collection": "Nope"}, 403, `collection \"Nope\": the upstream has no such collection`},
		{"the module's limits", authAdmin.key, map[string]any{"text": "One.", "method": "packed", "maxTokens": 9}, 400, "maxTokens 9 is outside [16, 8192]"},
		{"served", authAdmin.key, body, 200, `"text":"One sentence. Two sentences."`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, got := segmentPost(t, gs.HTTPURL, tc.key, tc.body)
			if status != tc.status || !strings.Contains(got, tc.want) {
				t.Errorf("status %d, body %s; want %d with %q", status, got, tc.status, tc.want)
			}
		})
	}
	checkImportDocuments(t, importTarget{http: gs.HTTPURL, grpc: gs.GRPCAddr, key: authAdmin.key})
}

// importTarget is where the import runs: a server or the gateway, and the
// API key of the caller ("": anonymous).
type importTarget struct{ http, grpc, key string }

// importNamespace is the helper's uuid5 namespace (clients/python/diverse_select/_import.py).
var importNamespace = uuid.MustParse("6f1d0c9e-4b7a-5e3f-9a51-2d8c7e0b4f16")

type importDoc struct {
	ID         string            `json:"id"`
	Text       string            `json:"text"`
	Properties map[string]string `json:"properties,omitempty"`
}

type storedChunk struct {
	ID         string `json:"id"`
	Properties struct {
		Text     string `json:"text"`
		SourceID string `json:"source_id"`
		Start    int    `json:"start"`
		End      int    `json:"end"`
		Title    string `json:"title"`
	} `json:"properties"`
}

func checkImportDocuments(t *testing.T, to importTarget) {
	const class, maxTokens = "ImportedChunks", 16
	docs := []importDoc{
		{ID: "cats/whiskers", Text: "Whiskers is a domestic cat from Bristol. He has bright green eyes and a white patch on his chest. " +
			"He was adopted from a shelter in 2019. The vet saw him on Monday and found him healthy.", Properties: map[string]string{"title": "Whiskers"}},
		{ID: "bridges/clifton", Text: "The Clifton Suspension Bridge spans the Avon Gorge. It was designed by Isambard Kingdom Brunel — " +
			"the engineer of the Great Western Railway. Construction began in 1831 and ended in 1864. Über 200 Meter lang, café ☕ nearby.", Properties: map[string]string{"title": "Clifton"}},
	}

	first := runImport(t, "import", to, class, maxTokens, docs)
	stored := checkStored(t, to, class, docs, first)
	if len(first["cats/whiskers"]) < 2 || len(first["bridges/clifton"]) < 2 {
		t.Fatalf("each document should be cut into several chunks at %d tokens: %v", maxTokens, first)
	}

	// Idempotent: the same import again leaves the same objects.
	second := runImport(t, "import", to, class, maxTokens, docs)
	if !reflect.DeepEqual(first, second) {
		t.Errorf("a second import returned other ids:\n%v\n%v", first, second)
	}
	if again := checkStored(t, to, class, docs, second); !reflect.DeepEqual(stored, again) {
		t.Errorf("a second import changed the stored objects:\n%v\n%v", stored, again)
	}

	// A re-import of a changed text converges to its new chunks.
	changed := []importDoc{{ID: "cats/whiskers", Text: "Whiskers is a cat. He sleeps all day.", Properties: map[string]string{"title": "Whiskers"}}, docs[1]}
	third := runImport(t, "import", to, class, maxTokens, changed)
	checkStored(t, to, class, changed, third)

	// A source property of word tokenization is refused by name.
	var word struct{ Error string }
	if err := json.Unmarshal(runImportRaw(t, "word", to, class, maxTokens, docs), &word); err != nil ||
		!strings.Contains(word.Error, `the property "source_id" of collection "ImportedChunksWord" must be text with tokenization field (it is text with tokenization word)`) {
		t.Errorf("word tokenization: %v %q", err, word.Error)
	}

	// A refused chunk leaves no partial document; the others are written.
	broken := importDoc{ID: "broken", Text: strings.Repeat("This sentence is here to make chunks. ", 8)}
	fresh := importDoc{ID: "fresh", Text: "A fresh document. It has two sentences."}
	out := runImportRaw(t, "fail", to, class, maxTokens, []importDoc{fresh, broken})
	var res struct {
		Error    string
		Failures map[string][]any
		Imported map[string][]string
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if !strings.Contains(res.Error, `document "broken": chunk [`) || !strings.Contains(res.Error, "was refused") || len(res.Failures) != 1 || res.Failures["broken"] == nil {
		t.Fatalf("the forced failure: %+v", res)
	}
	// The refused chunk is broken's second: [start, end) of its cut.
	if f := res.Failures["broken"]; len(f) != 3 || int(f[0].(float64)) == 0 {
		t.Errorf("failure %v: want the second chunk's range and the server's message", f)
	}
	checkStored(t, to, class, append(changed, fresh), map[string][]string{"cats/whiskers": third["cats/whiskers"],
		"bridges/clifton": third["bridges/clifton"], "fresh": res.Imported["fresh"]})
}

// runImport runs the import phase and returns each document's chunk ids.
func runImport(t *testing.T, phase string, to importTarget, class string, maxTokens int, docs []importDoc) map[string][]string {
	t.Helper()
	out := runImportRaw(t, phase, to, class, maxTokens, docs)
	var res struct{ IDs map[string][]string }
	if err := json.Unmarshal(out, &res); err != nil || res.IDs == nil {
		t.Fatalf("import: %v: %s", err, out)
	}
	return res.IDs
}

func runImportRaw(t *testing.T, phase string, to importTarget, class string, maxTokens int, docs []importDoc) []byte {
	t.Helper()
	python := venvPython(t)
	root, err := stack.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	input := writeJSON(t, filepath.Join(t.TempDir(), "import.json"), map[string]any{
		"http": to.http, "grpc": to.grpc, "apiKey": to.key, "collection": class, "documents": docs, "maxTokens": maxTokens})
	cmd := exec.CommandContext(ctx(t), python, filepath.Join(root, "integration", "py", "import_documents.py"), phase, input)
	out, err := cmd.Output()
	if err != nil {
		stderr := ""
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("import_documents.py %s: %v\n%s%s", phase, err, out, stderr)
	}
	return out
}

// checkStored reads every object of class and checks that they are exactly
// the chunks of docs the helper returned (ids), each with its id, source,
// offsets, text and the document's title; it returns them by id.
func checkStored(t *testing.T, to importTarget, class string, docs []importDoc, ids map[string][]string) map[string]storedChunk {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx(t), http.MethodGet, fmt.Sprintf("%s/v1/objects?class=%s&limit=1000", to.http, class), nil)
	if err != nil {
		t.Fatal(err)
	}
	if to.key != "" {
		req.Header.Set("Authorization", "Bearer "+to.key)
	}
	res, err := httpc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	var list struct{ Objects []storedChunk }
	if res.StatusCode != 200 || json.Unmarshal(raw, &list) != nil {
		t.Fatalf("list %s: %d %s", class, res.StatusCode, raw)
	}
	byID := map[string]storedChunk{}
	for _, o := range list.Objects {
		byID[o.ID] = o
	}
	total := 0
	for _, d := range docs {
		var got []storedChunk
		for _, o := range list.Objects {
			if o.Properties.SourceID == d.ID {
				got = append(got, o)
			}
		}
		sort.Slice(got, func(i, j int) bool { return got[i].Properties.Start < got[j].Properties.Start })
		if len(got) != len(ids[d.ID]) || len(got) == 0 {
			t.Fatalf("document %q: %d stored chunks, the helper wrote %d", d.ID, len(got), len(ids[d.ID]))
		}
		end := 0
		for i, o := range got {
			p := o.Properties
			wantID := uuid.NewSHA1(importNamespace, []byte(fmt.Sprintf("%s\x00%s\x00%d\x00%d", class, d.ID, p.Start, p.End))).String()
			if o.ID != wantID || ids[d.ID][i] != wantID {
				t.Errorf("document %q chunk %d: id %s, the helper's %s, want uuid5 %s", d.ID, i, o.ID, ids[d.ID][i], wantID)
			}
			if p.Start < end || p.End <= p.Start || p.End > len(d.Text) || d.Text[p.Start:p.End] != p.Text {
				t.Errorf("document %q chunk %d: [%d, %d) %q is not the text's bytes there (previous end %d)", d.ID, i, p.Start, p.End, p.Text, end)
			}
			if p.Title != d.Properties["title"] {
				t.Errorf("document %q chunk %d: title %q, want %q", d.ID, i, p.Title, d.Properties["title"])
			}
			end = p.End
		}
		if strings.TrimSpace(d.Text[end:]) != "" {
			t.Errorf("document %q: the text after the last chunk (byte %d) is not stored: %q", d.ID, end, d.Text[end:])
		}
		total += len(got)
	}
	if len(list.Objects) != total {
		t.Errorf("%d objects stored, the documents' chunks are %d: %v", len(list.Objects), total, byID)
	}
	return byID
}
