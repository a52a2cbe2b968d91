package all_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/diverse-select/diverse-select/selectors"
	"github.com/diverse-select/diverse-select/selectors/internal/testprob"
)

// TestMatrixCap: a strategy that forms N x N matrices is refused above
// Problem.MaxMatrixBytes with an error naming the need and the cap; the
// strategies that read only rows run under any cap.
func TestMatrixCap(t *testing.T) {
	p := testprob.Random(rand.New(rand.NewPCG(1, 2)), testprob.Options{N: 100, Dim: 8, Budget: 500})
	const n2 = 100 * 100 * 4 // one float32 matrix: 40000 bytes
	for _, tc := range []struct {
		strategy string
		params   map[string]any
		cap      int64
		err      string // "" = runs
	}{
		{"facility", nil, 0, ""},
		{"facility", nil, n2, ""},
		{"facility", nil, n2 - 1, `strategy "facility" needs 0.0 MiB of N x N matrices for 100 candidates, above the cap of 0.0 MiB`},
		{"facility", map[string]any{"kernel": "euclidean"}, n2, "needs"},
		{"facility", map[string]any{"kernel": "euclidean"}, 2 * n2, ""},
		{"facility", map[string]any{"nnz": 5}, n2, "needs"},
		{"adagres", nil, 1, ""},
		{"mmr", nil, 1, ""},
		{"dpp", nil, 1, ""},
	} {
		s, err := selectors.New(tc.strategy, tc.params)
		require.NoError(t, err)
		q := *p
		q.Similarities = nil
		q.MaxMatrixBytes = tc.cap
		_, err = s.Run(context.Background(), &q)
		if tc.err == "" {
			require.NoError(t, err, "%s %v cap %d", tc.strategy, tc.params, tc.cap)
			continue
		}
		require.Error(t, err, "%s %v cap %d", tc.strategy, tc.params, tc.cap)
		require.True(t, errors.Is(err, selectors.ErrMatrixTooLarge))
		require.Contains(t, err.Error(), tc.err)
	}
	q := *p
	q.MaxMatrixBytes = -1
	_, err := selectors.New("topk", nil)
	require.NoError(t, err)
	require.ErrorIs(t, q.Validate(), selectors.ErrInvalidProblem)
}

// TestPositivePairSum: the helper, DenseSimilarities' method and the
// pair-by-pair fallback agree.
func TestPositivePairSum(t *testing.T) {
	p := testprob.Random(rand.New(rand.NewPCG(3, 4)), testprob.Options{N: 40, Dim: 6})
	dense := p.Sims()
	for _, idx := range [][]int{nil, {3}, {0, 1, 2, 3, 4}, {39, 2, 17, 5}} {
		var want float64
		for a := range idx {
			for b := a + 1; b < len(idx); b++ {
				want += float64(max(0, dense.At(idx[a], idx[b])))
			}
		}
		require.InDelta(t, want, selectors.PositivePairSum(dense, idx), 1e-9)
		require.InDelta(t, want, selectors.PositivePairSum(atOnly{dense}, idx), 1e-9)
	}
}

// atOnly hides every optional method of an engine.
type atOnly struct{ selectors.Similarities }
