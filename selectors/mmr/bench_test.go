package mmr

import (
	"testing"

	"github.com/diverse-select/diverse-select/selectors/internal/testprob"
)

func BenchmarkMMR(b *testing.B) { testprob.Bench(b, Name, nil) }
