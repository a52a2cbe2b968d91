package main

import (
	"bytes"
	"fmt"
	"runtime"
	"slices"
	"time"

	"github.com/diverse-select/diverse-select/selectors/coverage"
)

// The tables of the large mode (large.go): per dataset and encoder at the
// detail pools, a summary by pool size, and the wall times.

// largeCell is "all (tuning / held-out)" of one column.
func largeCell(val func(keep func(*instance) bool) float64) string {
	return fmt.Sprintf("%s (%s / %s)", pct(val(nil)), pct(val(tuning)), pct(val(heldOut)))
}

// largeTable writes one dataset's table for one encoder: a row per config
// (MMR at its best lambda per column and subset), the ceiling rows, and a
// column per pool size and constraint, on the dataset's first metric.
func largeTable(b *bytes.Buffer, r *largeRun, si int, cfgs []config) {
	const mi = 0
	pools := detailed(r.pools)
	var head []string
	head = append(head, "strategy")
	for _, n := range pools {
		for _, c := range r.suites[n][si].Constraints {
			head = append(head, fmt.Sprintf("N=%d %s", n, c))
		}
	}
	col := func(f func(s *suite, res map[string]*outcome, ci int) string) []string {
		var row []string
		for _, n := range pools {
			s := r.suites[n][si]
			for ci := range s.Constraints {
				row = append(row, f(s, r.res[n].out[s.Name], ci))
			}
		}
		return row
	}
	var rows [][]string
	for _, c := range cfgs {
		if c.Sweep {
			continue
		}
		label := rowLabel(c)
		rows = append(rows, append([]string{label}, col(func(s *suite, res map[string]*outcome, ci int) string {
			return largeCell(func(keep func(*instance) bool) float64 { return res[c.Label].mean(s, ci, mi, keep) })
		})...))
	}
	rows = append(rows, append([]string{"`mmr`, best lambda per column and subset"}, col(func(s *suite, res map[string]*outcome, ci int) string {
		return largeCell(func(keep func(*instance) bool) float64 { _, v := bestSweep(s, res, cfgs, ci, mi, keep); return v })
	})...))
	ceiling := func(s *suite, ci int, f func(in *instance, c constraint) float64) string {
		return largeCell(func(keep func(*instance) bool) float64 {
			sum, k := 0.0, 0
			for _, in := range s.Insts {
				if keep == nil || keep(in) {
					sum += f(in, s.Constraints[ci])
					k++
				}
			}
			return sum / float64(max(k, 1))
		})
	}
	rows = append(rows, append([]string{"ceiling: " + ceilingName(r.suites[r.pools[0]][si])}, col(func(s *suite, _ map[string]*outcome, ci int) string {
		return ceiling(s, ci, func(in *instance, c constraint) float64 { return poolCeiling(in, c) })
	})...))
	if r.suites[r.pools[0]][si].Oracle != nil {
		rows = append(rows, append([]string{"oracle: both gold in the pool and within the budget"}, col(func(s *suite, _ map[string]*outcome, ci int) string {
			return ceiling(s, ci, func(in *instance, c constraint) float64 { return s.Oracle(in, c)[mi] })
		})...))
	}
	table(b, head, rows)
}

// detailed is the pools of the per-dataset tables: those of detailPools that
// ran, or every pool that ran when none of them did.
func detailed(pools []int) []int {
	var out []int
	for _, n := range pools {
		if slices.Contains(detailPools, n) {
			out = append(out, n)
		}
	}
	if len(out) == 0 {
		return pools
	}
	return out
}

// sizeTable writes one encoder's summary by pool size: a row per config, a
// column per dataset and pool at the dataset's middle constraint, all
// instances.
func sizeTable(b *bytes.Buffer, r *largeRun, cfgs []config) {
	const mi = 0
	head := []string{"strategy"}
	type column struct {
		s   *suite
		res map[string]*outcome
		ci  int
	}
	var cols []column
	for si := range r.suites[r.pools[0]] {
		for _, n := range r.pools {
			s := r.suites[n][si]
			ci := len(s.Constraints) / 2
			head = append(head, fmt.Sprintf("%s %s N=%d", s.Name, s.Constraints[ci], n))
			cols = append(cols, column{s, r.res[n].out[s.Name], ci})
		}
	}
	row := func(label string, val func(c column) float64) []string {
		out := []string{label}
		for _, c := range cols {
			out = append(out, pct(val(c)))
		}
		return out
	}
	var rows [][]string
	for _, c := range cfgs {
		if !c.Sweep {
			rows = append(rows, row(rowLabel(c), func(col column) float64 { return col.res[c.Label].mean(col.s, col.ci, mi, nil) }))
		}
	}
	rows = append(rows, row("`mmr`, best lambda per column", func(col column) float64 {
		_, v := bestSweep(col.s, col.res, cfgs, col.ci, mi, nil)
		return v
	}))
	rows = append(rows, row("ceiling: gold in the pool", func(col column) float64 {
		sum := 0.0
		for _, in := range col.s.Insts {
			sum += poolCeiling(in, col.s.Constraints[col.ci])
		}
		return sum / float64(max(1, len(col.s.Insts)))
	}))
	table(b, head, rows)
}

// rowLabel names a row: coverage's rows by their targets, the default's in
// bold; any other config (an -extra one too) by its label.
func rowLabel(c config) string {
	t, ok := c.Params["targets"].(int)
	if c.Strategy != "coverage" || !ok {
		return "`" + c.Label + "`"
	}
	label := fmt.Sprintf("`coverage`, targets %d", t)
	switch t {
	case 0:
		return label + " (exact)"
	case coverage.DefaultTargets:
		return "**" + label + " (default)**"
	}
	return label
}

func ceilingName(s *suite) string {
	if s.Oracle != nil {
		return "both gold in the pool"
	}
	return "clusters in the pool"
}

// largeReport renders the generated part of the section "Large pools:
// coverage's targets" of docs/quality.md.
func largeReport(runs []*largeRun, cfgs []config, elapsed time.Duration, nq, nc, nParas, nPersp int) string {
	var b bytes.Buffer
	fmt.Fprintf(&b, "Generated by `make eval-large` (`go run ./tools/eval -mode large`) in %s on %d cores. "+
		"HotpotQA: %d questions; the corpus is every distinct paragraph of the dataset's questions (%d, title + \"\\n\" + paragraph); per question "+
		"the pool is the top N of the corpus by the encoder's cosine to the question. Perspectrum: %d claims; the corpus is every "+
		"perspective of the train and dev claims (%d); per claim the pool is the top N by cosine to the claim. Relevance = cosine to the "+
		"query, token costs in cl100k_base, metrics as in the library tables (HotpotQA: both supporting paragraphs selected within "+
		"the budget B; Perspectrum: cluster coverage at K). Each cell: all instances (tuning half / held-out half: first and second "+
		"half of the questions and claims). MMR is the best lambda of 0.1 ... 0.9 per column and subset (an oracle choice).\n\n",
		elapsed, runtime.NumCPU(), nq, nParas, nc, nPersp)
	for _, r := range runs {
		for si, s := range r.suites[r.pools[0]] {
			fmt.Fprintf(&b, "#### %s, %s\n\n", s.Name, encoderTitle(r.enc))
			largeTable(&b, r, si, cfgs)
		}
	}
	b.WriteString("#### By pool size\n\n")
	b.WriteString("The same measurement at every pool size of the run, at one budget and one K, all instances; the ceiling row is " +
		"both gold paragraphs in the pool (HotpotQA) or the clusters the pool holds (Perspectrum).\n\n")
	for _, r := range runs {
		fmt.Fprintf(&b, "%s:\n\n", encoderTitle(r.enc))
		sizeTable(&b, r, cfgs)
	}
	b.WriteString("#### Wall time of one selection\n\n")
	fmt.Fprintf(&b, "Median wall time of one selection (packing the pool's vectors into the module's similarity engine and the strategy's "+
		"run), timed on one goroutine in the same run, configs interleaved per query, over the first %d questions at B = %d and the "+
		"first %d claims at K = %d; for direction only (the machine was shared: `make bench` makes the quoted measurements).\n\n",
		largeTimed, hotpotBudgets[len(hotpotBudgets)/2], largeTimed, perspKs[len(perspKs)/2])
	head := []string{"strategy"}
	for _, r := range runs {
		for _, n := range r.pools {
			head = append(head, fmt.Sprintf("%s N=%d", r.enc, n))
		}
	}
	var rows [][]string
	for _, c := range timedConfigs(cfgs) {
		row := []string{"`" + c.Label + "`"}
		for _, r := range runs {
			for _, n := range r.pools {
				row = append(row, fmtDuration(r.times[n][c.Label]))
			}
		}
		rows = append(rows, row)
	}
	table(&b, head, rows)
	return b.String()
}

func fmtDuration(d time.Duration) string {
	if d >= time.Millisecond {
		return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond))
	}
	return fmt.Sprintf("%.0f µs", float64(d)/float64(time.Microsecond))
}
