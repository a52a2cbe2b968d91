package diverseselect

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/diverse-select/diverse-select/engine"

	"github.com/weaviate/weaviate/entities/models"

	"github.com/diverse-select/diverse-select/cmd/embedder/embed"
	"github.com/diverse-select/diverse-select/config"
)

// segmentModule is a module whose segment endpoint embeds with a local
// hash embedder of glove-sif's 100 dimensions, authenticates the bearer
// token "good" (user alice) and lets alice create data in "Docs" only.
func segmentModule(t *testing.T, env map[string]string) (*Module, *httptest.Server) {
	t.Helper()
	h, err := embed.NewHash(100)
	if err != nil {
		t.Fatal(err)
	}
	enc := httptest.NewServer(embed.NewHandler(h))
	t.Cleanup(enc.Close)
	if env == nil {
		env = map[string]string{"DIVERSE_SELECT_SEGMENT_ENCODERS": "glove-sif=" + enc.URL}
	}
	m := New(nil)
	if m.segmentConfig, err = config.SegmentFromEnv(func(k string) string { return env[k] }); err != nil {
		t.Fatal(err)
	}
	m.authenticator = func(r *http.Request) (*models.Principal, error) {
		if r.Header.Get("Authorization") == "Bearer good" {
			return &models.Principal{Username: "alice"}, nil
		}
		return nil, errors.New("anonymous access not enabled")
	}
	m.authorize = func(_ context.Context, p *models.Principal, verb string, resources ...string) error {
		if p != nil && verb == "C" && len(resources) == 1 && strings.Contains(resources[0], "/collections/Docs/") {
			return nil
		}
		return errors.New("forbidden")
	}
	srv := httptest.NewServer(http.StripPrefix("/v1/modules/"+engine.Name, m.RootHandler()))
	t.Cleanup(srv.Close)
	return m, srv
}

func postSegment(t *testing.T, url, token, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url+"/v1/modules/"+engine.Name+"/segment", strings.NewReader(body))
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var b strings.Builder
	buf := make([]byte, 1<<16)
	for {
		n, err := res.Body.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			break
		}
	}
	return res.StatusCode, b.String()
}

func TestSegmentEndpointRefuses(t *testing.T) {
	_, srv := segmentModule(t, map[string]string{"DIVERSE_SELECT_SEGMENT_MAX_TEXTS": "2", "DIVERSE_SELECT_SEGMENT_MAX_BYTES": "200", "DIVERSE_SELECT_SEGMENT_MAX_SENTENCES": "3"})
	const ok = `{"text":"One. Two.","method":"packed","collection":"Docs"}`
	for _, tc := range []struct {
		name, token, body string
		status            int
		want              string
	}{
		{"anonymous", "", ok, 401, "anonymous"},
		{"wrong token", "bad", ok, 401, "anonymous"},
		{"forbidden collection", "good", `{"text":"One.","method":"packed","collection":"Other"}`, 403, "forbidden"},
		{"no collection: every collection", "good", `{"text":"One.","method":"packed"}`, 403, "forbidden"},
		{"body too large", "good", `{"text":"` + strings.Repeat("a", 300) + `","collection":"Docs"}`, 413, "DIVERSE_SELECT_SEGMENT_MAX_BYTES=200"},
		{"too many texts", "good", `{"texts":["a","b","c"],"method":"packed","collection":"Docs"}`, 400, "DIVERSE_SELECT_SEGMENT_MAX_TEXTS=2"},
		{"too many sentences", "good", `{"texts":["One. Two.","Three. Four."],"method":"packed","collection":"Docs"}`, 400, "DIVERSE_SELECT_SEGMENT_MAX_SENTENCES=3"},
		{"unknown key", "good", `{"txt":"a","collection":"Docs"}`, 400, "keys: text, texts"},
		{"both", "good", `{"text":"a","texts":["b"],"collection":"Docs"}`, 400, "not both"},
		{"neither", "good", `{"collection":"Docs"}`, 400, "give text"},
		{"unknown method", "good", `{"text":"a","method":"x","collection":"Docs"}`, 400, "allowed: changepoint, sage, percentile, packed, fixed"},
		{"maxTokens", "good", `{"text":"a","method":"packed","maxTokens":9999,"collection":"Docs"}`, 400, "maxTokens 9999 is outside [16, 8192]"},
		{"minTokens over half", "good", `{"text":"a","method":"packed","maxTokens":64,"minTokens":33,"collection":"Docs"}`, 400, "minTokens is 33; want 0..32 (at most half of maxTokens 64)"},
		{"minTokens negative", "good", `{"text":"a","method":"packed","minTokens":-1,"collection":"Docs"}`, 400, "minTokens is -1"},
		{"no encoder", "good", `{"text":"a","collection":"Docs"}`, 400, "DIVERSE_SELECT_SEGMENT_ENCODERS"},
		{"threshold", "good", `{"text":"a","method":"packed","threshold":0.5,"collection":"Docs"}`, 400, "threshold is a setting of method sage"},
		{"tokenizer", "good", `{"text":"a","method":"packed","tokenizer":"x","collection":"Docs"}`, 400, "allowed: cl100k_base"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, body := postSegment(t, srv.URL, tc.token, tc.body)
			if status != tc.status || !strings.Contains(body, tc.want) {
				t.Errorf("status %d, body %s; want %d and %q", status, body, tc.status, tc.want)
			}
		})
	}
	if status, body := postSegment(t, srv.URL, "good", ok); status != 200 {
		t.Errorf("a valid request: %d %s", status, body)
	}
	res, _ := http.Get(srv.URL + "/v1/modules/" + engine.Name + "/segment")
	if res.StatusCode != http.StatusMethodNotAllowed && res.StatusCode != http.StatusUnauthorized {
		t.Errorf("GET: status %d", res.StatusCode)
	}
}

func TestSegmentEndpoint(t *testing.T) {
	_, srv := segmentModule(t, nil)
	text := "His name is Whiskers. He has bright green eyes. The vet saw him on Monday."
	for _, method := range []string{"changepoint", "sage", "percentile", "packed", "fixed"} {
		t.Run(method, func(t *testing.T) {
			body, _ := json.Marshal(map[string]any{"texts": []string{text, "Short."}, "method": method, "maxTokens": 16, "minTokens": 6, "collection": "Docs"})
			status, raw := postSegment(t, srv.URL, "good", string(body))
			if status != 200 {
				t.Fatalf("status %d: %s", status, raw)
			}
			var res SegmentResponse
			if err := json.Unmarshal([]byte(raw), &res); err != nil {
				t.Fatal(err)
			}
			if len(res.Results) != 2 || res.Method != method || res.MaxTokens != 16 || res.MinTokens != 6 || res.Tokenizer == "" {
				t.Fatalf("response %+v", res)
			}
			if (method == "sage") != (res.Threshold != nil) || (method == "sage" || method == "percentile" || method == "changepoint") != (res.Encoder == "glove-sif") {
				t.Errorf("%s: threshold %v, encoder %q", method, res.Threshold, res.Encoder)
			}
			for i, in := range []string{text, "Short."} {
				prev := 0
				for _, c := range res.Results[i].Chunks {
					if c.Start < prev || in[c.Start:c.End] != c.Text || c.Tokens <= 0 || c.Tokens > 16 || (c.Tokens < 6 && len(res.Results[i].Chunks) > 1) {
						t.Errorf("%s text %d: chunk %+v after offset %d", method, i, c, prev)
					}
					prev = c.End
				}
				if len(res.Results[i].Chunks) == 0 || prev != len(in) {
					t.Errorf("%s text %d: chunks %+v do not reach the end %d", method, i, res.Results[i].Chunks, len(in))
				}
			}
		})
	}
}
