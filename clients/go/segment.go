package diverseselect

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/weaviate/weaviate-go-client/v5/weaviate/connection"
)

// RESTRunner sends a REST request under /v1: the Go client's
// *connection.Connection is one (connection.NewConnection, with an
// "Authorization: Bearer <API key>" header when the server wants one).
type RESTRunner interface {
	RunREST(ctx context.Context, path, method string, body any) (*connection.ResponseData, error)
}

// SegmentRequest is a request to the module's segmentation endpoint
// (POST /v1/modules/diverse-select/segment; docs/segmentation.md): Texts
// are cut by Method (changepoint by default, sage, percentile, packed, fixed)
// into chunks of at most MaxTokens and at least MinTokens tokens (zero
// values: the server's defaults).
type SegmentRequest struct {
	Texts      []string `json:"texts"`
	Method     string   `json:"method,omitempty"`
	Encoder    string   `json:"encoder,omitempty"`
	MaxTokens  int      `json:"maxTokens,omitempty"`
	MinTokens  int      `json:"minTokens,omitempty"`
	Threshold  *float64 `json:"threshold,omitempty"`
	Percentile *float64 `json:"percentile,omitempty"`
	Tokenizer  string   `json:"tokenizer,omitempty"`
	// Collection names the collection the chunks are for (with RBAC the
	// caller needs create_data on it; on every collection when empty).
	Collection string `json:"collection,omitempty"`
}

// SegmentResponse holds one result per text, in order.
type SegmentResponse struct {
	Method    string   `json:"method"`
	Encoder   string   `json:"encoder"`
	Threshold *float64 `json:"threshold"`
	MaxTokens int      `json:"maxTokens"`
	MinTokens int      `json:"minTokens"`
	Tokenizer string   `json:"tokenizer"`
	Results   []struct {
		Chunks []Chunk `json:"chunks"`
	} `json:"results"`
}

// Chunk is one chunk: Text is the input's bytes [Start, End).
type Chunk struct {
	Text      string `json:"text"`
	Start     int    `json:"start"`
	End       int    `json:"end"`
	Tokens    int    `json:"tokens"`
	Sentences int    `json:"sentences"`
	// Cut flags a piece of a sentence longer than MaxTokens.
	Cut bool `json:"cut,omitempty"`
}

// Segment cuts texts into chunks on the server.
func Segment(ctx context.Context, c RESTRunner, req SegmentRequest) (*SegmentResponse, error) {
	res, err := c.RunREST(ctx, "/modules/diverse-select/segment", http.MethodPost, req)
	if err != nil {
		return nil, err
	}
	if res.StatusCode != http.StatusOK {
		var e struct {
			Error []struct {
				Message string `json:"message"`
			} `json:"error"`
			Message string `json:"message"`
		}
		msg := string(res.Body)
		if json.Unmarshal(res.Body, &e) == nil {
			if len(e.Error) > 0 {
				msg = e.Error[0].Message
			} else if e.Message != "" {
				msg = e.Message
			}
		}
		return nil, fmt.Errorf("segment: status %d: %s", res.StatusCode, msg)
	}
	var out SegmentResponse
	if err := json.Unmarshal(res.Body, &out); err != nil {
		return nil, fmt.Errorf("segment: %w", err)
	}
	return &out, nil
}
