package stack

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
)

// QueryGet posts a GraphQL query to baseURL/v1/graphql and decodes the
// objects returned for class (data.Get.<class>) into out. A GraphQL error
// becomes an error carrying the server's message.
func QueryGet(ctx context.Context, baseURL, class, query string, out any) error {
	body, err := json.Marshal(map[string]string{"query": query})
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, baseURL+"/v1/graphql", bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var reply struct {
		Data struct {
			Get map[string]json.RawMessage `json:"Get"`
		} `json:"data"`
		Errors []struct {
			Message string `json:"message"`
		} `json:"errors"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&reply); err != nil {
		return fmt.Errorf("graphql reply (HTTP %d): %w", resp.StatusCode, err)
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
