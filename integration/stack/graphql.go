package stack

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
)

// QueryGet posts a GraphQL query to baseURL/v1/graphql and decodes the
// objects returned for class (data.Get.<class>) into out. A GraphQL error
// becomes an error carrying the server's message.
func QueryGet(ctx context.Context, baseURL, class, query string, out any) error {
	return QueryGetWith(ctx, http.DefaultClient, baseURL, class, query, out)
}

// QueryGetWith is QueryGet through hc (a load client's own pool). It reads
// the whole reply, so the keep-alive connection goes back to hc's pool.
func QueryGetWith(ctx context.Context, hc *http.Client, baseURL, class, query string, out any) error {
	body, err := json.Marshal(map[string]string{"query": query})
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, baseURL+"/v1/graphql", bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	var reply struct {
		Data struct {
			Get map[string]json.RawMessage `json:"Get"`
		} `json:"data"`
		Errors []struct {
			Message string `json:"message"`
		} `json:"errors"`
	}
	if err := json.Unmarshal(raw, &reply); err != nil {
		return fmt.Errorf("graphql reply (HTTP %d): %w: %.200s", resp.StatusCode, err, raw)
	}
	if len(reply.Errors) > 0 {
		return fmt.Errorf("graphql: %s", reply.Errors[0].Message)
	}
	objects, ok := reply.Data.Get[class]
	if !ok {
		return fmt.Errorf("graphql reply has no objects of class %s", class)
	}
	return json.Unmarshal(objects, out)
}
