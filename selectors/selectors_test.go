package selectors

import (
	"context"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
)

func TestValidateParams(t *testing.T) {
	specs := []ParamSpec{
		{Name: "lambda", Kind: KindFloat, Default: 0.5, Min: 0, Max: 1},
		{Name: "k", Kind: KindInt, Default: 24, Min: 1, Max: 100},
		{Name: "fit", Kind: KindString, Default: "skip", Enum: []string{"skip", "stop"}},
		{Name: "stop", Kind: KindBool, Default: true},
		{Name: "beta", Kind: KindFloat, Min: 0, Max: math.Inf(1), MinOpen: true},
	}
	cases := []struct {
		name    string
		raw     map[string]any
		want    Params
		wantErr string
	}{
		{"defaults", nil, Params{"lambda": 0.5, "k": 24, "fit": "skip", "stop": true}, ""},
		{"values of every JSON and GraphQL type", map[string]any{"lambda": 1, "k": int64(3), "fit": "stop", "stop": false, "beta": 2.5},
			Params{"lambda": 1.0, "k": 3, "fit": "stop", "stop": false, "beta": 2.5}, ""},
		{"integral float for an int", map[string]any{"k": 7.0}, Params{"lambda": 0.5, "k": 7, "fit": "skip", "stop": true}, ""},
		{"null keeps the default", map[string]any{"lambda": nil}, Params{"lambda": 0.5, "k": 24, "fit": "skip", "stop": true}, ""},
		{"unknown name lists the allowed", map[string]any{"lamda": 0.3}, nil, `parameter "lamda": unknown parameter; allowed: lambda, k, fit, stop, beta`},
		{"above max", map[string]any{"lambda": 1.5}, nil, `parameter "lambda": got 1.5 (float64), want float [0, 1]`},
		{"open bound", map[string]any{"beta": 0}, nil, `want float (0, inf)`},
		{"fraction for an int", map[string]any{"k": 2.5}, nil, `parameter "k"`},
		{"NaN", map[string]any{"lambda": math.NaN()}, nil, `parameter "lambda"`},
		{"string for a number", map[string]any{"lambda": "0.3"}, nil, `want float [0, 1]`},
		{"enum value", map[string]any{"fit": "maybe"}, nil, `want one of skip, stop`},
		{"wrong type for bool", map[string]any{"stop": 1}, nil, `want true or false`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ValidateParams("s", specs, tc.raw)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want it to contain %q", err, tc.wantErr)
				}
				var pe *ParamError
				if !errors.As(err, &pe) || pe.Strategy != "s" {
					t.Errorf("error %T does not name the strategy", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestApplyOrder(t *testing.T) {
	items := func(rel ...float64) []Item {
		out := make([]Item, len(rel))
		for i, r := range rel {
			out[i] = Item{Index: i, Rank: i + 1, Relevance: r}
		}
		return out
	}
	ranks := func(it []Item) []int {
		out := make([]int, len(it))
		for i, x := range it {
			out[i] = x.Rank
		}
		return out
	}
	cases := []struct {
		order Order
		rel   []float64
		want  []int
	}{
		{OrderSelection, []float64{0.1, 0.9, 0.5}, []int{1, 2, 3}},
		{OrderRelevance, []float64{0.1, 0.9, 0.5}, []int{2, 3, 1}},
		{OrderRelevance, []float64{0.5, 0.5}, []int{1, 2}}, // ties: earlier candidate first
		// edges: ranks 1,3,5 from the front, 2,4 from the back
		{OrderEdges, []float64{1, 1, 1, 1, 1}, []int{1, 3, 5, 4, 2}},
		{OrderEdges, []float64{1, 1, 1, 1}, []int{1, 3, 4, 2}},
		{OrderEdges, []float64{1}, []int{1}},
	}
	for _, tc := range cases {
		it := items(tc.rel...)
		applyOrder(tc.order, it)
		if got := ranks(it); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s %v: ranks %v, want %v", tc.order, tc.rel, got, tc.want)
		}
	}
}

func TestDedupRemovesLessRelevantTwins(t *testing.T) {
	p := &Problem{DedupThreshold: 0.95, Candidates: []Candidate{
		{Relevance: 0.5, Tokens: 1, Vector: []float32{1, 0}},
		{Relevance: 0.9, Tokens: 1, Vector: []float32{0.999, 0.04}}, // twin of 0, more relevant
		{Relevance: 0.7, Tokens: 1, Vector: []float32{0, 1}},
		{Relevance: 0.7, Tokens: 1, Vector: []float32{0, 1}}, // exact duplicate of 2, later rank
	}}
	q, kept := dedup(p)
	if want := []int{1, 2}; !reflect.DeepEqual(kept, want) {
		t.Fatalf("kept %v, want %v", kept, want)
	}
	if len(q.Candidates) != 2 || q.Candidates[0].Relevance != 0.9 {
		t.Errorf("reduced problem %+v", q.Candidates)
	}
}

func TestValidateProblem(t *testing.T) {
	good := func() *Problem {
		return &Problem{Candidates: []Candidate{{Relevance: 1, Tokens: 2, Vector: []float32{1, 0}}}}
	}
	cases := []struct {
		name   string
		mutate func(*Problem)
		want   string
	}{
		{"ok", func(*Problem) {}, ""},
		{"NaN relevance", func(p *Problem) { p.Candidates[0].Relevance = math.NaN() }, "non-finite relevance"},
		{"Inf vector", func(p *Problem) { p.Candidates[0].Vector[1] = float32(math.Inf(1)) }, "non-finite vector"},
		{"zero tokens", func(p *Problem) { p.Candidates[0].Tokens = 0 }, "token cost 0"},
		{"negative budget", func(p *Problem) { p.Budget = -1 }, "token budget must be >= 0"},
		{"dimension mismatch", func(p *Problem) {
			p.Candidates = append(p.Candidates, Candidate{Relevance: 1, Tokens: 1, Vector: []float32{1}})
		}, "1 dimensions, others have 2"},
		{"bad order", func(p *Problem) { p.Order = "random" }, "order must be one of"},
		{"dedup above 1", func(p *Problem) { p.DedupThreshold = 1.5 }, "dedupThreshold must be in (0,1]"},
		{"terms with their hashes", func(p *Problem) {
			p.Candidates[0].Terms, p.Candidates[0].TermHashes = []string{"statin", "pain"}, []uint32{1, 2}
		}, ""},
		{"no terms, no hashes", func(p *Problem) { p.Candidates[0].Terms, p.Candidates[0].TermHashes = []string{}, []uint32{} }, ""},
		{"term hashes short", func(p *Problem) {
			p.Candidates[0].Terms, p.Candidates[0].TermHashes = []string{"statin", "pain"}, []uint32{1}
		}, "candidate 0 has 1 term hashes for 2 terms"},
		{"term hashes without terms", func(p *Problem) { p.Candidates[0].TermHashes = []uint32{} }, "0 term hashes for 0 terms"},
	}
	for _, tc := range cases {
		p := good()
		tc.mutate(p)
		err := p.Validate()
		if tc.want == "" {
			if err != nil {
				t.Errorf("%s: %v", tc.name, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, ErrInvalidProblem) {
			t.Errorf("%s: error %v, want ErrInvalidProblem containing %q", tc.name, err, tc.want)
		}
	}
}

// cheat is a strategy that breaks the rules, to check that Run catches it.
type cheat struct{ items []Item }

func (c cheat) Select(context.Context, *Problem) (*Result, error) {
	return &Result{Items: c.items}, nil
}

type panicky struct{}

func (panicky) Select(context.Context, *Problem) (*Result, error) { panic("boom") }

func TestRunCatchesBrokenStrategies(t *testing.T) {
	p := &Problem{Budget: 5, MaxResults: 2, Candidates: []Candidate{
		{Relevance: 1, Tokens: 3}, {Relevance: 0.5, Tokens: 3}, {Relevance: 0.2, Tokens: 1},
	}}
	cases := []struct {
		name string
		impl Strategy
		want string
	}{
		{"duplicate index", cheat{[]Item{{Index: 0}, {Index: 0}}}, "index 0 selected twice"},
		{"out of range", cheat{[]Item{{Index: 7}}}, "out of range"},
		{"over budget", cheat{[]Item{{Index: 0}, {Index: 1}}}, "uses 6 tokens, over the token budget of 5"},
		{"over K", cheat{[]Item{{Index: 0}, {Index: 2}, {Index: 1}}}, "more than maxResults 2"},
		{"panic", panicky{}, "panicked: boom"},
	}
	for _, tc := range cases {
		s := &Selector{Def: Definition{Name: "x"}, impl: tc.impl}
		_, err := s.Run(context.Background(), p)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
}

func TestNewUnknownStrategy(t *testing.T) {
	_, err := New("no-such-strategy", nil)
	var ue *UnknownStrategyError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "allowed:") {
		t.Errorf("got %v, want an UnknownStrategyError listing the allowed names", err)
	}
}
