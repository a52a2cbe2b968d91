package dpp

import (
	"testing"

	"github.com/diverse-select/diverse-select/selectors/internal/testprob"
)

func BenchmarkDPP(b *testing.B) { testprob.Bench(b, Name, nil) }
