package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/diverse-select/diverse-select/internal/corpus"
)

// TestSegmentCorpus: each demo chunk is sent to the endpoint once, in
// batches, and each piece becomes a chunk with its parent's fields.
func TestSegmentCorpus(t *testing.T) {
	var batches int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/modules/diverse-select/segment" {
			http.NotFound(w, r)
			return
		}
		batches++
		var req struct {
			Texts  []string
			Method string
		}
		_ = json.NewDecoder(r.Body).Decode(&req)
		type chunk struct {
			Text string `json:"text"`
		}
		var res struct {
			Results []struct {
				Chunks []chunk `json:"chunks"`
			} `json:"results"`
		}
		for _, t := range req.Texts { // cut at the first ". "
			a, b, ok := strings.Cut(t, ". ")
			r := struct {
				Chunks []chunk `json:"chunks"`
			}{Chunks: []chunk{{a}}}
			if ok {
				r.Chunks = []chunk{{a + "."}, {b}}
			}
			res.Results = append(res.Results, r)
		}
		_ = json.NewEncoder(w).Encode(res)
	}))
	defer srv.Close()
	in := make([]corpus.Chunk, 40)
	for i := range in {
		in[i] = corpus.Chunk{ID: "c", Title: "T", Source: "s", Facet: "f", DupGroup: "g", Body: "One. Two"}
	}
	out, err := segmentCorpus(context.Background(), io.Discard, srv.URL, in, "packed", 64)
	if err != nil {
		t.Fatal(err)
	}
	if batches != 2 || len(out) != 80 {
		t.Fatalf("%d requests, %d chunks; want 2 and 80", batches, len(out))
	}
	if c := out[1]; c.ID != "c#1" || c.Body != "Two" || c.Title != "T" || c.Source != "s" || c.Facet != "f" || c.DupGroup != "g" {
		t.Errorf("second piece %+v", c)
	}
}
