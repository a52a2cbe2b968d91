package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/weaviate/weaviate-go-client/v5/weaviate/connection"

	dsclient "github.com/diverse-select/diverse-select/clients/go"
	"github.com/diverse-select/diverse-select/internal/corpus"
)

// segmentEncoders names the scorer (segment/weights) of each embedder mode
// with one.
var segmentEncoders = map[string]string{"glove": "glove-sif", "neural": "minilm-l6"}

// segmentBatch is the texts per segment request, within the endpoint's
// default DIVERSE_SELECT_SEGMENT_MAX_TEXTS.
const segmentBatch = 32

// segmentCorpus cuts every demo chunk again through the module's segment
// endpoint (the Go helper's Segment): each piece becomes a chunk of its own
// with its parent's title, source, facet and near-copy group.
func segmentCorpus(ctx context.Context, w io.Writer, httpURL string, chunks []corpus.Chunk, method string, maxTokens int) ([]corpus.Chunk, error) {
	conn := connection.NewConnection("http", strings.TrimPrefix(httpURL, "http://"), nil, time.Minute, nil)
	start := time.Now()
	var out []corpus.Chunk
	for i := 0; i < len(chunks); i += segmentBatch {
		batch := chunks[i:min(i+segmentBatch, len(chunks))]
		texts := make([]string, len(batch))
		for k, c := range batch {
			texts[k] = c.Body
		}
		res, err := dsclient.Segment(ctx, conn, dsclient.SegmentRequest{Texts: texts, Method: method, MaxTokens: maxTokens})
		if err != nil {
			return nil, err
		}
		for k, r := range res.Results {
			for j, piece := range r.Chunks {
				c := batch[k]
				c.ID = fmt.Sprintf("%s#%d", c.ID, j)
				c.Body = piece.Text
				out = append(out, c)
			}
		}
	}
	fmt.Fprintf(w, "segmented %d demo chunks into %d with %s (at most %d tokens) through /v1/modules/diverse-select/segment in %s\n",
		len(chunks), len(out), method, maxTokens, time.Since(start).Round(time.Millisecond))
	return out, nil
}
