package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/weaviate/weaviate/entities/models"

	"github.com/diverse-select/diverse-select/config"
	diverseselect "github.com/diverse-select/diverse-select/module"
)

// SegmentPath is the module's segmentation endpoint (docs/segmentation.md),
// which a stock Weaviate does not have: the gateway serves it with the
// module's own handler, so the helpers' import_documents segments through
// either. The caller is checked by the upstream with the caller's own
// credentials: authenticated (GET /v1/meta answers 2xx), and, for a request
// that names a collection, allowed to read that collection's schema - the
// upstream answers that; its create_data permission it checks when the
// chunks are written, which the caller does with its own client.
const SegmentPath = "/v1/modules/diverse-select/segment"

// segmentCheckTimeout bounds each question to the upstream about a caller.
const segmentCheckTimeout = 10 * time.Second

// authHeader carries the caller's Authorization header to authorize.
type authHeader struct{}

// newSegment is the segment route, with the DIVERSE_SELECT_SEGMENT_*
// encoders and limits (a bad value refuses the start, as the module's).
func (g *Gateway) newSegment() (http.Handler, error) {
	cfg, err := config.SegmentFromEnv(g.opts.Getenv)
	if err != nil {
		return nil, fmt.Errorf("gateway: %w", err)
	}
	upstream := strings.TrimRight(g.opts.UpstreamHTTP, "/")
	httpc := &http.Client{Transport: g.http.Transport, Timeout: segmentCheckTimeout}
	ask := func(ctx context.Context, auth, path string) (int, string, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, upstream+path, nil)
		if err != nil {
			return 0, "", err
		}
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		res, err := httpc.Do(req)
		if err != nil {
			return 0, "", err
		}
		defer res.Body.Close()
		body, _ := io.ReadAll(io.LimitReader(res.Body, 4096))
		return res.StatusCode, upstreamMessage(body), nil
	}
	authenticated := func(*http.Request) (*models.Principal, error) { return &models.Principal{}, nil }
	authorize := func(ctx context.Context, _ *models.Principal, _ string, resources ...string) error {
		auth, _ := ctx.Value(authHeader{}).(string)
		for _, res := range resources {
			// data/collections/{name}/shards/*/objects/*; "*" (no collection named): authentication only.
			parts := strings.Split(res, "/")
			if len(parts) < 3 || parts[2] == "*" {
				continue
			}
			code, msg, err := ask(ctx, auth, "/v1/schema/"+url.PathEscape(parts[2]))
			switch {
			case err != nil:
				return fmt.Errorf("segment: the upstream did not answer whether the caller may use collection %q: %v", parts[2], err)
			case code == http.StatusNotFound:
				return fmt.Errorf("segment: collection %q: the upstream has no such collection", parts[2])
			case code/100 != 2:
				return fmt.Errorf("segment: collection %q: the upstream refused the caller (status %d): %s", parts[2], code, msg)
			}
		}
		return nil
	}
	inner := diverseselect.SegmentHandler(g.engine.Engine(), cfg, authenticated, authorize)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost { // the module's handler answers any other method
			auth := r.Header.Get("Authorization")
			code, msg, err := ask(r.Context(), auth, "/v1/meta")
			if err != nil {
				writeSegmentError(w, http.StatusBadGateway, "segment: the upstream did not answer the authentication of the caller: "+err.Error())
				return
			}
			if code/100 != 2 {
				writeSegmentError(w, code, "segment: "+msg)
				return
			}
			r = r.WithContext(context.WithValue(r.Context(), authHeader{}, auth))
		}
		inner.ServeHTTP(w, r)
	}), nil
}

// upstreamMessage is the message of Weaviate's error body, or the body.
func upstreamMessage(body []byte) string {
	var e models.ErrorResponse
	if json.Unmarshal(body, &e) == nil && len(e.Error) > 0 && e.Error[0] != nil {
		return e.Error[0].Message
	}
	var m struct{ Message string }
	if json.Unmarshal(body, &m) == nil && m.Message != "" {
		return m.Message
	}
	return strings.TrimSpace(string(body))
}

// writeSegmentError answers in Weaviate's error body, as the module does.
func writeSegmentError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(models.ErrorResponse{Error: []*models.ErrorResponseErrorItems0{{Message: msg}}})
}
