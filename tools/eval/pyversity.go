package main

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/diverse-select/diverse-select/selectors"
)

// pyversity, the diversification library behind Haystack's PyversityRanker
// (pinned in requirements/eval-peers.txt), is a peer baseline (issue 42):
// each of its strategies, at its documented default diversity and at
// every diversity of the sweep, on the same pools, vectors and relevances
// as ours. pyversity orders k items; the order is packed into each
// budget as the topk baseline packs relevance order (selectors.FillInOrder:
// an item that does not fit is skipped).

//go:embed pyversity_runner.py
var pyversityRunner string

// pyversityStrategies are pyversity's strategies (pyversity.Strategy);
// pyversityDefault is diversify's documented default diversity.
var (
	pyversityStrategies = []string{"mmr", "msd", "dpp", "cover", "ssd"}
	pyversitySweep      = []float64{0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9}
)

const pyversityDefault = 0.5

// peerPrefix starts the label of every pyversity config.
const peerPrefix = "pyversity "

// pyversityConfigs are the peer rows: per strategy its default
// ("pyversity dpp") and the sweep ("pyversity dpp d=0.3"); the default's
// diversity is run once and shared by both labels.
func pyversityConfigs() []config {
	var out []config
	for _, s := range pyversityStrategies {
		out = append(out, config{Label: peerPrefix + s, Strategy: "pyversity", Params: map[string]any{"strategy": s, "diversity": pyversityDefault}, Peer: true})
		for _, d := range pyversitySweep {
			out = append(out, config{Label: fmt.Sprintf("%s%s d=%.1f", peerPrefix, s, d), Strategy: "pyversity",
				Params: map[string]any{"strategy": s, "diversity": d}, Peer: true})
		}
	}
	return out
}

// peerTime is one pyversity strategy's mean time per pool at its default
// diversity, and ours on the same pools.
type peerTime struct {
	Strategy string
	PerPool  time.Duration
}

// runPyversity runs every peer config on every instance of r's suites
// through the venv's Python and adds their outcomes to r (r.cfgs and
// r.out). It returns the mean wall time per pool of each strategy at its
// default diversity (the call orders the whole pool, which the packing
// needs).
func runPyversity(python string, r *results) ([]peerTime, error) {
	cfgs := pyversityConfigs()
	type setting struct {
		s string
		d float64
	}
	var settings []setting
	index := map[string]int{}
	for _, c := range cfgs {
		st := setting{c.Params["strategy"].(string), c.Params["diversity"].(float64)}
		k := fmt.Sprintf("%s/%.2f", st.s, st.d)
		if _, ok := index[k]; !ok {
			index[k] = len(settings)
			settings = append(settings, st)
		}
	}
	var pools [][2]int
	var body bytes.Buffer
	for _, s := range r.suites {
		for _, in := range s.Insts {
			dims := len(in.Cands[0].Vector)
			pools = append(pools, [2]int{len(in.Cands), dims})
			for _, c := range in.Cands {
				if len(c.Vector) != dims {
					return nil, fmt.Errorf("pyversity: %s %s: vectors of %d and %d dimensions", s.Name, in.ID, dims, len(c.Vector))
				}
				_ = binary.Write(&body, binary.LittleEndian, c.Vector)
			}
			rel := make([]float32, len(in.Cands))
			for i, c := range in.Cands {
				rel[i] = float32(c.Relevance)
			}
			_ = binary.Write(&body, binary.LittleEndian, rel)
		}
	}
	var st [][2]any
	for _, x := range settings {
		st = append(st, [2]any{x.s, x.d})
	}
	header, err := json.Marshal(map[string]any{"settings": st, "pools": pools})
	if err != nil {
		return nil, err
	}
	var in bytes.Buffer
	_ = binary.Write(&in, binary.LittleEndian, uint32(len(header)))
	in.Write(header)
	in.Write(body.Bytes())
	cmd := exec.Command(python, "-c", pyversityRunner)
	cmd.Stdin = &in
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("pyversity runner (%s; `make venv` installs requirements/eval-peers.txt): %w: %s", python, err, strings.TrimSpace(errOut.String()))
	}
	var reply struct {
		Orders  [][][]int `json:"orders"`
		Seconds []float64 `json:"seconds"`
	}
	if err := json.Unmarshal(out.Bytes(), &reply); err != nil {
		return nil, fmt.Errorf("pyversity runner: reply: %w", err)
	}
	if len(reply.Orders) != len(pools) {
		return nil, fmt.Errorf("pyversity runner: %d orders for %d pools", len(reply.Orders), len(pools))
	}
	pi := 0
	for _, s := range r.suites {
		res := r.out[s.Name]
		for _, c := range cfgs {
			res[c.Label] = newOutcome(s)
		}
		for ii, in := range s.Insts {
			for _, c := range cfgs {
				order := reply.Orders[pi][index[fmt.Sprintf("%s/%.2f", c.Params["strategy"], c.Params["diversity"])]]
				for ci, con := range s.Constraints {
					p := &selectors.Problem{Candidates: in.Cands, Budget: con.Budget, MaxResults: con.K}
					sel := selectors.FillInOrder(p, order, false).Indices()
					for mi, v := range s.Score(in, sel, con) {
						res[c.Label].vals[ci][mi][ii] = v
					}
				}
			}
			pi++
		}
	}
	r.cfgs = append(r.cfgs, cfgs...)
	var times []peerTime
	for _, s := range pyversityStrategies {
		sec := reply.Seconds[index[fmt.Sprintf("%s/%.2f", s, pyversityDefault)]]
		times = append(times, peerTime{s, time.Duration(sec / float64(len(pools)) * float64(time.Second))})
	}
	return times, nil
}

// ownTime is the mean wall time per pool of one of our strategies at one
// budget on the suites' pools, on one core.
func ownTime(ctx context.Context, r *results, strategy string, budget int) (time.Duration, error) {
	sel, err := selectors.New(strategy, nil)
	if err != nil {
		return 0, err
	}
	var total time.Duration
	n := 0
	for _, s := range r.suites {
		for _, in := range s.Insts {
			vecs := make([][]float32, len(in.Cands))
			for i, c := range in.Cands {
				vecs[i] = c.Vector
			}
			p := &selectors.Problem{Candidates: in.Cands, Budget: budget, Query: in.Query, Similarities: selectors.NewDenseSimilarities(vecs)}
			t := time.Now()
			if _, err := sel.Run(ctx, p); err != nil {
				return 0, err
			}
			total += time.Since(t)
			n++
		}
	}
	return total / time.Duration(max(n, 1)), nil
}

// peerBest is the best pyversity config for one column: over one
// strategy's settings (strategy given) or over all of them.
func peerBest(r *results, suiteName, metric, strategy string, c constraint, keep func(*instance) bool) (string, float64) {
	label, best := "", math.NaN()
	for _, cf := range r.cfgs {
		if !cf.Peer || (strategy != "" && cf.Params["strategy"] != strategy) {
			continue
		}
		v := r.value(suiteName, cf.Label, metric, c, keep)
		if label == "" || (!lowerIsBetter(metric) && v > best) || (lowerIsBetter(metric) && v < best) {
			label, best = cf.Label, v
		}
	}
	return label, best
}

// peerLabels are the pyversity rows of a table: each strategy at its
// default, then each at its best setting (by column).
func peerLabels() []string {
	var out []string
	for _, s := range pyversityStrategies {
		out = append(out, peerPrefix+s)
	}
	return slices.Concat(out, []string{"pyversity best"})
}
