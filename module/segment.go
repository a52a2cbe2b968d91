package diverseselect

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"runtime/debug"
	"strings"
	"time"

	"github.com/weaviate/weaviate/entities/models"
	"github.com/weaviate/weaviate/usecases/auth/authorization"

	"github.com/diverse-select/diverse-select/config"
	"github.com/diverse-select/diverse-select/engine"
	"github.com/diverse-select/diverse-select/segment"
)

// The segmentation endpoint, POST /v1/modules/diverse-select/segment: a text
// or a batch of texts in, chunks with byte offsets and token counts out, by
// one of package segment's methods. Weaviate mounts module handlers ahead of
// its own authentication (adapters/handlers/rest/middlewares.go,
// makeAddModuleHandlers), so this handler authenticates each request with
// Weaviate's own authenticator and authorizer, which the registration glue
// hands over (Weaviate.Authenticate, Weaviate.Authorize): an API key or OIDC
// token as for every other route, anonymous only when anonymous access is
// on, and with RBAC the permission to create objects in the collection the
// request names (every collection when it names none).

// Segmentation methods a request may name.
const (
	MethodChangePoint = "changepoint"
	MethodSAGE        = "sage"
	MethodPercentile  = "percentile"
	MethodPacked      = "packed"
	MethodFixed       = "fixed"
)

// segmentMethods lists the methods for errors.
const segmentMethods = MethodChangePoint + ", " + MethodSAGE + ", " + MethodPercentile + ", " + MethodPacked + ", " + MethodFixed

// Segment request bounds that are not settings of the deployment.
const (
	DefaultSegmentMaxTokens = 256
	MinSegmentMaxTokens     = 16
	MaxSegmentMaxTokens     = 8192
	// segmentTimeout bounds one request's work (the encoder calls), under
	// the client's own context.
	segmentTimeout = 2 * time.Minute
	// encoderConcurrency is the encoder requests one segment request keeps
	// in flight.
	encoderConcurrency = 8
)

// SegmentRequest is the body of a segment request. Exactly one of Text and
// Texts is set.
type SegmentRequest struct {
	Text  *string  `json:"text,omitempty"`
	Texts []string `json:"texts,omitempty"`
	// Method is changepoint (default), sage, percentile, packed or fixed.
	Method string `json:"method,omitempty"`
	// Encoder names one of DIVERSE_SELECT_SEGMENT_ENCODERS (default the
	// first); changepoint, sage and percentile embed with it.
	Encoder string `json:"encoder,omitempty"`
	// MaxTokens is the longest chunk of every method.
	MaxTokens int `json:"maxTokens,omitempty"`
	// MinTokens is the shortest chunk of every method (default 0), at
	// most half of MaxTokens: a smaller one is merged with a neighbour
	// (package segment's size bounds).
	MinTokens int `json:"minTokens,omitempty"`
	// Threshold overrides the scorer's trained threshold (sage).
	Threshold *float64 `json:"threshold,omitempty"`
	// Percentile is the percentile method's cut (default 95).
	Percentile *float64 `json:"percentile,omitempty"`
	// Tokenizer counts tokens (default the module's).
	Tokenizer string `json:"tokenizer,omitempty"`
	// Collection names the collection the chunks are for: with RBAC the
	// caller needs create_data on it (on every collection when empty).
	Collection string `json:"collection,omitempty"`
}

// SegmentResponse is the answer: one result per input text, in order.
type SegmentResponse struct {
	Method    string          `json:"method"`
	Encoder   string          `json:"encoder,omitempty"`
	Threshold *float64        `json:"threshold,omitempty"`
	MaxTokens int             `json:"maxTokens"`
	MinTokens int             `json:"minTokens"`
	Tokenizer string          `json:"tokenizer"`
	Results   []SegmentResult `json:"results"`
}

// SegmentResult is the chunks of one text.
type SegmentResult struct {
	Chunks []SegmentChunk `json:"chunks"`
}

// SegmentChunk is one chunk: text[start:end] in UTF-8 bytes of the input.
// Cut flags a piece of a sentence longer than maxTokens, cut at a word
// boundary.
type SegmentChunk struct {
	Text      string `json:"text"`
	Start     int    `json:"start"`
	End       int    `json:"end"`
	Tokens    int    `json:"tokens"`
	Sentences int    `json:"sentences"`
	Cut       bool   `json:"cut,omitempty"`
}

// httpError is an error with the HTTP status it is answered with.
type httpError struct {
	status int
	msg    string
}

func (e *httpError) Error() string { return e.msg }

func badRequest(format string, args ...any) error {
	return &httpError{http.StatusBadRequest, fmt.Sprintf(format, args...)}
}

// RootHandler implements modulecapabilities.ModuleWithHTTPHandlers: Weaviate
// serves it under /v1/modules/diverse-select/.
func (m *Module) RootHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/segment", m.serveSegment)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, &httpError{http.StatusNotFound, fmt.Sprintf("no route %s /v1/modules/%s%s; the module serves POST /v1/modules/%s/segment", r.Method, engine.Name, r.URL.Path, engine.Name)})
	})
	return mux
}

func (m *Module) serveSegment(w http.ResponseWriter, r *http.Request) {
	defer func() {
		if v := recover(); v != nil {
			writeError(w, engine.PanicError(m.e.Logger(), "segment", v, debug.Stack()))
		}
	}()
	res, err := m.segment(r)
	if err != nil {
		writeError(w, err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(res)
}

// segment authenticates, checks the limits, authorizes and runs a request.
func (m *Module) segment(r *http.Request) (*SegmentResponse, error) {
	if r.Method != http.MethodPost {
		return nil, &httpError{http.StatusMethodNotAllowed, "segment: use POST"}
	}
	principal, err := m.authenticate(r)
	if err != nil {
		return nil, err
	}
	lim := m.segmentConfig
	if r.ContentLength > int64(lim.MaxBytes) {
		return nil, &httpError{http.StatusRequestEntityTooLarge, fmt.Sprintf("segment: the body of %d bytes exceeds DIVERSE_SELECT_SEGMENT_MAX_BYTES=%d", r.ContentLength, lim.MaxBytes)}
	}
	var req SegmentRequest
	dec := json.NewDecoder(http.MaxBytesReader(nil, r.Body, int64(lim.MaxBytes)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		if mb := (*http.MaxBytesError)(nil); errors.As(err, &mb) {
			return nil, &httpError{http.StatusRequestEntityTooLarge, fmt.Sprintf("segment: the body exceeds DIVERSE_SELECT_SEGMENT_MAX_BYTES=%d", lim.MaxBytes)}
		}
		return nil, badRequest("segment: the body is not a segment request: %v (keys: text, texts, method, encoder, maxTokens, minTokens, threshold, percentile, tokenizer, collection)", err)
	}
	if m.authorize == nil {
		return nil, &httpError{http.StatusForbidden, "segment: no authorizer"}
	}
	if err := m.authorize(r.Context(), principal, authorization.CREATE, authorization.CollectionsData(req.Collection)...); err != nil {
		return nil, &httpError{http.StatusForbidden, err.Error()}
	}
	texts, plan, err := m.segmentPlan(&req)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(r.Context(), segmentTimeout)
	defer cancel()
	out := plan.resp
	for _, text := range texts {
		chunks, err := plan.chunker.Chunk(ctx, text)
		if err != nil {
			return nil, &httpError{http.StatusBadGateway, err.Error()}
		}
		res := SegmentResult{Chunks: make([]SegmentChunk, len(chunks))}
		for i, c := range chunks {
			res.Chunks[i] = SegmentChunk{Text: text[c.Start:c.End], Start: c.Start, End: c.End, Tokens: c.Tokens, Sentences: c.Sentences, Cut: c.Cut}
		}
		out.Results = append(out.Results, res)
	}
	return &out, nil
}

// authenticate is Weaviate's authentication of the request; without the
// glue's authenticator (a unit test's module) every request is refused.
func (m *Module) authenticate(r *http.Request) (*models.Principal, error) {
	if m.authenticator == nil {
		return nil, &httpError{http.StatusUnauthorized, "segment: no authenticator"}
	}
	p, err := m.authenticator(r)
	if err != nil {
		return nil, &httpError{http.StatusUnauthorized, err.Error()}
	}
	return p, nil
}

// segmentPlan is a request checked against the limits and settings: its
// texts, its chunker and the response's header.
type segmentPlan struct {
	chunker segment.Chunker
	resp    SegmentResponse
}

func (m *Module) segmentPlan(req *SegmentRequest) ([]string, *segmentPlan, error) {
	lim := m.segmentConfig
	var texts []string
	switch {
	case req.Text != nil && req.Texts != nil:
		return nil, nil, badRequest("segment: give text or texts, not both")
	case req.Text != nil:
		texts = []string{*req.Text}
	case len(req.Texts) > 0:
		texts = req.Texts
	default:
		return nil, nil, badRequest("segment: give text (a string) or texts (a list of strings)")
	}
	if len(texts) > lim.MaxTexts {
		return nil, nil, badRequest("segment: %d texts exceed DIVERSE_SELECT_SEGMENT_MAX_TEXTS=%d", len(texts), lim.MaxTexts)
	}
	sentences := 0
	for _, t := range texts {
		sentences += len(segment.Sentences(t))
		if sentences > lim.MaxSentences {
			return nil, nil, badRequest("segment: more than DIVERSE_SELECT_SEGMENT_MAX_SENTENCES=%d sentences in the request", lim.MaxSentences)
		}
	}
	p := &segmentPlan{resp: SegmentResponse{Method: req.Method, MaxTokens: req.MaxTokens, MinTokens: req.MinTokens, Tokenizer: req.Tokenizer, Results: []SegmentResult{}}}
	if p.resp.Method == "" {
		p.resp.Method = MethodChangePoint
	}
	if p.resp.MaxTokens == 0 {
		p.resp.MaxTokens = DefaultSegmentMaxTokens
	}
	if p.resp.MaxTokens < MinSegmentMaxTokens || p.resp.MaxTokens > MaxSegmentMaxTokens {
		return nil, nil, badRequest("segment: maxTokens %d is outside [%d, %d]", p.resp.MaxTokens, MinSegmentMaxTokens, MaxSegmentMaxTokens)
	}
	if err := segment.CheckBounds(p.resp.MinTokens, p.resp.MaxTokens); err != nil {
		return nil, nil, badRequest("%v", err)
	}
	lo, hi := p.resp.MinTokens, p.resp.MaxTokens
	if p.resp.Tokenizer == "" {
		p.resp.Tokenizer = m.e.Defaults().Settings.Tokenizer
	}
	counter, err := m.e.Counter(p.resp.Tokenizer)
	if err != nil {
		return nil, nil, badRequest("segment: %v", err)
	}
	if req.Threshold != nil && (*req.Threshold < 0 || *req.Threshold > 1) {
		return nil, nil, badRequest("segment: threshold %v is outside [0, 1]", *req.Threshold)
	}
	if req.Percentile != nil && (*req.Percentile < 0 || *req.Percentile > 100) {
		return nil, nil, badRequest("segment: percentile %v is outside [0, 100]", *req.Percentile)
	}
	if req.Threshold != nil && p.resp.Method != MethodSAGE || req.Percentile != nil && p.resp.Method != MethodPercentile {
		return nil, nil, badRequest("segment: threshold is a setting of method sage, percentile of method percentile")
	}
	switch p.resp.Method {
	case MethodFixed:
		p.chunker = segment.Fixed{Tokens: hi, MinTokens: lo, Counter: counter}
	case MethodPacked:
		p.chunker = segment.Packed{Tokens: hi, MinTokens: lo, Counter: counter}
	case MethodChangePoint, MethodSAGE, MethodPercentile:
		enc, err := m.segmentEncoder(req.Encoder)
		if err != nil {
			return nil, nil, err
		}
		p.resp.Encoder = enc.Name
		remote := segment.Remote{URL: enc.URL, Client: m.encoderClient, Concurrency: encoderConcurrency}
		if p.resp.Method == MethodPercentile {
			q := float64(segment.DefaultPercentile)
			if req.Percentile != nil {
				q = *req.Percentile
			}
			p.chunker = segment.Percentile{Encoder: remote, Percentile: q, MinTokens: lo, MaxTokens: hi, Counter: counter}
			break
		}
		scorer, err := segment.Weights(enc.Name)
		if err != nil {
			return nil, nil, badRequest("segment: encoder %q: %v", enc.Name, err)
		}
		if p.resp.Method == MethodChangePoint {
			p.chunker = segment.ChangePoint{Encoder: remote, Scorer: scorer, MinTokens: lo, MaxTokens: hi, Counter: counter}
			break
		}
		th := scorer.Threshold
		if req.Threshold != nil {
			th = *req.Threshold
		}
		p.resp.Threshold = &th
		p.chunker = segment.SAGE{Encoder: remote, Scorer: scorer, Threshold: th, MinTokens: lo, MaxTokens: hi, Counter: counter}
	default:
		return nil, nil, badRequest("segment: unknown method %q; allowed: %s", p.resp.Method, segmentMethods)
	}
	return texts, p, nil
}

// segmentEncoder is the configured encoder a request names (the first one
// when it names none).
func (m *Module) segmentEncoder(name string) (config.SegmentEncoder, error) {
	encs := m.segmentConfig.Encoders
	if len(encs) == 0 {
		return config.SegmentEncoder{}, badRequest("segment: no encoder is configured (DIVERSE_SELECT_SEGMENT_ENCODERS): methods changepoint, sage and percentile embed sentences; packed and fixed do not")
	}
	if name == "" {
		return encs[0], nil
	}
	var names []string
	for _, e := range encs {
		if e.Name == name {
			return e, nil
		}
		names = append(names, e.Name)
	}
	return config.SegmentEncoder{}, badRequest("segment: unknown encoder %q; configured (DIVERSE_SELECT_SEGMENT_ENCODERS): %s", name, strings.Join(names, ", "))
}

// writeError answers with Weaviate's REST error body.
func writeError(w http.ResponseWriter, err error) {
	status := http.StatusInternalServerError
	if he := (*httpError)(nil); errors.As(err, &he) {
		status = he.status
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(models.ErrorResponse{Error: []*models.ErrorResponseErrorItems0{{Message: err.Error()}}})
}
