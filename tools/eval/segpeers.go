package main

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os/exec"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/weaviate/tiktoken-go"

	"github.com/diverse-select/diverse-select/segment"
	"github.com/diverse-select/diverse-select/selectors/tokens"
)

// The peers of the segmentation measurement, run in Python (segpeers.py,
// from the venv make venv makes): Chonkie's semantic and recursive chunkers,
// and pysbd's sentence splitter. Chonkie reads the sentence vectors and the
// token counts from this process over HTTP (peerServer), so it chunks with
// the same encoder and counts as package segment's chunkers.

//go:embed segpeers.py
var segPeersPy string

// peerServer serves an encoder (POST /vectors {"texts"} -> {"vectors"}) and
// a token counter (POST /count {"texts"} -> {"counts"}) on a loopback port,
// and cl100k_base's token ids (POST /encode {"texts"} -> {"ids"}, POST
// /decode {"ids"} -> {"texts"}) for Chonkie's chunkers that cut by tokens.
type peerServer struct {
	url string
	srv *http.Server
}

func startPeerServer(enc segment.Encoder, counter tokens.Counter) (*peerServer, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	read := func(w http.ResponseWriter, r *http.Request) ([]string, bool) {
		var body struct{ Texts []string }
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return nil, false
		}
		return body.Texts, true
	}
	mux.HandleFunc("/vectors", func(w http.ResponseWriter, r *http.Request) {
		texts, ok := read(w, r)
		if !ok {
			return
		}
		vecs, err := enc.Encode(r.Context(), texts)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		json.NewEncoder(w).Encode(map[string]any{"vectors": vecs})
	})
	bpe, err := tiktoken.GetEncoding(tokens.CL100K)
	if err != nil {
		ln.Close()
		return nil, err
	}
	mux.HandleFunc("/encode", func(w http.ResponseWriter, r *http.Request) {
		texts, ok := read(w, r)
		if !ok {
			return
		}
		ids := make([][]int, len(texts))
		for i, t := range texts {
			ids[i] = bpe.EncodeOrdinary(t)
		}
		json.NewEncoder(w).Encode(map[string]any{"ids": ids})
	})
	mux.HandleFunc("/decode", func(w http.ResponseWriter, r *http.Request) {
		var body struct{ IDs [][]int }
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		texts := make([]string, len(body.IDs))
		for i, ids := range body.IDs {
			texts[i] = bpe.Decode(ids)
		}
		json.NewEncoder(w).Encode(map[string]any{"texts": texts})
	})
	mux.HandleFunc("/count", func(w http.ResponseWriter, r *http.Request) {
		texts, ok := read(w, r)
		if !ok {
			return
		}
		counts := make([]int, len(texts))
		for i, t := range texts {
			counts[i] = counter.Count(t)
		}
		json.NewEncoder(w).Encode(map[string]any{"counts": counts})
	})
	s := &peerServer{url: "http://" + ln.Addr().String(), srv: &http.Server{Handler: mux}}
	go s.srv.Serve(ln)
	return s, nil
}

func (s *peerServer) close() { s.srv.Close() }

// runPeer runs one job of segpeers.py and returns each text's spans in
// code-point offsets and the seconds the Python side spent.
func runPeer(ctx context.Context, python string, job map[string]any) ([][][2]int, float64, error) {
	in, err := json.Marshal(job)
	if err != nil {
		return nil, 0, err
	}
	cmd := exec.CommandContext(ctx, python, "-c", segPeersPy)
	cmd.Stdin = bytes.NewReader(in)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		return nil, 0, fmt.Errorf("segpeers.py %s (%s; make venv installs requirements/segment-eval.txt): %w: %s", job["job"], python, err, lastLines(errOut.String(), 5))
	}
	var res struct {
		Spans   [][][2]int
		Seconds float64
	}
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		return nil, 0, fmt.Errorf("segpeers.py %s: %w", job["job"], err)
	}
	if len(res.Spans) != len(job["texts"].([]string)) {
		return nil, 0, fmt.Errorf("segpeers.py %s: %d answers for %d texts", job["job"], len(res.Spans), len(job["texts"].([]string)))
	}
	return res.Spans, res.Seconds, nil
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], " | ")
}

// byteOffsets converts code-point offsets of text into byte offsets.
func byteOffsets(text string) func(cp int) int {
	idx := make([]int, 0, len(text)+1)
	for i := range text {
		idx = append(idx, i)
	}
	idx = append(idx, len(text))
	return func(cp int) int { return idx[min(max(cp, 0), len(idx)-1)] }
}

// peerChunker is a Chonkie chunker as a segment.Chunker: it chunks a batch
// of texts in one Python run (prepare) and answers from what it kept.
type peerChunker struct {
	python  string
	job     map[string]any // without texts and url
	enc     segment.Encoder
	counter tokens.Counter
	mu      sync.Mutex
	done    map[string][]segment.Chunk
	seconds float64 // of the last run
}

func (p *peerChunker) prepare(ctx context.Context, texts []string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	var todo []string
	seen := map[string]bool{}
	for _, t := range texts {
		if _, ok := p.done[t]; !ok && !seen[t] {
			todo, seen[t] = append(todo, t), true
		}
	}
	if len(todo) == 0 {
		return nil
	}
	srv, err := startPeerServer(p.enc, p.counter)
	if err != nil {
		return err
	}
	defer srv.close()
	job := map[string]any{"texts": todo, "url": srv.url}
	for k, v := range p.job {
		job[k] = v
	}
	spans, secs, err := runPeer(ctx, p.python, job)
	if err != nil {
		return err
	}
	p.seconds = secs
	if p.done == nil {
		p.done = map[string][]segment.Chunk{}
	}
	for i, t := range todo {
		at := byteOffsets(t)
		var cs []segment.Chunk
		for _, sp := range spans[i] {
			s, e := trimSpan(t, at(sp[0]), at(sp[1]))
			if e > s {
				cs = append(cs, segment.Chunk{Start: s, End: e, Tokens: p.counter.Count(t[s:e])})
			}
		}
		p.done[t] = cs
	}
	return nil
}

// Chunk implements segment.Chunker.
func (p *peerChunker) Chunk(ctx context.Context, text string) ([]segment.Chunk, error) {
	if err := p.prepare(ctx, []string{text}); err != nil {
		return nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.done[text], nil
}

// trimSpan moves s forward and e back over white space.
func trimSpan(text string, s, e int) (int, int) {
	for s < e {
		r, size := utf8.DecodeRuneInString(text[s:])
		if !unicode.IsSpace(r) {
			break
		}
		s += size
	}
	for e > s {
		r, size := utf8.DecodeLastRuneInString(text[:e])
		if !unicode.IsSpace(r) {
			break
		}
		e -= size
	}
	return s, e
}

// preparer chunks a batch of texts at once.
type preparer interface {
	prepare(ctx context.Context, texts []string) error
}

// prepareAll gives a batch chunker all the texts it will be asked for.
func prepareAll(ctx context.Context, c segment.Chunker, texts []string) error {
	if p, ok := c.(preparer); ok {
		return p.prepare(ctx, texts)
	}
	return nil
}

// splitterAgreement compares the project's sentence splitter
// (selectors/sentences) with pysbd's on texts: where each says a sentence
// starts (after the first), counted as agreeing when both put one at the
// same byte; precision and recall are ours against pysbd's.
func splitterAgreement(ctx context.Context, python string, texts []string) ([]string, error) {
	spans, _, err := runPeer(ctx, python, map[string]any{"job": "pysbd", "texts": texts})
	if err != nil {
		return nil, err
	}
	ours, theirs, both := 0, 0, 0
	for i, t := range texts {
		at := byteOffsets(t)
		starts := map[int]bool{}
		for k, sp := range spans[i] {
			if s, e := trimSpan(t, at(sp[0]), at(sp[1])); k > 0 && e > s {
				starts[s] = true
			}
		}
		theirs += len(starts)
		for k, sp := range segment.Sentences(t) {
			if k > 0 {
				ours++
				if starts[sp.Start] {
					both++
				}
			}
		}
	}
	p, r := float64(both)/float64(max(1, ours)), float64(both)/float64(max(1, theirs))
	return []string{fmt.Sprint(len(texts)), fmt.Sprint(ours), fmt.Sprint(theirs), fmt.Sprint(both), pct(p), pct(r), pct(2 * p * r / max(p+r, 1e-9))}, nil
}
