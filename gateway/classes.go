package gateway

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/weaviate/weaviate/entities/models"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/diverse-select/diverse-select/engine"
)

// classes reads collections' schemas from the upstream's REST API with the
// caller's credentials and keeps each for a while, per collection and
// credentials: a caller who may not read a collection's schema never gets
// it from another caller's read.
type classes struct {
	base *url.URL
	http *http.Client
	ttl  time.Duration

	mu      sync.Mutex
	entries map[classKey]classEntry
}

type classKey struct {
	name string
	who  [sha256.Size]byte
}

type classEntry struct {
	class *models.Class
	until time.Time
}

func newClasses(base *url.URL, httpc *http.Client, ttl time.Duration) *classes {
	return &classes{base: base, http: httpc, ttl: ttl, entries: map[classKey]classEntry{}}
}

// maxClasses bounds the entries kept (a new one beyond it clears them).
const maxClasses = 4096

// maxSchemaBytes bounds a schema read.
const maxSchemaBytes = 16 << 20

// get returns the collection's schema as the caller of ctx may read it.
func (c *classes) get(ctx context.Context, name string) (*models.Class, error) {
	hdr := forwardedHeaders(ctx)
	key := classKey{name: name, who: sha256.Sum256([]byte(fmt.Sprint(hdr)))}
	now := time.Now()
	c.mu.Lock()
	e, ok := c.entries[key]
	c.mu.Unlock()
	if ok && now.Before(e.until) {
		return e.class, nil
	}
	class, err := c.read(ctx, name, hdr)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if len(c.entries) >= maxClasses {
		clear(c.entries)
	}
	c.entries[key] = classEntry{class: class, until: now.Add(c.ttl)}
	c.mu.Unlock()
	return class, nil
}

func (c *classes) read(ctx context.Context, name string, hdr http.Header) (*models.Class, error) {
	u := c.base.JoinPath("v1", "schema", name)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, status.Errorf(codes.InvalidArgument, "collection %q: %v", name, err)
	}
	req.Header = hdr
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, upstreamStatus(fmt.Errorf("read the schema of %q: %w", name, err))
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxSchemaBytes))
	if err != nil {
		return nil, upstreamStatus(fmt.Errorf("read the schema of %q: %w", name, err))
	}
	if resp.StatusCode != http.StatusOK {
		return nil, c.unlessStarting(ctx, status.Errorf(httpCode(resp.StatusCode), "gateway: upstream Weaviate: the schema of collection %q: %s: %s",
			name, resp.Status, strings.TrimSpace(string(body))))
	}
	var class models.Class
	if err := json.Unmarshal(body, &class); err != nil {
		return nil, status.Errorf(codes.Internal, "gateway: upstream Weaviate: the schema of collection %q: %v", name, err)
	}
	return &class, nil
}

// unlessStarting is err, or Unavailable when the upstream says it is not
// ready: a Weaviate that is starting (its schema not loaded yet) answers
// searches with errors of every kind, which to the caller are one thing -
// the database is not available yet.
func (c *classes) unlessStarting(ctx context.Context, err error) error {
	switch status.Code(err) {
	case codes.OK, codes.Unavailable, codes.DeadlineExceeded, codes.Canceled:
		return err
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
	defer cancel()
	req, rerr := http.NewRequestWithContext(ctx, http.MethodGet, c.base.JoinPath("v1", ".well-known", "ready").String(), nil)
	if rerr != nil {
		return err
	}
	resp, rerr := c.http.Do(req)
	if rerr == nil {
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			return err // ready: the error is Weaviate's answer
		}
	}
	return status.Error(codes.Unavailable, "gateway: upstream Weaviate is not ready: "+status.Convert(err).Message())
}

// httpCode is the gRPC code of an upstream REST status, as Weaviate's own
// gRPC API answers the same refusal.
func httpCode(s int) codes.Code {
	switch s {
	case http.StatusUnauthorized:
		return codes.Unauthenticated
	case http.StatusForbidden:
		return codes.PermissionDenied
	case http.StatusNotFound:
		return codes.NotFound
	case http.StatusBadRequest, http.StatusUnprocessableEntity:
		return codes.InvalidArgument
	case http.StatusTooManyRequests:
		return codes.ResourceExhausted
	case http.StatusServiceUnavailable, http.StatusBadGateway, http.StatusGatewayTimeout:
		return codes.Unavailable
	}
	return codes.Unknown
}

// forwardedHeaders are the caller's credentials and Weaviate's own headers
// (X-Weaviate-*, a module's X-...-Api-Key) from its gRPC metadata, as REST
// headers: the gateway holds no credentials of its own.
func forwardedHeaders(ctx context.Context) http.Header {
	md, _ := metadata.FromIncomingContext(ctx)
	h := http.Header{}
	for k, v := range md {
		if k == "authorization" || strings.HasPrefix(k, "x-") {
			for _, s := range v {
				h.Add(k, s)
			}
		}
	}
	return h
}

// withDefaults is class with the gateway's defaults for it as
// moduleConfig[reranker-diverse-select]: a collection the config file
// names, or, when the rerank property carries settings, any collection
// that configures no other reranker (it selects with the module's
// defaults and the settings).
func withDefaults(class *models.Class, defaults map[string]any, settings bool, isReranker func(string) bool) *models.Class {
	mc, _ := class.ModuleConfig.(map[string]any)
	if defaults == nil {
		if !settings {
			return class
		}
		for name := range mc {
			if isReranker(name) && name != engine.RerankerName {
				return class // its reranker scores the pool, then the selection
			}
		}
		defaults = map[string]any{}
	}
	out := *class
	next := maps.Clone(mc)
	if next == nil {
		next = map[string]any{}
	}
	next[engine.RerankerName] = maps.Clone(defaults)
	out.ModuleConfig = next
	return &out
}
