package adagres

import (
	"testing"

	"github.com/diverse-select/diverse-select/selectors/internal/testprob"
)

func BenchmarkAdaGReS(b *testing.B) { testprob.Bench(b, Name, nil) }
