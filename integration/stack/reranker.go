package stack

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"unicode"
)

// RerankServer is a local stand-in for reranker-transformers' inference
// service (Weaviate's RERANKER_INFERENCE_API): GET /.well-known/ready,
// GET /meta and POST /rerank {query, documents} -> {scores: [{document,
// score}]}, the scores in the documents' order. Its scores are
// RerankScore's, so a test knows every score the reranker gave.
type RerankServer struct {
	URL   string
	calls atomic.Int64
	srv   *http.Server
}

// StartRerankServer serves on a free port of 127.0.0.1 until Close.
func StartRerankServer() (*RerankServer, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	r := &RerankServer{URL: "http://" + ln.Addr().String()}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/ready", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) })
	mux.HandleFunc("GET /meta", func(w http.ResponseWriter, _ *http.Request) {
		_ = json.NewEncoder(w).Encode(map[string]any{"model": "diverse-select test reranker (query-term overlap)"})
	})
	mux.HandleFunc("POST /rerank", r.rerank)
	r.srv = &http.Server{Handler: mux}
	go func() { _ = r.srv.Serve(ln) }()
	return r, nil
}

// Calls is the number of /rerank requests served.
func (r *RerankServer) Calls() int64 { return r.calls.Load() }

// Close stops the server.
func (r *RerankServer) Close() {
	if r != nil && r.srv != nil {
		_ = r.srv.Close()
	}
}

func (r *RerankServer) rerank(w http.ResponseWriter, req *http.Request) {
	r.calls.Add(1)
	var in struct {
		Query     string   `json:"query"`
		Documents []string `json:"documents"`
	}
	type score struct {
		Document string  `json:"document"`
		Score    float64 `json:"score"`
	}
	w.Header().Set("Content-Type", "application/json")
	if err := json.NewDecoder(req.Body).Decode(&in); err != nil {
		w.WriteHeader(http.StatusBadRequest)
		_ = json.NewEncoder(w).Encode(map[string]string{"error": fmt.Sprintf("decode: %v", err)})
		return
	}
	out := struct {
		Scores []score `json:"scores"`
	}{Scores: make([]score, len(in.Documents))}
	for i, d := range in.Documents {
		out.Scores[i] = score{Document: d, Score: RerankScore(in.Query, d)}
	}
	_ = json.NewEncoder(w).Encode(out)
}

// RerankScore is the test reranker's score of document for query: a
// cross-encoder-like logit, unbounded and often negative, from the distinct
// query words the document contains, less 0.01 per document word, plus a
// tie-breaker below 0.001 from a hash of the document (distinct documents
// practically never tie): 2*overlap - 3 - 0.01*len(words) + hash/1e6.
func RerankScore(query, document string) float64 {
	q := map[string]bool{}
	for _, w := range words(query) {
		q[w] = true
	}
	overlap := 0
	docWords := words(document)
	seen := map[string]bool{}
	for _, w := range docWords {
		if q[w] && !seen[w] {
			overlap++
			seen[w] = true
		}
	}
	h := fnv.New32a()
	_, _ = h.Write([]byte(document))
	return 2*float64(overlap) - 3 - 0.01*float64(len(docWords)) + float64(h.Sum32()%1000)/1e6
}

func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}
