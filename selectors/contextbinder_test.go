package selectors

import (
	"context"
	"errors"
	"testing"
)

// bindingSims is a dense engine that records the context Run binds.
type bindingSims struct {
	*DenseSimilarities
	bound context.Context
}

func (b *bindingSims) BindContext(ctx context.Context) { b.bound = ctx }

// TestRunBindsContext: Run hands a ContextBinder engine the selection's
// context, and a selection whose context ended while it ran fails with the
// context's error even when the strategy returned a result (the engine's
// values are then meaningless); without a binder the result stands.
func TestRunBindsContext(t *testing.T) {
	cands := []Candidate{{Relevance: 1, Tokens: 1, Vector: []float32{1, 0}}, {Relevance: 0.5, Tokens: 1, Vector: []float32{0, 1}}}
	pick := cheat{[]Item{{Index: 0, Tokens: 1}}}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tc := range []struct {
		name    string
		ctx     context.Context
		binder  bool
		wantErr bool
	}{
		{"binder, live context", context.Background(), true, false},
		{"binder, context ended", cancelled, true, true},
		{"no binder, context ended", cancelled, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &Problem{Candidates: cands}
			var b *bindingSims
			if tc.binder {
				b = &bindingSims{DenseSimilarities: NewDenseSimilarities([][]float32{{1, 0}, {0, 1}})}
				p.Similarities = b
			}
			s := &Selector{Def: Definition{Name: "x"}, impl: pick}
			res, err := s.Run(tc.ctx, p)
			if tc.binder && b.bound != tc.ctx {
				t.Errorf("Run bound %v, want the selection's context", b.bound)
			}
			if tc.wantErr != (err != nil) || (err != nil && (!errors.Is(err, context.Canceled) || res != nil)) {
				t.Errorf("Run: %v, %v; want an error %v wrapping context.Canceled", res, err, tc.wantErr)
			}
		})
	}
}
