package hookorder_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/diverse-select/diverse-select/hookorder"
	diverseselect "github.com/diverse-select/diverse-select/module"
)

func TestNames(t *testing.T) {
	tests := []struct {
		name  string
		hooks []string
		want  []string
	}{
		{"none", nil, []string{}},
		{"one", []string{"generate"}, []string{"generate"}},
		{"selection before generate", []string{"generate", "diverseSelect"}, []string{"diverseSelect", "generate"}},
		{"rerank before generate", []string{"generate", "rerank"}, []string{"rerank", "generate"}},
		{"the whole pipeline", []string{"generate", "diverseSelect", "rerank"}, []string{"rerank", "diverseSelect", "generate"}},
		{"other hooks between selection and generate, by name",
			[]string{"generate", "nearestNeighbors", "diverseSelect", "featureProjection", "rerank"},
			[]string{"rerank", "diverseSelect", "featureProjection", "nearestNeighbors", "generate"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hooks := map[string]any{}
			for _, h := range tt.hooks {
				hooks[h] = struct{}{}
			}
			// Map order is random: the same answer every time.
			for range 50 {
				assert.Equal(t, tt.want, hookorder.Names(hooks))
			}
		})
	}
}

// The selection's name is the module's. (Weaviate's "rerank" and "generate"
// live in a package that drags in its t-SNE projector; the integration tests
// of generate and rerank show those two names in force.)
func TestDiverseSelectIsTheModulesName(t *testing.T) {
	assert.Equal(t, diverseselect.ArgName, hookorder.DiverseSelect)
}
