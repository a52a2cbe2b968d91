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
	"time"

	"github.com/maypok86/otter/v2"
	"github.com/sirupsen/logrus"
	"github.com/weaviate/weaviate/entities/models"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/diverse-select/diverse-select/engine"
)

// classes reads collections' schemas from the upstream's REST API with the
// caller's credentials and keeps each, per collection and credentials: a
// caller who may not read a collection's schema never gets it from another
// caller's read. Concurrent misses of one entry are served by one read
// (otter's loader). An entry older than ttl is read again in the
// background while the known schema is served, so that an upstream whose
// REST API is slow (starting, stalled) does not hold a search up; a read
// that the upstream refuses drops the entry; a schema is served at most
// stale old. A read waits at most timeout, then the call is Unavailable.
type classes struct {
	base    *url.URL
	http    *http.Client
	timeout time.Duration
	cache   *otter.Cache[classKey, *models.Class]
}

type classKey struct {
	name string
	who  [sha256.Size]byte
}

// maxClasses bounds the entries kept.
const maxClasses = 4096

// maxSchemaBytes bounds a schema read.
const maxSchemaBytes = 16 << 20

// newClasses keeps schemas ttl fresh, stale at most old, each read within
// timeout.
func newClasses(base *url.URL, httpc *http.Client, ttl, stale, timeout time.Duration, logger logrus.FieldLogger) *classes {
	return &classes{base: base, http: httpc, timeout: timeout, cache: otter.Must(&otter.Options[classKey, *models.Class]{
		MaximumSize:       maxClasses,
		RefreshCalculator: otter.RefreshWriting[classKey, *models.Class](ttl),
		ExpiryCalculator:  otter.ExpiryWriting[classKey, *models.Class](stale),
		Logger:            cacheLogger{logger},
	})}
}

// cacheLogger logs the cache's swallowed errors (a background schema read
// that failed: the known schema stays) through the gateway's logger.
type cacheLogger struct{ l logrus.FieldLogger }

func (c cacheLogger) Warn(_ context.Context, msg string, err error) {
	if c.l != nil {
		c.l.WithError(err).Warn("gateway: schema cache: " + msg)
	}
}

func (c cacheLogger) Error(_ context.Context, msg string, err error) {
	if c.l != nil {
		c.l.WithError(err).Warn("gateway: schema cache: " + msg)
	}
}

// get returns the collection's schema as the caller of ctx may read it.
func (c *classes) get(ctx context.Context, name string) (*models.Class, error) {
	hdr := forwardedHeaders(ctx)
	key := classKey{name: name, who: sha256.Sum256([]byte(fmt.Sprint(hdr)))}
	return c.cache.Get(ctx, key, schemaLoader{c: c, hdr: hdr})
}

// schemaLoader reads a schema for the cache: the first read of a key (Load)
// and the background read of an entry older than ttl (Reload).
type schemaLoader struct {
	c   *classes
	hdr http.Header // the credentials the key's hash names
}

// Load reads the schema within the classes' timeout, whatever the caller
// who missed first does: the callers waiting on the same key get its read.
func (l schemaLoader) Load(ctx context.Context, key classKey) (*models.Class, error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), l.c.timeout)
	defer cancel()
	class, err := l.c.read(ctx, key.name, l.hdr)
	if err != nil && ctx.Err() != nil {
		return nil, status.Errorf(codes.Unavailable, "gateway: upstream Weaviate did not answer the schema read of collection %q within %s (starting or stalled): %s",
			key.name, l.c.timeout, status.Convert(err).Message())
	}
	return class, err
}

// Reload reads the schema again: an answer of the upstream that refuses it
// (the collection gone, the credentials no longer allowed) drops the entry;
// a failure to answer keeps the known schema (otter keeps it on an error).
func (l schemaLoader) Reload(ctx context.Context, key classKey, _ *models.Class) (*models.Class, error) {
	class, err := l.Load(ctx, key)
	switch status.Code(err) {
	case codes.OK, codes.Unavailable, codes.DeadlineExceeded, codes.Canceled, codes.Internal:
		return class, err
	}
	return nil, otter.ErrNotFound
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
