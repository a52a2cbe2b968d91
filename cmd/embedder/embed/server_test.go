package embed

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// weaviateVecRequest is the exact struct the pinned Weaviate marshals for a
// request and unmarshals a response into
// (usecases/modulecomponents/clients/transformers/transformers.go). It is
// restated here, not imported, so the test pins the wire format.
type weaviateVecRequest struct {
	Text   string    `json:"text"`
	Dims   int       `json:"dims"`
	Vector []float32 `json:"vector"`
	Error  string    `json:"error"`
	Config struct {
		PoolingStrategy string `json:"pooling_strategy,omitempty"`
		TaskType        string `json:"task_type,omitempty"`
		Dimensions      *int64 `json:"dimensions,omitempty"`
	} `json:"config"`
}

func do(t *testing.T, srv *httptest.Server, method, path, body string) (int, http.Header, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	res, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res.StatusCode, res.Header, b
}

func TestVectorsWireFormat(t *testing.T) {
	e := mustHash(t, 16)
	srv := httptest.NewServer(NewHandler(e))
	defer srv.Close()

	tests := []struct {
		name, path, body, text string
		dims                   int
	}{
		{
			// What VectorizeObject sends for the default class settings.
			name: "passage", path: "/vectors", text: "This is my text", dims: 16,
			body: `{"text":"This is my text","dims":0,"vector":null,"error":"","config":{"pooling_strategy":"masked_mean","task_type":"passage"}}`,
		},
		{
			// What VectorizeQuery sends for nearText.
			name: "query", path: "/vectors", text: "statin muscle pain", dims: 16,
			body: `{"text":"statin muscle pain","dims":0,"vector":null,"error":"","config":{"pooling_strategy":"cls","task_type":"query"}}`,
		},
		{
			name: "dimensions truncates", path: "/vectors", text: "This is my text", dims: 4,
			body: `{"text":"This is my text","dims":0,"vector":null,"error":"","config":{"pooling_strategy":"masked_mean","task_type":"passage","dimensions":4}}`,
		},
		{
			name: "no config", path: "/vectors/", text: "bare", dims: 16,
			body: `{"text":"bare"}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, hdr, body := do(t, srv, http.MethodPost, tt.path, tt.body)
			if status != http.StatusOK {
				t.Fatalf("status %d: %s", status, body)
			}
			if ct := hdr.Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type %q", ct)
			}
			// Exactly the keys Weaviate reads, nothing it would misread.
			var raw map[string]json.RawMessage
			if err := json.Unmarshal(body, &raw); err != nil {
				t.Fatal(err)
			}
			keys := make([]string, 0, len(raw))
			for k := range raw {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			if want := []string{"dims", "text", "vector"}; !reflect.DeepEqual(keys, want) {
				t.Errorf("response keys %v, want %v", keys, want)
			}
			var res weaviateVecRequest
			if err := json.Unmarshal(body, &res); err != nil {
				t.Fatal(err)
			}
			if res.Text != tt.text || res.Dims != tt.dims || len(res.Vector) != tt.dims {
				t.Errorf("got text %q dims %d len %d, want %q %d", res.Text, res.Dims, len(res.Vector), tt.text, tt.dims)
			}
			assertUnit(t, res.Vector, tt.dims)
			if want, err := EmbedDims(context.Background(), e, tt.text, tt.dims); err != nil || !reflect.DeepEqual(res.Vector, want) {
				t.Errorf("vector differs from EmbedDims(%q)", tt.text)
			}
		})
	}
}

func TestVectorsErrors(t *testing.T) {
	srv := httptest.NewServer(NewHandler(mustHash(t, 8)))
	defer srv.Close()
	tests := []struct {
		name, method, path, body string
		status                   int
	}{
		{"malformed json", http.MethodPost, "/vectors", `{"text":`, http.StatusBadRequest},
		{"text not a string", http.MethodPost, "/vectors", `{"text":42}`, http.StatusBadRequest},
		{"dimensions too large", http.MethodPost, "/vectors", `{"text":"a","config":{"dimensions":9}}`, http.StatusBadRequest},
		{"dimensions zero", http.MethodPost, "/vectors", `{"text":"a","config":{"dimensions":0}}`, http.StatusBadRequest},
		{"wrong method", http.MethodGet, "/vectors", ``, http.StatusNotFound},
		{"unknown path", http.MethodGet, "/v1/embeddings", ``, http.StatusNotFound},
		{"body too large", http.MethodPost, "/vectors", `{"text":"` + strings.Repeat("a", MaxRequestBytes) + `"}`, http.StatusRequestEntityTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, _, body := do(t, srv, tt.method, tt.path, tt.body)
			if status != tt.status {
				t.Errorf("status %d, want %d", status, tt.status)
			}
			// Weaviate decodes the body before checking the status, and
			// then reports its "error" field.
			var res weaviateVecRequest
			if err := json.Unmarshal(body, &res); err != nil || res.Error == "" {
				t.Errorf("error body %q not JSON with an error field (%v)", body, err)
			}
		})
	}
}

func TestProbesAndMeta(t *testing.T) {
	srv := httptest.NewServer(NewHandler(mustHash(t, 32)))
	defer srv.Close()
	for _, path := range []string{"/.well-known/ready", "/.well-known/live"} {
		// Weaviate's CheckReady accepts any status <= 299.
		if status, _, _ := do(t, srv, http.MethodGet, path, ""); status != http.StatusNoContent {
			t.Errorf("%s: status %d, want 204", path, status)
		}
	}
	status, _, body := do(t, srv, http.MethodGet, "/meta", "")
	if status != http.StatusOK {
		t.Fatalf("/meta status %d", status)
	}
	// Weaviate unmarshals /meta into map[string]any.
	var meta map[string]any
	if err := json.Unmarshal(body, &meta); err != nil {
		t.Fatal(err)
	}
	model, ok := meta["model"].(map[string]any)
	if !ok || model["mode"] != "hash" || model["dimensions"] != float64(32) {
		t.Errorf("/meta = %s", body)
	}
}

// Embedders are shared by all request goroutines; run with -race.
func TestConcurrentRequests(t *testing.T) {
	for _, e := range []Embedder{mustHash(t, 32), loadTiny(t)} {
		srv := httptest.NewServer(NewHandler(e))
		vs, err := e.Encode(context.Background(), []string{"the cat sat"})
		if err != nil {
			t.Fatal(err)
		}
		want := vs[0]
		errs := make(chan string, 16)
		for i := 0; i < 16; i++ {
			go func() {
				// No t.Fatal off the test goroutine: report through errs.
				res, err := srv.Client().Post(srv.URL+"/vectors", "application/json",
					strings.NewReader(`{"text":"the cat sat","config":{"task_type":"query"}}`))
				if err != nil {
					errs <- err.Error()
					return
				}
				defer res.Body.Close()
				var out VectorsResponse
				if err := json.NewDecoder(res.Body).Decode(&out); err != nil || !reflect.DeepEqual(out.Vector, want) {
					errs <- fmt.Sprintf("status %d, %v", res.StatusCode, err)
					return
				}
				errs <- ""
			}()
		}
		for i := 0; i < 16; i++ {
			if msg := <-errs; msg != "" {
				t.Errorf("%s: unexpected response %s", e.Mode(), msg)
			}
		}
		srv.Close()
	}
}
