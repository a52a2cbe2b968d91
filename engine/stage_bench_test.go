//go:build unix

package engine

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-openapi/strfmt"
	"github.com/weaviate/weaviate/entities/dto"
	"github.com/weaviate/weaviate/entities/filters"
	"github.com/weaviate/weaviate/entities/models"
	"github.com/weaviate/weaviate/entities/search"
	"github.com/weaviate/weaviate/usecases/modulecomponents/additional/rank"
	"github.com/weaviate/weaviate/usecases/modulecomponents/arguments/nearText"

	"github.com/diverse-select/diverse-select/internal/corpus"
)

// BenchmarkRerankStage is the module's share of a gRPC rerank query as
// tools/bench sends it (the default strategy, tokenBudget 1500, maxResults
// 10 in the class's reranker config, nearText, properties title and body),
// without the search: the pool's search is a list read as ids and scores,
// the reads by id come from a map, the feature cache is warm. cpu-ns/op is
// the process's CPU time per query (garbage collection and helper
// goroutines included), steadier than ns/op on a shared machine; the cold
// runs time the query with the processor's caches holding other data. The pool is
// made like the server bench's corpus: a topic's title and 4 to 14 of its
// sentences, vectors of 768 dimensions near their topic's.
func BenchmarkRerankStage(b *testing.B) {
	for _, n := range benchPools {
		m, params, searchPool := benchStage(n)
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			cpu := processCPU()
			for b.Loop() {
				out, selected, err := m.SelectResults(context.Background(), params, searchPool)
				if err != nil || !selected || len(out) == 0 {
					b.Fatal(err, selected, len(out))
				}
			}
			b.ReportMetric(float64(processCPU()-cpu)/float64(b.N), "cpu-ns/op")
		})
		// Cold: the processor's caches hold other data when the query
		// comes, as in a server whose search and reply ran in between
		// (the feature cache entries, vectors and texts are read from
		// memory); only the query is timed.
		b.Run(fmt.Sprintf("N=%d/cold", n), func(b *testing.B) {
			other := make([]byte, 64<<20)
			for b.Loop() {
				b.StopTimer()
				for i := 0; i < len(other); i += 64 {
					other[i]++
				}
				b.StartTimer()
				out, selected, err := m.SelectResults(context.Background(), params, searchPool)
				if err != nil || !selected || len(out) == 0 {
					b.Fatal(err, selected, len(out))
				}
			}
		})
	}
}

// benchStage is BenchmarkRerankStage's engine, query and pool search over
// a pool of n.
func benchStage(n int) (*Engine, dto.GetParams, SearchPool) {
	pool := benchPool(n)
	class := &models.Class{Class: "Doc", Properties: []*models.Property{
		{Name: "title", DataType: []string{"text"}}, {Name: "body", DataType: []string{"text"}}},
		ModuleConfig: map[string]any{RerankerName: map[string]any{"textProperty": "body", "tokenBudget": 1500, "maxResults": 10}}}
	m := New(func(string) *models.Class { return class })
	m.multiGet = newStore(pool).multiGet
	searchPool := func(_ context.Context, p dto.GetParams) ([]search.Result, error) {
		out := make([]search.Result, min(len(pool), p.Pagination.Limit))
		for i := range out {
			out[i] = pool[i]
			out[i].Schema, out[i].Vector = map[string]any{"id": pool[i].ID}, nil
		}
		return out, nil
	}
	property := "body"
	params := dto.GetParams{ClassName: "Doc", Pagination: &filters.Pagination{Limit: n},
		ModuleParams: map[string]any{"nearText": &nearText.NearTextParams{
			Values: []string{"What side effects can statins cause, and how are they managed?"}}},
		Properties:           search.SelectProperties{{Name: "title", IsPrimitive: true}, {Name: "body", IsPrimitive: true}},
		AdditionalProperties: additionalWith(RerankProperty, &rank.Params{Property: &property})}
	return m, params, searchPool
}

// BenchmarkGrowStack is whether growStack pays: BenchmarkRerankStage's
// query, each on a goroutine of its own as a server serves a call, through
// SelectResults (grown: growStack first) and through the same steps without
// growStack (unaided: the runtime grows the stack as the stage goes down).
// Read runtime.newstack in each way's CPU profile (-cpuprofile, one way a
// run): on a shared machine the time per query varies more than the
// difference. growStack stays while grown shows the less.
func BenchmarkGrowStack(b *testing.B) {
	for _, n := range []int{100, 1000} {
		m, params, searchPool := benchStage(n)
		ctx := context.Background()
		ways := []struct {
			name string
			run  func() ([]search.Result, error)
		}{
			{"grown", func() ([]search.Result, error) {
				out, _, err := m.SelectResults(ctx, params, searchPool)
				return out, err
			}},
			{"unaided", func() ([]search.Result, error) {
				c := m.arrivalOf(ctx, params, nil)
				c.read = m.multiGet
				return m.runStage(ctx, c, params, searchPool)
			}},
		}
		for _, w := range ways {
			b.Run(fmt.Sprintf("N=%d/%s", n, w.name), func(b *testing.B) {
				cpu := processCPU()
				done := make(chan error)
				for b.Loop() {
					go func() {
						out, err := w.run()
						if err == nil && len(out) == 0 {
							err = fmt.Errorf("nothing selected")
						}
						done <- err
					}()
					if err := <-done; err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(processCPU()-cpu)/float64(b.N), "cpu-ns/op")
			})
		}
	}
}

// benchPool is n search results made like tools/bench's corpus, in order of
// distance, updated long ago (so the feature cache takes them).
func benchPool(n int) []search.Result {
	type topic struct {
		title     string
		sentences []string
		centre    []float32
	}
	const dims = 768
	rng := rand.New(rand.NewPCG(0xbe7c4, uint64(n)))
	topics := map[string]*topic{}
	var order []string
	for _, c := range corpus.Chunks() {
		t := topics[c.Topic]
		if t == nil {
			t = &topic{title: c.Title, centre: make([]float32, dims)}
			for j := range t.centre {
				t.centre[j] = float32(rng.NormFloat64())
			}
			topics[c.Topic] = t
			order = append(order, c.Topic)
		}
		t.sentences = append(t.sentences, strings.SplitAfter(c.Body, ". ")...)
	}
	out := make([]search.Result, n)
	for i := range out {
		t := topics[order[i%len(order)]]
		parts := make([]string, 4+rng.IntN(11))
		for j := range parts {
			parts[j] = strings.TrimSpace(t.sentences[rng.IntN(len(t.sentences))])
		}
		v := make([]float32, dims)
		var norm float64
		for j := range v {
			v[j] = t.centre[j] + 0.8*float32(rng.NormFloat64())
			norm += float64(v[j]) * float64(v[j])
		}
		for j := range v {
			v[j] /= float32(math.Sqrt(norm))
		}
		docID := uint64(i)
		out[i] = search.Result{ID: strfmt.UUID(fmt.Sprintf("00000000-0000-4000-8000-%012d", i)), ClassName: "Doc",
			Dist: 0.2 + 0.6*float32(i)/float32(n), Vector: v, Updated: 1000, DocID: &docID,
			Schema: map[string]any{"title": t.title, "body": strings.Join(parts, " ")}}
	}
	return out
}

// processCPU is the process's user and system CPU time.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// benchPools are tools/bench's candidate pools.
var benchPools = []int{100, 500, 1000, 2000}
