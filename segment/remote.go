package segment

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	"golang.org/x/sync/errgroup"
)

// Remote embeds over the inference protocol of Weaviate's
// text2vec-transformers module (POST {URL}/vectors {"text": ...} ->
// {"vector": [...]}, one text a request), Concurrency requests at a time:
// the local embedder (cmd/embedder) and any transformers inference container.
type Remote struct {
	URL         string
	Client      *http.Client
	Concurrency int
}

// maxVectorResponse bounds one /vectors answer (a 4096-dimension vector in
// JSON is well under 100 kB).
const maxVectorResponse = 1 << 20

// Encode implements Encoder.
func (r Remote) Encode(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(max(1, r.Concurrency))
	for i, t := range texts {
		g.Go(func() error {
			v, err := r.one(ctx, t)
			out[i] = v
			return err
		})
	}
	return out, g.Wait()
}

func (r Remote) one(ctx context.Context, text string) ([]float32, error) {
	body, _ := json.Marshal(map[string]any{"text": text, "config": map[string]string{"task_type": "passage"}})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimRight(r.URL, "/")+"/vectors", bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("segment: encoder %s: %w", r.URL, err)
	}
	req.Header.Set("Content-Type", "application/json")
	c := r.Client
	if c == nil {
		c = http.DefaultClient
	}
	res, err := c.Do(req)
	if err != nil {
		return nil, fmt.Errorf("segment: encoder: %w", err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(res.Body, maxVectorResponse))
	if err != nil {
		return nil, fmt.Errorf("segment: encoder: %w", err)
	}
	var v struct {
		Vector []float32 `json:"vector"`
		Error  string    `json:"error"`
	}
	if err := json.Unmarshal(raw, &v); err != nil || res.StatusCode != http.StatusOK || len(v.Vector) == 0 {
		msg := v.Error
		if msg == "" {
			msg = strings.TrimSpace(string(raw[:min(len(raw), 200)]))
		}
		return nil, fmt.Errorf("segment: encoder answered %d: %s", res.StatusCode, msg)
	}
	return v.Vector, nil
}
