package cluster

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/weaviate/weaviate-go-client/v5/weaviate/data/replication"
	"github.com/weaviate/weaviate/entities/models"

	"github.com/diverse-select/diverse-select/integration/stack"
)

// MultiClass holds multi-vector (ColBERT-style) objects on both deployments.
const MultiClass = "ClusterMulti"

// multiCorpus: 10 topics of 4-6 random 16-dimensional vectors, each planted
// as 3 perturbed, reordered copies; the query is close to three topics.
func multiCorpus() (sets map[string][][]float32, query [][]float32) {
	rng := rand.New(rand.NewPCG(19, 3))
	vec := func(base []float32, eps float64) []float32 {
		v := make([]float32, 16)
		for j := range v {
			v[j] = float32(eps * rng.NormFloat64())
			if base != nil {
				v[j] += base[j]
			}
		}
		return v
	}
	sets = map[string][][]float32{}
	for k := range 10 {
		var topic [][]float32
		for range 4 + rng.IntN(3) {
			topic = append(topic, vec(nil, 1))
		}
		if k < 3 {
			query = append(query, vec(topic[0], 0.3), vec(topic[1], 0.3))
		}
		for c := range 3 {
			var set [][]float32
			for _, p := range rng.Perm(len(topic)) {
				set = append(set, vec(topic[p], 0.05))
			}
			sets[fmt.Sprintf("m%d-%d", k, c)] = set
		}
	}
	return sets, query
}

// TestClusterMultiVector: on a multi-vector target every node of the
// cluster (3 shards, replication factor 3) selects what the single node
// selects, in both GraphQL forms and both multiVector modes: the
// coordinating node merges the shards' candidates with their multi-vectors
// and the module selects once.
func TestClusterMultiVector(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	sets, q := multiCorpus()
	for _, target := range []struct {
		url           string
		shards, nodes int64
	}{{cl.Nodes[0].HTTPURL, 3, 3}, {single.HTTPURL, 1, 1}} {
		c := client(t, target.url)
		class := &models.Class{
			Class: MultiClass,
			VectorConfig: map[string]models.VectorConfig{"colbert": {
				Vectorizer:      map[string]any{"none": map[string]any{}},
				VectorIndexType: "hnsw",
				// ef above the corpus size: exact search, the same pool on both deployments.
				VectorIndexConfig: map[string]any{"ef": 512, "multivector": map[string]any{"enabled": true}},
			}},
			Properties:        []*models.Property{{Name: "body", DataType: []string{"text"}}},
			ShardingConfig:    map[string]any{"desiredCount": target.shards},
			ReplicationConfig: &models.ReplicationConfig{Factor: target.nodes},
		}
		if err := c.Schema().ClassCreator().WithClass(class).Do(ctx); err != nil {
			t.Fatalf("create %s on %s: %v", MultiClass, target.url, err)
		}
		var objs []*models.Object
		for key, set := range sets {
			objs = append(objs, &models.Object{Class: MultiClass, ID: uuidOf(key),
				Properties: map[string]any{"body": "chunk " + key}, Vectors: models.Vectors{"colbert": set}})
		}
		resp, err := c.Batch().ObjectsBatcher().WithObjects(objs...).WithConsistencyLevel(replication.ConsistencyLevel.ALL).Do(ctx)
		if err != nil {
			t.Fatalf("import into %s: %v", target.url, err)
		}
		for _, r := range resp {
			if r.Result != nil && r.Result.Errors != nil && len(r.Result.Errors.Error) > 0 {
				t.Fatalf("import into %s: %s", target.url, r.Result.Errors.Error[0].Message)
			}
		}
	}
	rows := make([]string, len(q))
	for i, v := range q {
		parts := make([]string, len(v))
		for j, x := range v {
			parts[j] = fmt.Sprint(x)
		}
		rows[i] = "[" + strings.Join(parts, ", ") + "]"
	}
	near := fmt.Sprintf(`nearVector: {vector: [%s], targetVectors: ["colbert"]}`, strings.Join(rows, ", "))
	run := func(url, q string) []string {
		var hits []struct {
			Body string `json:"body"`
		}
		if err := stack.QueryGet(ctx, url, MultiClass, q, &hits); err != nil {
			t.Fatalf("%s: %v\nquery: %s", url, err, q)
		}
		out := make([]string, len(hits))
		for i, h := range hits {
			out[i] = h.Body
		}
		return out
	}
	top := run(single.HTTPURL, fmt.Sprintf(`{ Get { %s(%s, limit: 4) { body } } }`, MultiClass, near))
	for _, mode := range []string{"maxsim", "mean"} {
		for _, s := range []string{"mmr", "coverage"} {
			settings := fmt.Sprintf(`strategy: %q, multiVector: %q, maxResults: 4`, s, mode)
			for form, q := range map[string]string{
				"argument": fmt.Sprintf(`{ Get { %s(%s, limit: 4, diverseSelect: {%s, candidates: 20}) { body } } }`, MultiClass, near, settings),
				"field":    fmt.Sprintf(`{ Get { %s(%s, limit: 20) { body _additional { diverseSelect(%s) { rank } } } } }`, MultiClass, near, settings),
			} {
				want := run(single.HTTPURL, q)
				if equal(want, top) {
					t.Errorf("%s/%s/%s selects the nearVector head %v: no diverse selection ran", mode, s, form, want)
				}
				for i, n := range cl.Nodes {
					if got := run(n.HTTPURL, q); !equal(got, want) {
						t.Errorf("%s/%s/%s on node %d selects %v, the single node %v", mode, s, form, i+1, got, want)
					}
				}
			}
		}
	}
}
