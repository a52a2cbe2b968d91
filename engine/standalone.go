package engine

import (
	"context"
	"fmt"

	"github.com/sirupsen/logrus"
	"github.com/weaviate/weaviate/entities/dto"
	"github.com/weaviate/weaviate/entities/models"
	"github.com/weaviate/weaviate/entities/search"

	"github.com/diverse-select/diverse-select/config"
	"github.com/diverse-select/diverse-select/simcache"
)

// Standalone is the engine outside Weaviate: the gateway (package gateway,
// cmd/gateway) runs it in front of a stock Weaviate. A query goes through
// the same selection stage as inside Weaviate (arrivalOf, resolve, search the
// pool, select, widen, read the selected objects); only the search and the
// reads by id are the gateway's, calls to the upstream Weaviate.
type Standalone struct{ e *Engine }

// NewStandalone starts an engine with the module's defaults from getenv
// (the DIVERSE_SELECT_* variables; nil: the process environment) and its
// external selector plugins.
func NewStandalone(getenv func(string) string, logger logrus.FieldLogger) (*Standalone, error) {
	e := New(func(string) *models.Class { return nil }) // each query brings its class (Select)
	if logger != nil {
		e.logger = logger
	}
	if err := e.startPlugins(); err != nil {
		return nil, fmt.Errorf("%s: %w", Name, err)
	}
	defaults, err := config.FromEnv(getenv)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", Name, err)
	}
	e.defaults = defaults
	e.features = simcache.NewFeatureCache(defaults.FeatureCacheBytes())
	e.inflight = newInflight(defaults)
	return &Standalone{e: e}, nil
}

// Engine is the engine itself, for the segmentation endpoint's handler
// (package segmentapi) the gateway serves: its tokenizers and defaults.
func (s *Standalone) Engine() *Engine { return s.e }

// Defaults are the module's defaults and limits in force.
func (s *Standalone) Defaults() config.Module { return s.e.defaults }

// Select runs the selection stage on a query of class (the collection as
// its caller sees it, with the gateway's defaults as its RerankerName
// config): selected is false when the query does not select (no rerank on
// a collection that configures RerankerName, no settings in the rerank
// property). searchPool runs the pool's search, told what the selection
// reads of it (PoolSearch), read reads objects by id
// (both upstream). Errors carry their gRPC status, as on the module's own
// routes.
func (s *Standalone) Select(ctx context.Context, class *models.Class, params dto.GetParams, searchPool PoolSearch, read MultiGetFunc) ([]search.Result, bool, error) {
	return s.e.selectWith(ctx, params, nil, origin{class: class, read: read, searchReads: searchPool})
}

// IsReranker tells Weaviate's reranker modules apart (by name).
func (s *Standalone) IsReranker(name string) bool { return s.e.isReranker(name) }

// ValidateConfig checks a collection's defaults as reranker-diverse-select
// checks its class config, but for the names of properties and vectors,
// which ValidateClass checks once the collection's schema is known.
func (s *Standalone) ValidateConfig(raw map[string]any) error {
	return config.ValidateClassKeys(raw, s.e.defaults)
}

// ValidateClass checks class's RerankerName config against its schema, as
// the reranker does when a collection is created or updated.
func (s *Standalone) ValidateClass(class *models.Class) error {
	return s.e.ValidateRerankerClass(class)
}

// CacheStats are the feature cache's counters.
func (s *Standalone) CacheStats() simcache.CacheStats { return s.e.features.Stats() }

// Close ends the plugin processes.
func (s *Standalone) Close() { s.e.Close() }

// Precheck refuses, before anything is asked of the upstream, a rerank
// call over the module's limits or with settings the collection's
// defaults (the gateway's file, nil: none) and policy refuse - the
// property's size and settings (keys, values, list lengths, depth, the
// strategy's parameters), the query text's bytes and terms, a pool (the
// query limit) over the candidate cap or the policy's - with the error and
// status the rerank route gives. Only the checks against the collection's
// schema wait for it (Select).
func (s *Standalone) Precheck(collection string, defaults map[string]any, property, query string, limit int) error {
	if err := s.precheck(collection, defaults, property, query, limit); err != nil {
		return withStatus(Named(routes[routeRerank].errPrefix, err)) // the rerank route's prefix
	}
	return nil
}

func (s *Standalone) precheck(collection string, defaults map[string]any, property, query string, limit int) error {
	e := s.e
	if defaults == nil {
		defaults = map[string]any{}
	}
	class := &models.Class{Class: collection, ModuleConfig: map[string]any{RerankerName: defaults}}
	q, err := e.rerankOverrides(class, property, query) // as the rerank route reads them
	if err != nil {
		return err
	}
	if limit > e.defaults.MaxCandidates {
		return candidateCapError(limit, e.defaults.MaxCandidates)
	}
	classOverrides, err := config.Parse(defaults, e.defaults.Limits)
	if err != nil {
		return fmt.Errorf("class %s has an invalid %s config: %w", collection, RerankerName, err)
	}
	if err := checkPolicy(class, RerankerName, q); err != nil {
		return err
	}
	if err := checkPoolPolicy(class, RerankerName, limit); err != nil {
		return err
	}
	_, err = config.Merge(e.defaults, classOverrides, q)
	return err
}
