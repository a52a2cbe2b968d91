package stack

import (
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// RecorderAnswer is the text the OpenAI recorder answers every completion with.
const RecorderAnswer = "Recorded answer from the local OpenAI-compatible server."

// RecorderModel is a model name for generative-openai's class config when it
// points at the recorder: one Weaviate has no token limit for, so the module
// sends the prompt as it is (no tokenizer download).
const RecorderModel = "local-recorder"

// OpenAIRecorder is a local OpenAI-compatible chat-completions server for
// Weaviate's generative-openai module (class moduleConfig
// {"generative-openai": {"baseURL": r.URL, "model": RecorderModel}}): it
// records the exact messages of every request and answers each with
// RecorderAnswer, so a test can see what an LLM would have been sent.
type OpenAIRecorder struct {
	URL string // http://127.0.0.1:PORT

	srv   *http.Server
	mu    sync.Mutex
	calls []RecordedCall
}

// RecordedCall is one chat-completions request.
type RecordedCall struct {
	Model    string
	Messages []RecordedMessage
	APIKey   string // the bearer token Weaviate sent
}

// RecordedMessage is one message of a request, its content as text (the
// module sends a plain string when no images are attached).
type RecordedMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// Prompt is the text of the call's user messages, in order.
func (c RecordedCall) Prompt() string {
	var parts []string
	for _, m := range c.Messages {
		if m.Role == "user" {
			parts = append(parts, m.Content)
		}
	}
	return strings.Join(parts, "\n")
}

// StartOpenAIRecorder listens on a free port of 127.0.0.1.
func StartOpenAIRecorder() (*OpenAIRecorder, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	r := &OpenAIRecorder{URL: "http://" + l.Addr().String()}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", r.complete)
	r.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = r.srv.Serve(l) }()
	return r, nil
}

func (r *OpenAIRecorder) complete(w http.ResponseWriter, req *http.Request) {
	var body struct {
		Model    string            `json:"model"`
		Messages []json.RawMessage `json:"messages"`
	}
	if err := json.NewDecoder(req.Body).Decode(&body); err != nil {
		openAIError(w, http.StatusBadRequest, "undecodable request: "+err.Error())
		return
	}
	call := RecordedCall{Model: body.Model, APIKey: strings.TrimPrefix(req.Header.Get("Authorization"), "Bearer ")}
	for _, raw := range body.Messages {
		var m RecordedMessage
		if err := json.Unmarshal(raw, &m); err != nil {
			openAIError(w, http.StatusBadRequest, "message content is not text: "+err.Error())
			return
		}
		call.Messages = append(call.Messages, m)
	}
	r.mu.Lock()
	r.calls = append(r.calls, call)
	r.mu.Unlock()
	prompt := len(call.Prompt()) / 4 // a rough count: the module reports it, the tests do not read it
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id":      "chatcmpl-recorded",
		"object":  "chat.completion",
		"model":   body.Model,
		"choices": []any{map[string]any{"index": 0, "finish_reason": "stop", "message": map[string]any{"role": "assistant", "content": RecorderAnswer}}},
		"usage":   map[string]any{"prompt_tokens": prompt, "completion_tokens": 9, "total_tokens": prompt + 9},
	})
}

func openAIError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": msg, "type": "invalid_request_error"}})
}

// Calls returns the requests recorded so far.
func (r *OpenAIRecorder) Calls() []RecordedCall {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]RecordedCall(nil), r.calls...)
}

// Close stops the server.
func (r *OpenAIRecorder) Close() error {
	err := r.srv.Close()
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// DummyPrompt recovers the prompt from an answer of Weaviate's
// generative-dummy module, which echoes what an LLM would have been sent.
func DummyPrompt(answer string) (string, bool) {
	const head, tail = "You want me to generate something based on the following prompt: ", ". With settings: "
	rest, ok := strings.CutPrefix(answer, head)
	if i := strings.LastIndex(rest, tail); ok && i >= 0 {
		return rest[:i], true
	}
	return "", false
}
