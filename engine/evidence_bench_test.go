package engine

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/go-openapi/strfmt"
	"github.com/weaviate/weaviate/entities/models"
	"github.com/weaviate/weaviate/entities/search"

	"github.com/diverse-select/diverse-select/config"
	"github.com/diverse-select/diverse-select/internal/corpus"
)

// BenchmarkEvidenceCards is what evidence cards add to the default's
// selection through the module (problem, selection, output) at N = 100,
// d = 768, on the demo corpus's chunks, the feature cache warm as in
// steady state: side by side, whole chunks, cards always, and auto at a
// budget tight enough that it makes cards. With cards the budget holds more
// (smaller) items, so the selection itself has more steps too.
func BenchmarkEvidenceCards(b *testing.B) {
	chunks := corpus.Chunks()
	rng := rand.New(rand.NewPCG(100, 768))
	in := make([]search.Result, 100)
	for i := range in {
		v := make([]float32, 768)
		for j := range v {
			v[j] = float32(rng.NormFloat64())
		}
		c := chunks[i%len(chunks)]
		in[i] = search.Result{ID: strfmt.UUID(fmt.Sprintf("00000000-0000-4000-8000-%012d", i)), ClassName: "Doc",
			Dist: float32(i) / 200, Vector: v, Updated: 1, Schema: map[string]any{"body": c.Text()}}
	}
	class := docClass()
	m := New(func(string) *models.Class { return class })
	for _, mode := range []string{"off", "cards", "auto"} {
		args := map[string]any{"tokenBudget": 150, "query": "statin side effects muscle pain", "evidence": mode}
		r := &Request{e: m, route: routeArgument}
		var err error
		if r.overrides, err = config.Parse(args, m.defaults.Limits); err != nil {
			b.Fatal(err)
		}
		run := func() []search.Result {
			out, err := m.selectStage(context.Background(), in, r)
			if err != nil {
				b.Fatal(err)
			}
			return out
		}
		out := run() // fills the feature cache
		if _, card := out[0].AdditionalProperties[ArgName].(map[string]any)["evidence"].(string); card != (mode != "off") {
			b.Fatalf("evidence %s: card %v", mode, card)
		}
		b.Run("N=100/evidence="+mode, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				run()
			}
		})
	}
}
