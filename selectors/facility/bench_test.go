package facility

import (
	"testing"

	"github.com/diverse-select/diverse-select/selectors/internal/testprob"
)

func BenchmarkFacility(b *testing.B) { testprob.Bench(b, Name, nil) }
