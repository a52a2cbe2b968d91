package diverseselect

import (
	"strings"

	"github.com/weaviate/weaviate/entities/models"
	"github.com/weaviate/weaviate/usecases/modulecomponents/additional/rank"

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

// crossEncoderRequest reads the settings a rerank property carries for
// another reranker as the field form's arguments, with the property as
// textProperty and the rerank query as the query text.
func (e *engine) crossEncoderRequest(class *models.Class, rp *rank.Params) (*Request, error) {
	r := &Request{e: e, form: formField, hasArgs: true}
	property, raw, err := parseRerankProperty(rp.GetProperty())
	if err != nil {
		return nil, err
	}
	raw[config.KeyTextProperty] = property
	if q := rp.GetQuery(); strings.TrimSpace(q) != "" {
		raw[config.KeyQuery] = q // plain text, as on the rerank route
	}
	if r.query, err = config.Parse(raw, e.defaults.Limits); err != nil {
		return nil, err
	}
	if r.settings, err = e.settingsFor(class, routeField, r.query); err != nil {
		return nil, err
	}
	return r, nil
}
