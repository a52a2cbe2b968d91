package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	dsconfig "github.com/diverse-select/diverse-select/config"
)

// The tune mode (issue 42) is the fast loop for the default's rules: the
// default and the -extra variants against top-k and best-lambda MMR on the
// multi-hop sets only (own and mixed pools), for every -encoders encoder,
// each half apart, in one compact table and one summary line per config.
// Perspectrum, PIR and the ablations are left out, so a run of several
// variants takes a fraction of make eval.

// tuneBudgets are the budgets of the tune mode's columns.
var tuneBudgets = []int{300, 450, 600}

// loadMultiHopSuites builds the own and the mixed suites of every
// multi-hop set with one encoder's vectors.
func loadMultiHopSuites(o options, enc string) ([]*suite, error) {
	e, err := newEnv(o, enc)
	if err != nil {
		return nil, err
	}
	var own, mixed []*suite
	for _, set := range multiHopSets {
		if o.suites != nil && !slices.Contains(o.suites, set.Name) && !slices.Contains(o.suites, set.Name+" mixed") {
			continue
		}
		var qs []hotpotQuestion
		if set.Name == "HotpotQA" {
			qs, err = loadHotpot(o.dataDir)
		} else {
			qs, err = loadMultiHop(filepath.Join(o.dataDir, set.File))
		}
		if err != nil {
			return nil, err
		}
		own = append(own, multiHopSuite(e, set.Name, qs, tuneBudgets))
		mixed = append(mixed, mixedSuite(e, set.Name, qs, tuneBudgets))
	}
	suites := append(own, mixed...)
	if o.suites == nil || slices.Contains(o.suites, "Perspectrum") {
		pd, err := loadPerspectrum(o.dataDir)
		if err != nil {
			return nil, err
		}
		suites = append(suites, perspSuite(e, pd, perspKs))
	}
	if enc != encUSE && (o.suites == nil || slices.Contains(o.suites, "Demo")) { // the stored USE-Lite vectors hold no demo text
		suites = append(suites, demoSuite(e))
	}
	if e.err != nil {
		return nil, e.err
	}
	return suites, nil
}

// tuneResults runs cfgs on one encoder's tune suites (loadMultiHopSuites)
// and, with peers, pyversity's strategies too, with their times per pool.
func tuneResults(ctx context.Context, o options, enc string, cfgs []config, peers bool) (*results, []peerTime, error) {
	suites, err := loadMultiHopSuites(o, enc)
	if err != nil {
		return nil, nil, err
	}
	r, err := runAll(ctx, suites, cfgs)
	if err != nil {
		return nil, nil, err
	}
	r.enc = enc
	var times []peerTime
	if peers {
		if times, err = runPyversity(o.python, r); err != nil {
			return nil, nil, err
		}
	}
	return r, times, nil
}

func runTune(ctx context.Context, o options, w io.Writer) error {
	def := dsconfig.DefaultStrategy
	fill, err := parseConfig(fillBudget)
	if err != nil {
		return err
	}
	cfgs := []config{{Label: def, Strategy: def}, {Label: "topk", Strategy: "topk"}, fill}
	for _, c := range configs(def) {
		if c.Sweep {
			cfgs = append(cfgs, c)
		}
	}
	cfgs = append(cfgs, o.extra...)
	labels := []string{def}
	for _, c := range o.extra {
		labels = append(labels, c.Label)
	}
	for _, enc := range o.encoders {
		t := time.Now()
		r, _, err := tuneResults(ctx, o, enc, cfgs, o.peers)
		if err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "eval: %s: tuned in %s\n", enc, time.Since(t).Round(time.Millisecond))
		printTune(w, r, labels)
		printTypes(w, r, labels)
		printDemo(w, r, append(append([]string{}, labels...), "topk", fillBudget))
		if o.dump != "" {
			if err := dumpTune(o.dump, r); err != nil {
				return err
			}
		}
	}
	return nil
}

// dumpTune appends one JSON line per instance to path: the encoder, suite,
// half and id, the pool statistics a config reported (Result.Stats at the
// lead budget) and every config's metrics per budget (exploration).
func dumpTune(path string, r *results) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	enc := json.NewEncoder(f)
	for _, s := range r.suites {
		for ii, in := range s.Insts {
			row := map[string]any{"enc": r.enc, "suite": s.Name, "half": in.Half, "id": in.ID}
			vals := map[string]any{}
			var stats map[string]float64
			for _, c := range r.cfgs {
				o := r.out[s.Name][c.Label]
				if len(o.stats[ii]) > len(stats) { // the config that reported the most
					stats = o.stats[ii]
				}
				m := map[string]float64{}
				for ci, con := range s.Constraints {
					for mi, name := range s.Metrics {
						if v := o.vals[ci][mi][ii]; !math.IsNaN(v) {
							m[abbrev(name)+"@"+con.String()[2:]] = v
						}
					}
				}
				vals[c.Label] = m
			}
			row["vals"], row["stats"] = vals, stats
			if err := enc.Encode(row); err != nil {
				return err
			}
		}
	}
	return nil
}

// tuneHalves are the halves the tune mode reports apart.
var tuneHalves = []struct {
	name string
	keep func(*instance) bool
}{{"tuning", tuning}, {"held-out", heldOut}}

// questionTypes are the per-type splits (comparisonQuestion): the
// comparison questions and the rest.
var questionTypes = []struct {
	name string
	cmp  bool
}{{"comparison", true}, {"other", false}}

// printTypes prints, per half, the all-gold and answer-in-context of the
// labels and the baselines on HotpotQA's and 2Wiki's own pools split by
// question type (comparisonQuestion).
func printTypes(w io.Writer, r *results, labels []string) {
	rows := append(append([]string{}, labels...), "topk", "mmr best")
	if r.hasPeers() {
		rows = append(rows, "pyversity best")
	}
	for _, name := range []string{"HotpotQA", "2Wiki"} {
		s := r.suite(name)
		if s == nil {
			continue
		}
		for _, h := range tuneHalves {
			for _, typ := range questionTypes {
				keep := func(in *instance) bool { return h.keep(in) && in.Comparison == typ.cmp }
				fmt.Fprintf(w, "\n%s %s %s, %s questions (%d)\n%-30s", r.enc, name, h.name, typ.name, count(s, keep), "")
				ms := []string{allGoldMetric(name), mAnswer}
				for _, m := range ms {
					for _, c := range s.Constraints {
						fmt.Fprintf(w, " %8s", abbrev(m)+"@"+c.String()[2:])
					}
				}
				fmt.Fprintln(w)
				for _, l := range rows {
					fmt.Fprintf(w, "%-30s", trunc(l, 30))
					for _, m := range ms {
						for _, c := range s.Constraints {
							fmt.Fprintf(w, " %8.1f", 100*tuneValue(r, name, l, m, c, keep))
						}
					}
					fmt.Fprintln(w)
				}
			}
		}
	}
}

// printTune prints, per half and suite, each label's row beside top-k's
// and best-lambda MMR's, then per label and half the summary: the mean
// all-gold margin at B = 450 over the better baseline across the sets,
// the worst own-pool cell against it, and the largest ratio of the mixed
// pools' other-question tokens to top-k's.
func printTune(w io.Writer, r *results, labels []string) {
	for _, h := range tuneHalves {
		for _, s := range r.suites {
			fmt.Fprintf(w, "\n%s %s %s (%d)\n%-30s", r.enc, s.Name, h.name, count(s, h.keep), "")
			for _, m := range s.Metrics {
				if m == mRecall || m == mAhead {
					continue
				}
				for _, c := range s.Constraints {
					fmt.Fprintf(w, " %8s", abbrev(m)+"@"+c.String()[2:])
				}
			}
			fmt.Fprintln(w)
			rows := append(append([]string{}, labels...), "topk", "mmr best")
			if r.hasPeers() {
				rows = append(rows, peerLabels()...)
			}
			for _, l := range rows {
				fmt.Fprintf(w, "%-30s", trunc(l, 30))
				for _, m := range s.Metrics {
					if m == mRecall || m == mAhead {
						continue
					}
					for _, c := range s.Constraints {
						v := tuneValue(r, s.Name, l, m, c, h.keep)
						if countMetric(m) {
							fmt.Fprintf(w, " %8.1f", v)
						} else {
							fmt.Fprintf(w, " %8.1f", 100*v)
						}
					}
				}
				fmt.Fprintln(w)
			}
		}
	}
	fmt.Fprintf(w, "\n%s summary: mean all-gold margin at B=450 over the best baseline (topk, best-lambda MMR and, with -peers, pyversity's best) on the 3 sets; worst own cell (all-gold, answer) against it; mixed other tokens / topk's (max)\n", r.enc)
	for _, l := range labels {
		for _, h := range tuneHalves {
			var sum, worst, ratio float64
			worst = 1
			worstAt := ""
			n := 0
			for _, s := range r.suites {
				mixed := strings.HasSuffix(s.Name, " mixed")
				for _, m := range s.Metrics {
					for _, c := range s.Constraints {
						switch {
						case mixed && m == mOtherTok:
							if ref := tuneValue(r, s.Name, "topk", m, c, h.keep); ref > 0 {
								ratio = max(ratio, tuneValue(r, s.Name, l, m, c, h.keep)/ref)
							}
						case !mixed && (m == mAnswer || m == allGoldMetric(s.Name)):
							d := tuneValue(r, s.Name, l, m, c, h.keep) - tuneBest(r, s.Name, m, c, h.keep)
							if d < worst {
								worst, worstAt = d, fmt.Sprintf("%s %s %s", s.Name, abbrev(m), c)
							}
							if m != mAnswer && c.Budget == leadBudget {
								sum += d
								n++
							}
						}
					}
				}
			}
			fmt.Fprintf(w, "%-30s %-8s margin450 %+6.1f  worst %+6.1f (%s)  otok/topk %.2f\n", trunc(l, 30), h.name,
				100*sum/float64(max(n, 1)), 100*worst, worstAt, ratio)
		}
	}
}

// tuneBest is the best baseline of a column: top-k, best-lambda MMR and,
// when it ran, pyversity's best.
func tuneBest(r *results, suiteName, metric string, c constraint, keep func(*instance) bool) float64 {
	v := max(tuneValue(r, suiteName, "topk", metric, c, keep), tuneValue(r, suiteName, "mmr best", metric, c, keep))
	if r.hasPeers() {
		v = max(v, tuneValue(r, suiteName, "pyversity best", metric, c, keep))
	}
	return v
}

// hasPeers reports whether pyversity's rows ran.
func (r *results) hasPeers() bool {
	return slices.ContainsFunc(r.cfgs, func(c config) bool { return c.Peer })
}

// tuneValue is a label's mean, "mmr best" the best lambda's for the column,
// "pyversity best" the best pyversity config's.
func tuneValue(r *results, suiteName, label, metric string, c constraint, keep func(*instance) bool) float64 {
	if label == "pyversity best" {
		_, v := peerBest(r, suiteName, metric, "", c, keep)
		return v
	}
	if label != "mmr best" {
		return r.value(suiteName, label, metric, c, keep)
	}
	best := 0.0
	first := true
	for _, cf := range r.cfgs {
		if !cf.Sweep {
			continue
		}
		v := r.value(suiteName, cf.Label, metric, c, keep)
		if first || (!lowerIsBetter(metric) && v > best) || (lowerIsBetter(metric) && v < best) {
			best, first = v, false
		}
	}
	return best
}

func trunc(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n-1] + "~"
}
