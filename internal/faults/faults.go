// Package faults registers strategies that misbehave on purpose, to prove
// against the real server that a faulty strategy cannot take Weaviate down
// or hang a query. It is linked only into the fault-injection build
// (build tag diverseselect_faults, make weaviate-faults), never into the
// server users run.
package faults

import (
	"context"
	"math"
	"time"

	"github.com/diverse-select/diverse-select/selectors"
)

// Strategy names.
const (
	// Panic panics in Select.
	Panic = "fault-panic"
	// PanicNew panics while the strategy is built from its parameters, which
	// happens during argument parsing, query preparation and class validation.
	PanicNew = "fault-panic-new"
	// Slow works until its context is done (at most SlowMax), checking the
	// context between steps like every strategy's loop.
	Slow = "fault-slow"
	// NaN returns the most relevant candidate with NaN and infinite figures.
	NaN = "fault-nan"
	// Duplicate returns the same candidate twice, which Run must refuse.
	Duplicate = "fault-duplicate"
)

// SlowMax bounds Slow's work when nothing cancels it.
const SlowMax = 60 * time.Second

func init() {
	reg := func(name, doc string, s selectors.Strategy) {
		selectors.Register(selectors.Definition{Name: name, Doc: "fault injection: " + doc,
			New: func(selectors.Params) (selectors.Strategy, error) { return s, nil }})
	}
	reg(Panic, "panics while selecting", strategyFunc(func(context.Context, *selectors.Problem) (*selectors.Result, error) {
		panic("faults: injected panic in Select")
	}))
	selectors.Register(selectors.Definition{Name: PanicNew, Doc: "fault injection: panics while built",
		New: func(selectors.Params) (selectors.Strategy, error) { panic("faults: injected panic in New") }})
	reg(Slow, "works until cancelled", strategyFunc(slow))
	reg(NaN, "returns non-finite figures", strategyFunc(func(ctx context.Context, p *selectors.Problem) (*selectors.Result, error) {
		best := selectors.ByRelevance(p.Candidates)[0]
		c := p.Candidates[best]
		if p.Budget > 0 && c.Tokens > p.Budget {
			return &selectors.Result{Objective: math.NaN()}, nil
		}
		return &selectors.Result{Objective: math.Inf(1), Items: []selectors.Item{
			{Index: best, Gain: math.NaN(), Relevance: math.Inf(-1), Redundancy: math.NaN(), Tokens: c.Tokens},
		}, Stats: map[string]float64{"nan": math.NaN(), "inf": math.Inf(1)}}, nil
	}))
	reg(Duplicate, "selects one candidate twice", strategyFunc(func(ctx context.Context, p *selectors.Problem) (*selectors.Result, error) {
		it := selectors.Item{Index: 0, Tokens: p.Candidates[0].Tokens}
		return &selectors.Result{Items: []selectors.Item{it, it}}, nil
	}))
}

type strategyFunc func(context.Context, *selectors.Problem) (*selectors.Result, error)

func (f strategyFunc) Select(ctx context.Context, p *selectors.Problem) (*selectors.Result, error) {
	return f(ctx, p)
}

// slow stands for an expensive selection: steps of 5 ms with a context check
// between them.
func slow(ctx context.Context, p *selectors.Problem) (*selectors.Result, error) {
	deadline := time.Now().Add(SlowMax)
	for time.Now().Before(deadline) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		time.Sleep(5 * time.Millisecond)
	}
	return selectors.FillInOrder(p, selectors.ByRelevance(p.Candidates), false), nil
}
