package engine

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/weaviate/weaviate/entities/dto"
	"github.com/weaviate/weaviate/entities/filters"
	"github.com/weaviate/weaviate/entities/models"
	"github.com/weaviate/weaviate/entities/search"
	"github.com/weaviate/weaviate/entities/searchparams"
	"github.com/weaviate/weaviate/usecases/modulecomponents/additional/rank"
	"google.golang.org/grpc/metadata"
)

// TestOneResolutionPerQuery: on every route a query's settings are resolved
// exactly once - the widened query's second search included - and the
// stage's own params never reach the pool's search as a hook.
func TestOneResolutionPerQuery(t *testing.T) {
	class := docClass()
	class.ModuleConfig = map[string]any{RerankerName: map[string]any{"strategy": "topk"}}
	other := docClass()
	other.Class = "Other"
	other.ModuleConfig = map[string]any{"reranker-transformers": map[string]any{}}
	m := New(func(name string) *models.Class {
		if name == "Other" {
			return other
		}
		return class
	})
	crossEncoder := rerankParams(20, 0, "body|"+RerankSettingsVersion+`|{"strategy":"topk"}`, "q")
	crossEncoder.ClassName = "Other"
	// Copies of one object: the selection keeps one and asks for a wider pool.
	copies := results(30, 1)
	for i := range copies {
		copies[i].Schema = map[string]any{"body": "the same chunk of text, copied"}
		copies[i].Vector = copies[0].Vector
	}
	for _, tc := range []struct {
		name     string
		params   dto.GetParams
		in       []search.Result
		searches int
	}{
		{"argument", argumentParams(t, m, map[string]any{"strategy": "mmr"}), results(40, 1), 1},
		{"field", fieldParams(t, m, 20, map[string]any{"strategy": "mmr"}), results(40, 1), 1},
		{"rerank", rerankParams(20, 0, "body", "q"), results(40, 1), 1},
		{"rerank with settings", rerankParams(20, 0, "body|"+RerankSettingsVersion+`|{"maxResults":2}`, "q"), results(40, 1), 1},
		{"cross-encoder and selection", crossEncoder, results(40, 1), 1},
		{"widened", fieldParams(t, m, 10, map[string]any{"strategy": "mmr", "widenTo": 30, "dedupThreshold": 0.9}), copies, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := m.resolutions.Load()
			out, f, err := runStage(m, tc.params, tc.in)
			require.NoError(t, err)
			require.NotEmpty(t, out)
			require.Equal(t, int64(1), m.resolutions.Load()-before, "settings resolved once")
			require.Len(t, f.pools, tc.searches)
			for _, p := range f.pools {
				require.NotContains(t, p.AdditionalProperties.ModuleParams, ArgName)
				if rp, ok := p.AdditionalProperties.ModuleParams[RerankProperty].(*rank.Params); ok {
					require.Equal(t, "Other", p.ClassName, "only another reranker runs on the pool")
					require.Equal(t, "body", rp.GetProperty(), "by the property's plain name")
				}
			}
		})
	}
}

// TestRerankOptionsFromMetadata: a gRPC search's rerank settings reach the
// stage through the incoming metadata the rerank-options glue sets, and only
// for the property they name.
func TestRerankOptionsFromMetadata(t *testing.T) {
	whole := "body|" + RerankSettingsVersion + `|{"maxResults":2}`
	plain := "body"
	ctx := metadata.NewIncomingContext(context.Background(), metadata.Pairs(rerankOptionsMetadata, whole))
	require.Equal(t, whole, withRerankOptions(ctx, &rank.Params{Property: &plain}).GetProperty())
	title := "title"
	require.Equal(t, "title", withRerankOptions(ctx, &rank.Params{Property: &title}).GetProperty())
	require.Equal(t, "body", withRerankOptions(context.Background(), &rank.Params{Property: &plain}).GetProperty())

	class := docClass()
	class.ModuleConfig = map[string]any{RerankerName: map[string]any{"strategy": "topk"}}
	m := New(func(string) *models.Class { return class })
	f := &fakeSearch{in: results(10, 1)}
	out, selected, err := m.SelectResults(ctx, rerankParams(10, 0, "body", "q"), f.search)
	require.True(t, selected)
	require.NoError(t, err)
	require.Len(t, out, 2, "maxResults from the options")
	require.True(t, strings.HasPrefix(out[0].ExplainScore, "diverseSelect: rank 1"))
}

// TestStageRefuses: a selection cannot be combined with Weaviate's own MMR,
// groupBy or a cursor; each is refused by name before the search runs.
func TestStageRefuses(t *testing.T) {
	m := New(func(string) *models.Class { return docClass() })
	for _, tc := range []struct {
		name string
		edit func(*dto.GetParams)
		want string
	}{
		{"Weaviate's MMR", func(p *dto.GetParams) {
			p.Selection = &searchparams.Selection{MMR: &searchparams.SelectionMMR{Limit: 3}}
		}, `Weaviate's own MMR selection: choose one - for diverse selection drop the search's MMR and give strategy "mmr"`},
		{"groupBy", func(p *dto.GetParams) { p.GroupBy = &searchparams.GroupBy{Property: "body"} }, "groupBy"},
		{"a cursor", func(p *dto.GetParams) { p.Cursor = &filters.Cursor{After: "x", Limit: 3} }, "after"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := argumentParams(t, m, nil)
			tc.edit(&p)
			_, f, err := runStage(m, p, results(10, 1))
			require.ErrorContains(t, err, tc.want)
			require.Empty(t, f.pools, "refused before the search")
		})
	}
}

// TestDistanceSearchBounded: a search by distance without a limit fetches at
// most one candidate beyond the module's cap, and a larger pool is refused.
func TestDistanceSearchBounded(t *testing.T) {
	m := New(func(string) *models.Class { return docClass() })
	m.defaults.MaxCandidates = 60
	p := fieldParams(t, m, 0, nil)
	p.Pagination.Limit = filters.LimitFlagSearchByDist
	_, f, err := runStage(m, p, results(100, 1))
	require.ErrorContains(t, err, "61 candidates exceed the module's cap of 60")
	require.Equal(t, 61, f.pools[0].Pagination.Limit)
	out, _, err := runStage(m, p, results(20, 1))
	require.NoError(t, err)
	require.NotEmpty(t, out)
}

// TestPoolSearchPanic: a panic in the pool's search (Weaviate's) is that
// search's error, logged, not the module's.
func TestPoolSearchPanic(t *testing.T) {
	m := New(func(string) *models.Class { return docClass() })
	_, selected, err := m.SelectResults(context.Background(), argumentParams(t, m, nil),
		func(context.Context, dto.GetParams) ([]search.Result, error) { panic("search bug") })
	require.True(t, selected)
	require.ErrorContains(t, err, "the search panicked")
	require.NotContains(t, err.Error(), ArgName, "not named as the module's")
}
