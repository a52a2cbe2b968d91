package selectors

import (
	"context"
	"testing"
)

// TestStopReason: Run reads why a selection ended when the strategy did not
// say, and keeps what a strategy says.
func TestStopReason(t *testing.T) {
	three := []Candidate{{Relevance: 1, Tokens: 3}, {Relevance: 0.5, Tokens: 3}, {Relevance: 0.2, Tokens: 2}}
	cases := []struct {
		name  string
		p     Problem
		items []Item
		said  StopReason
		want  StopReason
		left  int
	}{
		{"maxResults reached", Problem{MaxResults: 1, Candidates: three}, []Item{{Index: 0}}, "", StopMaxResults, 0},
		{"every candidate taken", Problem{Candidates: three}, []Item{{Index: 0}, {Index: 1}, {Index: 2}}, "", StopPool, 0},
		{"nothing left fits", Problem{Budget: 7, Candidates: three}, []Item{{Index: 0, Tokens: 3}, {Index: 1, Tokens: 3}}, "", StopBudget, 1},
		{"a fitting candidate left out", Problem{Budget: 9, Candidates: three}, []Item{{Index: 0, Tokens: 3}, {Index: 1, Tokens: 3}}, "", StopPrice, 3},
		{"the strategy says", Problem{Budget: 9, Candidates: three}, []Item{{Index: 0, Tokens: 3}}, StopBudget, StopBudget, 6},
		{"earlier pages count as taken", Problem{Candidates: three, Preselected: []int{0, 1}}, []Item{{Index: 2}}, "", StopPool, 0},
	}
	for _, tc := range cases {
		s := &Selector{Def: Definition{Name: "x", Continues: true}, impl: said{cheat{tc.items}, tc.said}}
		res, err := s.Run(context.Background(), &tc.p)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if res.Stop != tc.want || res.TokensLeft() != tc.left {
			t.Errorf("%s: stop %q, %d tokens left; want %q, %d", tc.name, res.Stop, res.TokensLeft(), tc.want, tc.left)
		}
	}
}

// said is a strategy that states its stop reason.
type said struct {
	cheat
	stop StopReason
}

func (s said) Select(ctx context.Context, p *Problem) (*Result, error) {
	res, err := s.cheat.Select(ctx, p)
	res.Stop = s.stop
	return res, err
}
