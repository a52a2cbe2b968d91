package integration

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/weaviate/weaviate-go-client/v5/weaviate"
	"github.com/weaviate/weaviate-go-client/v5/weaviate/auth"
	"github.com/weaviate/weaviate-go-client/v5/weaviate/connection"
	"github.com/weaviate/weaviate/entities/models"

	dsclient "github.com/diverse-select/diverse-select/clients/go"
	"github.com/diverse-select/diverse-select/integration/stack"
	"github.com/diverse-select/diverse-select/segment"
	"github.com/diverse-select/diverse-select/selectors/tokens"
)

// TestSegmentEndpoint runs POST /v1/modules/diverse-select/segment on a
// server of its own with API keys and RBAC (anonymous access off) and the
// embedder in GloVe mode as the glove-sif encoder: the module's handler is
// mounted ahead of Weaviate's authentication, so every refusal below is the
// handler's own use of Weaviate's authenticator and authorizer. Users:
// admin (root), importer (create_data on SegDocs), reader (read_data on
// SegDocs only). The chunks are the library's on the same encoder, and the
// three client helpers return them too.
func TestSegmentEndpoint(t *testing.T) {
	root, err := stack.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	gloveDir := filepath.Join(root, "..", "shared", "data", "glove-6b-100d-top100k")
	if _, err := os.Stat(gloveDir); err != nil {
		t.Fatalf("the shared data folder must sit beside the repository: %v", err)
	}
	embPort, err := stack.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	embURL := fmt.Sprintf("http://127.0.0.1:%d", embPort)
	users := map[string]string{"admin": authAdmin.key, "importer": "seg-importer-key", "reader": "seg-reader-key"}
	s, _, _ := startOwnStack(t, "segment", stack.Options{
		EmbedderPort: embPort, EmbedderArgs: []string{"-mode", "glove", "-glove-dir", gloveDir},
		Env: map[string]string{
			"AUTHENTICATION_ANONYMOUS_ACCESS_ENABLED": "false",
			"AUTHENTICATION_APIKEY_ENABLED":           "true",
			"AUTHENTICATION_APIKEY_ALLOWED_KEYS":      users["admin"] + "," + users["importer"] + "," + users["reader"],
			"AUTHENTICATION_APIKEY_USERS":             "admin,importer,reader",
			"AUTHORIZATION_RBAC_ENABLED":              "true",
			"AUTHORIZATION_RBAC_ROOT_USERS":           "admin",
			"DIVERSE_SELECT_SEGMENT_ENCODERS":         "glove-sif=" + embURL,
			"DIVERSE_SELECT_SEGMENT_MAX_TEXTS":        "4",
			"DIVERSE_SELECT_SEGMENT_MAX_SENTENCES":    "60",
			"DIVERSE_SELECT_SEGMENT_MAX_BYTES":        "16384",
		}})
	defer s.Stop()

	admin, err := weaviate.NewClient(weaviate.Config{Host: strings.TrimPrefix(s.HTTPURL, "http://"), Scheme: "http", AuthConfig: auth.ApiKey{Value: users["admin"]}})
	if err != nil {
		t.Fatal(err)
	}
	if err := admin.Schema().ClassCreator().WithClass(&models.Class{Class: "SegDocs", Vectorizer: "none"}).Do(ctx(t)); err != nil {
		t.Fatal(err)
	}
	a := &authEnv{t: t, s: s}
	for role, action := range map[string]string{"seg-importer": "create_data", "seg-reader": "read_data"} {
		a.rest(http.MethodPost, "/v1/authz/roles", map[string]any{"name": role, "permissions": []any{
			map[string]any{"action": action, "data": map[string]any{"collection": "SegDocs", "tenant": "*", "object": "*"}}}})
	}
	a.rest(http.MethodPost, "/v1/authz/users/importer/assign", map[string]any{"roles": []string{"seg-importer"}, "userType": "db"})
	a.rest(http.MethodPost, "/v1/authz/users/reader/assign", map[string]any{"roles": []string{"seg-reader"}, "userType": "db"})

	text := "Whiskers is a domestic cat from Bristol. He has bright green eyes and a white patch on his chest. " +
		"He was adopted from a shelter in 2019. The Clifton Suspension Bridge spans the Avon Gorge. " +
		"It was designed by Isambard Kingdom Brunel. Construction began in 1831 and ended in 1864."
	ok := map[string]any{"text": text, "collection": "SegDocs", "maxTokens": 64}
	t.Run("refusals", func(t *testing.T) {
		for _, tc := range []struct {
			name, key string
			body      any
			status    int
			want      string
		}{
			{"anonymous", "", ok, 401, "anonymous access not enabled"},
			{"wrong key", "nope", ok, 401, "invalid api key"},
			{"reader may not create data", users["reader"], ok, 403, "insufficient permissions"},
			{"importer without a collection needs every collection", users["importer"], map[string]any{"text": text}, 403, "insufficient permissions"},
			{"importer, another collection", users["importer"], map[string]any{"text": text, "collection": "Other"}, 403, "insufficient permissions"},
			{"batch limit", users["admin"], map[string]any{"texts": []string{"a", "b", "c", "d", "e"}}, 400, "5 texts exceed DIVERSE_SELECT_SEGMENT_MAX_TEXTS=4"},
			{"sentence limit", users["admin"], map[string]any{"text": strings.Repeat("One more. ", 61)}, 400, "DIVERSE_SELECT_SEGMENT_MAX_SENTENCES=60"},
			{"byte limit", users["admin"], map[string]any{"text": strings.Repeat("x", 20000)}, 413, "DIVERSE_SELECT_SEGMENT_MAX_BYTES=16384"},
			{"unknown encoder", users["admin"], map[string]any{"text": text, "encoder": "minilm-l6"}, 400, "minilm-l6\\\"; configured (DIVERSE_SELECT_SEGMENT_ENCODERS): glove-sif"},
			{"bad method", users["admin"], map[string]any{"text": text, "method": "recursive"}, 400, "allowed: changepoint, sage, percentile, packed, fixed"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				status, body := segmentPost(t, s.HTTPURL, tc.key, tc.body)
				if status != tc.status || !strings.Contains(body, tc.want) {
					t.Errorf("status %d, body %s; want %d with %q", status, body, tc.status, tc.want)
				}
			})
		}
	})

	// The chunks are the library's, on the same encoder endpoint.
	counter, err := tokens.New(tokens.CL100K)
	if err != nil {
		t.Fatal(err)
	}
	scorer, err := segment.Weights("glove-sif")
	if err != nil {
		t.Fatal(err)
	}
	remote := segment.Remote{URL: embURL, Concurrency: 4}
	library := map[string]segment.Chunker{
		"changepoint": segment.ChangePoint{Encoder: remote, Scorer: scorer, MaxTokens: 64, Counter: counter},
		"sage":        segment.SAGE{Encoder: remote, Scorer: scorer, Threshold: scorer.Threshold, MaxTokens: 64, Counter: counter},
		"percentile":  segment.Percentile{Encoder: remote, Percentile: segment.DefaultPercentile, MaxTokens: 64, Counter: counter},
		"packed":      segment.Packed{Tokens: 64, Counter: counter},
		"fixed":       segment.Fixed{Tokens: 64, Counter: counter},
	}
	// byDefault is the chunks of the default method, changepoint: the
	// helpers name no method.
	var byDefault []dsclient.Chunk
	for method, c := range library {
		t.Run(method, func(t *testing.T) {
			want, err := c.Chunk(context.Background(), text)
			if err != nil {
				t.Fatal(err)
			}
			for _, key := range []string{users["importer"], users["admin"]} {
				status, raw := segmentPost(t, s.HTTPURL, key, map[string]any{"texts": []string{text, "Short one."}, "method": method, "maxTokens": 64, "collection": "SegDocs"})
				if status != 200 {
					t.Fatalf("status %d: %s", status, raw)
				}
				var res dsclient.SegmentResponse
				if err := json.Unmarshal([]byte(raw), &res); err != nil {
					t.Fatal(err)
				}
				if len(res.Results) != 2 || len(res.Results[1].Chunks) != 1 || res.Results[1].Chunks[0].Text != "Short one." {
					t.Fatalf("results %+v", res.Results)
				}
				got := res.Results[0].Chunks
				if len(got) != len(want) {
					t.Fatalf("%d chunks %+v, the library's %d %+v", len(got), got, len(want), want)
				}
				for i, w := range want {
					g := got[i]
					if g.Start != w.Start || g.End != w.End || g.Tokens != w.Tokens || g.Sentences != w.Sentences || g.Text != text[w.Start:w.End] {
						t.Errorf("chunk %d: %+v, the library's %+v", i, g, w)
					}
				}
				if method == "changepoint" {
					byDefault = got
				}
				if method == "sage" {
					if res.Encoder != "glove-sif" || res.Threshold == nil || *res.Threshold != scorer.Threshold {
						t.Errorf("sage: encoder %q threshold %v", res.Encoder, res.Threshold)
					}
				}
			}
		})
	}
	if len(byDefault) < 2 {
		t.Fatalf("changepoint cut the two topics into %d chunk(s): %+v", len(byDefault), byDefault)
	}

	t.Run("helpers", func(t *testing.T) {
		conn := connection.NewConnection("http", strings.TrimPrefix(s.HTTPURL, "http://"), nil, time.Minute, map[string]string{"Authorization": "Bearer " + users["importer"]})
		res, err := dsclient.Segment(ctx(t), conn, dsclient.SegmentRequest{Texts: []string{text}, MaxTokens: 64, Collection: "SegDocs"})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(res.Results[0].Chunks, byDefault) {
			t.Errorf("Go helper: %+v, the endpoint's %+v", res.Results[0].Chunks, byDefault)
		}
		anon := connection.NewConnection("http", strings.TrimPrefix(s.HTTPURL, "http://"), nil, time.Minute, nil)
		if _, err := dsclient.Segment(ctx(t), anon, dsclient.SegmentRequest{Texts: []string{text}}); err == nil || !strings.Contains(err.Error(), "status 401") {
			t.Errorf("Go helper, anonymous: %v", err)
		}
		input, _ := json.Marshal(text)
		node := fmt.Sprintf(`import { segment } from %q;
const ok = await segment(%q, %s, { maxTokens: 64, collection: 'SegDocs', apiKey: %q });
let refused = '';
try { await segment(%q, 'x', {}); } catch (e) { refused = e.status + ' ' + e.message; }
console.log(JSON.stringify({ chunks: ok.results[0].chunks, refused }));`,
			filepath.Join(root, "clients", "typescript", "index.js"), s.HTTPURL, input, users["importer"], s.HTTPURL)
		python := fmt.Sprintf(`import json, sys
from diverse_select import segment, SegmentError
ok = segment(%q, %s, api_key=%q, max_tokens=64, collection="SegDocs")
try:
    segment(%q, "x")
    refused = ""
except SegmentError as e:
    refused = "%%d %%s" %% (e.status, e)
print(json.dumps({"chunks": ok["results"][0]["chunks"], "refused": refused}))`, s.HTTPURL, input, users["importer"], s.HTTPURL)
		for _, h := range []struct {
			name string
			cmd  *exec.Cmd
		}{
			{"TypeScript", exec.CommandContext(ctx(t), "node", "--input-type=module", "-e", node)},
			{"Python", pythonCmd(ctx(t), filepath.Join(root, "clients", "python"), python)},
		} {
			out, err := h.cmd.Output()
			if err != nil {
				t.Fatalf("%s helper: %v\n%s", h.name, err, out)
			}
			var got struct {
				Chunks  []dsclient.Chunk
				Refused string
			}
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatalf("%s helper: %v: %s", h.name, err, out)
			}
			if !reflect.DeepEqual(got.Chunks, byDefault) {
				t.Errorf("%s helper: %+v, the endpoint's %+v", h.name, got.Chunks, byDefault)
			}
			if !strings.HasPrefix(got.Refused, "401 ") || !strings.Contains(got.Refused, "anonymous access not enabled") {
				t.Errorf("%s helper, anonymous: %q", h.name, got.Refused)
			}
		}
	})
	if !s.Alive() {
		t.Fatal("the server died")
	}
}

// TestSegmentAnonymous: on the shared stack (anonymous access on, no
// encoder configured) a request without credentials is served, and the
// methods that embed are refused by the variable's name.
func TestSegmentAnonymous(t *testing.T) {
	status, body := segmentPost(t, srv.HTTPURL, "", map[string]any{"text": "One sentence. Two sentences.", "method": "packed"})
	if status != 200 || !strings.Contains(body, `"text":"One sentence. Two sentences."`) {
		t.Errorf("packed, anonymous: %d %s", status, body)
	}
	status, body = segmentPost(t, srv.HTTPURL, "", map[string]any{"text": "One sentence."})
	if status != 400 || !strings.Contains(body, "DIVERSE_SELECT_SEGMENT_ENCODERS") {
		t.Errorf("sage without an encoder: %d %s", status, body)
	}
}

func segmentPost(t *testing.T, base, key string, body any) (int, string) {
	t.Helper()
	raw, _ := json.Marshal(body)
	req, _ := http.NewRequestWithContext(ctx(t), http.MethodPost, base+"/v1/modules/diverse-select/segment", bytes.NewReader(raw))
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	out, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(out)
}

// pythonCmd runs a Python script with the helper package on its path.
func pythonCmd(c context.Context, pkgDir, script string) *exec.Cmd {
	cmd := exec.CommandContext(c, "python3", "-c", script)
	cmd.Env = append(os.Environ(), "PYTHONPATH="+pkgDir)
	return cmd
}
