package engine

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/go-openapi/strfmt"
	"github.com/stretchr/testify/require"
	"github.com/weaviate/weaviate/entities/models"
	"github.com/weaviate/weaviate/entities/search"
	"github.com/weaviate/weaviate/entities/vectorindex/hnsw"

	"github.com/diverse-select/diverse-select/selectors/coverage"
)

// multiClass has one named vector, "mv", a multi-vector.
func multiClass() *models.Class {
	return &models.Class{
		Class:      "Doc",
		Properties: []*models.Property{{Name: "body", DataType: []string{"text"}}},
		VectorConfig: map[string]models.VectorConfig{"mv": {Vectorizer: map[string]any{"none": map[string]any{}},
			VectorIndexType: "hnsw", VectorIndexConfig: hnsw.UserConfig{Multivector: hnsw.MultivectorConfig{Enabled: true}}}},
	}
}

// multiResults are n results of multiClass with tok vectors of dim each and
// MaxSim distances (minus a sum of dot products: negative, best first).
func multiResults(n, tok, dim int) []search.Result {
	rng := rand.New(rand.NewPCG(9, uint64(n)))
	out := make([]search.Result, n)
	for i := range out {
		set := make([][]float32, tok)
		for k := range set {
			set[k] = make([]float32, dim)
			for j := range set[k] {
				set[k][j] = float32(rng.NormFloat64())
			}
		}
		out[i] = search.Result{ID: strfmt.UUID(fmt.Sprintf("00000000-0000-4000-8000-%012d", i)), ClassName: "Doc",
			Dist: -float32(n-i) / 4, Vectors: models.Vectors{"mv": set}, Schema: map[string]any{"body": fmt.Sprintf("chunk %d", i)}}
	}
	return out
}

// TestHookMultiVector: a multi-vector target is selected from under both
// modes and every vector strategy; relevance is the MaxSim score min-max over
// the pool; the packed vectors count against the matrix cap (maxsim only) and
// in the in-flight estimate; the time cap stops a long MaxSim matrix; bad
// multi-vectors are invalid data, not a crash.
func TestHookMultiVector(t *testing.T) {
	class := multiClass()
	m := New(func(string) *models.Class { return class })
	in := multiResults(40, 8, 16)
	for _, mode := range []string{"maxsim", "mean"} {
		for _, st := range []string{"coverage", "mmr", "adagres", "dpp", "facility", "knapsack"} {
			args := map[string]any{"strategy": st, "multiVector": mode, "maxResults": 5}
			if st == "knapsack" {
				args["concepts"] = "clusters"
			}
			out, err := runHook(t, m, in, args)
			require.NoError(t, err, "%s %s", mode, st)
			require.NotEmpty(t, out)
			for _, o := range out {
				ds := o.AdditionalProperties[ArgName].(map[string]any)
				require.Equal(t, "distance", ds["relevanceSource"])
				r := ds["relevance"].(float64)
				require.True(t, r >= 0 && r <= 1, "relevance %v not min-max normalised", r)
				if o.ID == in[0].ID {
					require.Equal(t, 1.0, r, "the best MaxSim score has relevance 1")
				}
			}
		}
	}

	t.Run("matrix cap counts the packed vectors", func(t *testing.T) {
		big := multiResults(200, 64, 32) // 1.6 MiB of packed vectors
		capped := New(func(string) *models.Class { return class })
		capped.defaults.MaxMatrixMB = 1
		_, err := runHook(t, capped, big, map[string]any{"strategy": "mmr", "multiVector": "maxsim"})
		require.ErrorContains(t, err, "DIVERSE_SELECT_MAX_MATRIX_MB")
		require.ErrorContains(t, err, `multiVector: "mean"`)
		require.ErrorContains(t, err, "12800 vectors of 32 dimensions")
		require.Equal(t, kindCapExceeded, errorKind(err))
		_, err = runHook(t, capped, big, map[string]any{"strategy": "mmr", "multiVector": "mean"})
		require.NoError(t, err, "mean keeps one pooled vector per candidate")

		p, err := m.newPlan(class, routeArgument, nil, searchFacts{targets: []string{"mv"}})
		require.NoError(t, err)
		require.True(t, p.multiVector)
		need := m.selectionBytes(p, big, nil)
		require.EqualValues(t, 200*min(200, coverage.DefaultTargets)*4+200*64*32*4+200*32*4+problemTextBytes(p, big, nil), need,
			"coverage's kernel block (N x targets), the packed and the pooled vectors")
	})

	t.Run("time cap stops the MaxSim matrix", func(t *testing.T) {
		slow := New(func(string) *models.Class { return class })
		slow.defaults.MaxSelectTime = time.Millisecond
		_, err := runHook(t, slow, multiResults(300, 32, 128), map[string]any{"strategy": "facility"})
		require.ErrorContains(t, err, "DIVERSE_SELECT_MAX_SELECT_TIME")
	})

	t.Run("bad multi-vectors", func(t *testing.T) {
		for name, v := range map[string]models.Vector{
			"empty":       [][]float32{},
			"mixed dims":  [][]float32{{1, 2}, {1}},
			"single":      []float32{1, 2},
			"not present": nil,
		} {
			bad := multiResults(5, 2, 2)
			bad[3].Vectors = models.Vectors{"mv": v}
			if v == nil {
				bad[3].Vectors = nil
			}
			_, err := runHook(t, m, bad, map[string]any{"strategy": "mmr"})
			require.Error(t, err, name)
			require.Equal(t, kindInvalidData, errorKind(err), "%s: %v", name, err)
			require.ErrorContains(t, err, bad[3].ID.String())
		}
	})
}
