package main

import (
	"context"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/diverse-select/diverse-select/selectors"
)

// config is one row of the tables: a strategy with parameters.
type config struct {
	Label    string
	Strategy string
	Params   map[string]any
	// Sweep marks the MMR lambda sweep rows; the tables fold them into one
	// "mmr (best lambda)" row per column.
	Sweep bool
	// Peer marks pyversity's rows (pyversity.go), run by its own runner.
	Peer bool
}

// mmrLambdas is the MMR sweep of the issue: lambda in {0.1, ..., 0.9}.
var mmrLambdas = []float64{0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9}

// baselines are the strategies the default must beat: topk, relcost, MMR.
var baselineNames = []string{"topk", "relcost"}

// configs returns every registered strategy with its defaults (the default
// strategy first), then the MMR lambda sweep.
func configs(defaultStrategy string) []config {
	var out []config
	names := selectors.Names()
	slices.SortStableFunc(names, func(a, b string) int {
		switch {
		case a == defaultStrategy:
			return -1
		case b == defaultStrategy:
			return 1
		}
		return strings.Compare(a, b)
	})
	for _, n := range names {
		out = append(out, config{Label: n, Strategy: n})
	}
	for _, l := range mmrLambdas {
		out = append(out, config{Label: fmt.Sprintf("mmr λ=%.1f", l), Strategy: "mmr", Params: map[string]any{"lambda": l}, Sweep: true})
	}
	return out
}

// parseConfig reads "name" or "name:key=value,key=value" (for -extra).
func parseConfig(s string) (config, error) {
	name, args, _ := strings.Cut(s, ":")
	c := config{Label: s, Strategy: name, Params: map[string]any{}}
	if args == "" {
		return c, nil
	}
	for _, kv := range strings.Split(args, ",") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return c, fmt.Errorf("config %q: want key=value, got %q", s, kv)
		}
		switch {
		case v == "true" || v == "false":
			c.Params[k] = v == "true"
		default:
			if f, err := strconv.ParseFloat(v, 64); err == nil {
				c.Params[k] = f
			} else {
				c.Params[k] = v
			}
		}
	}
	return c, nil
}

// outcome is one config on one suite: vals[constraint][metric][instance],
// and copies[constraint][instance], the near-copy pairs of each selection.
type outcome struct {
	vals   [][][]float64
	copies [][]int
	// stats are the Result.Stats of each instance at the middle constraint
	// (the tune mode's dump).
	stats []map[string]float64
}

// nearCopies is the total of near-copy pairs over every instance and constraint.
func (o *outcome) nearCopies() int {
	n := 0
	for _, c := range o.copies {
		for _, x := range c {
			n += x
		}
	}
	return n
}

// mean of one metric at one constraint over the instances keep accepts (nil: all).
func (o *outcome) mean(s *suite, ci, mi int, keep func(*instance) bool) float64 {
	sum, n := 0.0, 0
	for i, in := range s.Insts {
		if keep != nil && !keep(in) {
			continue
		}
		if v := o.vals[ci][mi][i]; !math.IsNaN(v) { // NaN: not measured on this instance
			sum += v
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}

// newOutcome is an empty outcome of one config on s.
func newOutcome(s *suite) *outcome {
	o := &outcome{vals: make([][][]float64, len(s.Constraints)), copies: make([][]int, len(s.Constraints)),
		stats: make([]map[string]float64, len(s.Insts))}
	for ci := range o.vals {
		o.copies[ci] = make([]int, len(s.Insts))
		o.vals[ci] = make([][]float64, len(s.Metrics))
		for mi := range o.vals[ci] {
			o.vals[ci][mi] = make([]float64, len(s.Insts))
		}
	}
	return o
}

// runSuite runs every config on every instance and constraint of s. Each
// worker takes one instance and shares its similarity matrix across runs.
func runSuite(ctx context.Context, s *suite, cfgs []config) (map[string]*outcome, error) {
	sels := make([]*selectors.Selector, len(cfgs))
	out := map[string]*outcome{}
	for i, c := range cfgs {
		sel, err := selectors.New(c.Strategy, c.Params)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.Label, err)
		}
		sels[i] = sel
		out[c.Label] = newOutcome(s)
	}
	errs := make([]error, len(s.Insts))
	parallel(len(s.Insts), func(ii int) {
		in := s.Insts[ii]
		vecs := make([][]float32, len(in.Cands))
		for i, c := range in.Cands {
			vecs[i] = c.Vector
		}
		var sims selectors.Similarities = selectors.NewDenseSimilarities(vecs)
		if s.Engine != nil {
			if e, err := s.Engine(vecs); err == nil {
				sims = e
			}
		}
		keys := make([]uint64, len(in.Cands))
		for i, c := range in.Cands {
			keys[i] = selectors.NormalizedTextHash(c.Text)
		}
		for k, c := range cfgs {
			for ci, con := range s.Constraints {
				p := &selectors.Problem{Candidates: in.Cands, Budget: con.Budget, MaxResults: con.K, Query: in.Query, Similarities: sims}
				res, err := sels[k].Run(ctx, p)
				if err != nil {
					errs[ii] = fmt.Errorf("%s on %s %s %s: %w", c.Label, s.Name, in.ID, con, err)
					return
				}
				sel := res.Indices()
				for mi, v := range s.Score(in, sel, con) {
					out[c.Label].vals[ci][mi][ii] = v
				}
				out[c.Label].copies[ci][ii] = nearCopyPairs(sel, sims, keys)
				if ci == len(s.Constraints)/2 {
					out[c.Label].stats[ii] = res.Stats
				}
			}
		}
	})
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// bestSweep is the best MMR lambda for one column (larger is better except
// for the distractor count) and its mean.
func bestSweep(s *suite, res map[string]*outcome, cfgs []config, ci, mi int, keep func(*instance) bool) (string, float64) {
	lower := lowerIsBetter(s.Metrics[mi])
	bestLabel, best := "", 0.0
	for _, c := range cfgs {
		if !c.Sweep {
			continue
		}
		v := res[c.Label].mean(s, ci, mi, keep)
		if bestLabel == "" || (!lower && v > best) || (lower && v < best) {
			bestLabel, best = c.Label, v
		}
	}
	return bestLabel, best
}

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }

// nearCopyPairs counts the pairs of a selection that are near-copies: a
// cosine of at least selectors.NearCopyCosine on the evaluation's vectors,
// or the same normalised text.
func nearCopyPairs(sel []int, sims selectors.Similarities, keys []uint64) int {
	n := 0
	for a, i := range sel {
		for _, j := range sel[a+1:] {
			if sims.At(i, j) >= selectors.NearCopyCosine || keys[i] == keys[j] {
				n++
			}
		}
	}
	return n
}
