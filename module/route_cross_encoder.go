package diverseselect

import (
	"strings"

	"github.com/weaviate/weaviate/entities/models"

	"github.com/diverse-select/diverse-select/config"
)

// A cross-encoder and diverse selection in one gRPC search. A collection
// whose reranker is another module (reranker-transformers, -cohere, ...)
// gets the gRPC rerank field's call; GraphQL adds diverse selection after it
// with the diverseSelect argument or field, which gRPC has no slot for. When
// such a search's rerank property carries settings (rerank_settings.go: the
// helpers' form), the stage takes the search as the field form would: the
// cross-encoder gets the property by its plain name and scores the pool,
// then the selection runs with its scores as relevance (relevanceSource
// rerank), as over GraphQL. The settings are validated against
// moduleConfig["diverse-select"] and its query policy, as the field's
// arguments are.

// resolveCrossEncoder is the cross-encoder route's entry point: the
// settings the rerank property carries for another reranker, read as the
// field form's arguments with the property as textProperty and the rerank
// query as the query text; an offset above 0 pages.
func resolveCrossEncoder(e *engine, c *entry, class *models.Class, w window, s *searchFacts) (*config.Overrides, *settings, error) {
	s.offset, s.paged = w.offset, w.offset > 0
	property, raw, err := parseRerankProperty(c.rerank.GetProperty())
	if err != nil {
		return nil, nil, err
	}
	raw[config.KeyTextProperty] = property
	if q := c.rerank.GetQuery(); strings.TrimSpace(q) != "" {
		raw[config.KeyQuery] = q // plain text, as on the rerank route
	}
	query, err := config.Parse(raw, e.defaults.Limits)
	if err != nil {
		return nil, nil, err
	}
	st, err := e.settingsFor(class, c.route, query)
	if err != nil {
		return nil, nil, err
	}
	return query, st, nil
}
