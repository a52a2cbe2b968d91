package embed

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
)

// The wire types below mirror the client in the Weaviate go.mod pins,
// usecases/modulecomponents/clients/transformers/transformers.go, which the
// text2vec-transformers module uses unmodified.

// VectorsRequest is the body Weaviate POSTs to /vectors. Weaviate marshals
// one struct for both directions, so a request also carries
// "dims":0, "vector":null and "error":"", which are ignored here.
type VectorsRequest struct {
	Text   string        `json:"text"`
	Config RequestConfig `json:"config"`
}

// RequestConfig is the "config" object of a VectorsRequest.
type RequestConfig struct {
	// PoolingStrategy is the class's poolingStrategy ("masked_mean" by
	// default, or "cls"). It selects how a transformer pools token
	// states; these embedders have no token states, so it is accepted
	// and ignored.
	PoolingStrategy string `json:"pooling_strategy,omitempty"`
	// TaskType is "passage" for objects and "query" for nearText. Both
	// embedders are symmetric, so it is accepted and ignored.
	TaskType string `json:"task_type,omitempty"`
	// Dimensions is the class's optional "dimensions" setting: when set,
	// the vector is shortened to that length (see EmbedDims).
	Dimensions *int64 `json:"dimensions,omitempty"`
}

// VectorsResponse is the 200 response to /vectors. Weaviate reads text,
// dims and vector.
type VectorsResponse struct {
	Text   string    `json:"text"`
	Dims   int       `json:"dims"`
	Vector []float32 `json:"vector"`
}

// ErrorResponse is the body of every non-2xx response. Weaviate decodes the
// body as JSON before it looks at the status code, so errors must be JSON
// too or the real message is lost behind a parse error.
type ErrorResponse struct {
	Error string `json:"error"`
}

// MaxRequestBytes bounds the body of a /vectors request.
const MaxRequestBytes = 16 << 20

// NewHandler serves e over the inference protocol of Weaviate's
// text2vec-transformers module:
//
//	POST /vectors           {"text":..., "config":{...}} -> {"text","dims","vector"}
//	GET  /meta              -> {"model":{...}}
//	GET  /.well-known/ready -> 204
//	GET  /.well-known/live  -> 204
//
// One server serves both TRANSFORMERS_INFERENCE_API and the separate
// TRANSFORMERS_PASSAGE_INFERENCE_API / TRANSFORMERS_QUERY_INFERENCE_API.
func NewHandler(e Embedder) http.Handler {
	mux := http.NewServeMux()
	vectors := func(w http.ResponseWriter, r *http.Request) { serveVectors(w, r, e) }
	// Tolerate a trailing slash; Weaviate itself sends "/vectors".
	mux.HandleFunc("POST /vectors", vectors)
	mux.HandleFunc("POST /vectors/", vectors)
	mux.HandleFunc("GET /meta", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, Meta(e))
	})
	noContent := func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) }
	mux.HandleFunc("GET /.well-known/ready", noContent)
	mux.HandleFunc("GET /.well-known/live", noContent)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, fmt.Sprintf("no route %s %s", r.Method, r.URL.Path))
	})
	return mux
}

// Meta is the /meta body. Weaviate only requires a JSON object and passes
// it through unchanged as the module's entry in its own GET /v1/meta.
func Meta(e Embedder) map[string]any {
	return map[string]any{
		"model": map[string]any{
			"name":       "diverse-select/embed-" + e.Mode(),
			"mode":       e.Mode(),
			"dimensions": e.Dims(),
		},
	}
}

func serveVectors(w http.ResponseWriter, r *http.Request, e Embedder) {
	var req VectorsRequest
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, MaxRequestBytes))
	if err := dec.Decode(&req); err != nil {
		status := http.StatusBadRequest
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			status = http.StatusRequestEntityTooLarge
		}
		writeError(w, status, "invalid request body: "+err.Error())
		return
	}
	dims := e.Dims()
	if d := req.Config.Dimensions; d != nil {
		if *d <= 0 || *d > int64(dims) {
			writeError(w, http.StatusBadRequest,
				fmt.Sprintf("dimensions must be between 1 and %d, got %d", dims, *d))
			return
		}
		dims = int(*d)
	}
	vec, err := EmbedDims(r.Context(), e, req.Text, dims)
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	writeJSON(w, http.StatusOK, VectorsResponse{Text: req.Text, Dims: len(vec), Vector: vec})
}

// EmbedDims embeds text with e and shortens the vector to n <= e.Dims()
// values. The hash embedder simply hashes into n slots, since a prefix of
// a hashed vector would drop features. Other embedders keep the first n
// values and re-normalise (Matryoshka-style); if that prefix is all zero,
// the n-slot hash vector is returned so the result is still a unit vector.
func EmbedDims(ctx context.Context, e Embedder, text string, n int) ([]float32, error) {
	if n <= 0 {
		return nil, fmt.Errorf("embed: %d dimensions asked for, want at least 1", n)
	}
	hashN := func() []float32 { return (&Hash{dims: n}).Embed(text) }
	if _, ok := e.(*Hash); ok && n < e.Dims() {
		return hashN(), nil
	}
	vs, err := e.Encode(ctx, []string{text})
	if err != nil {
		return nil, err
	}
	v := vs[0]
	if n >= len(v) {
		return v, nil
	}
	f := make([]float64, n)
	for i := range f {
		f[i] = float64(v[i])
	}
	if out, ok := normalize(f); ok {
		return out, nil
	}
	return hashN(), nil
}

func writeJSON(w http.ResponseWriter, status int, body any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(body)
}

func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, ErrorResponse{Error: msg})
}
