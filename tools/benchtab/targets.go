package main

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// selectionTarget is one speed target of selection alone (issue 17), at
// d = 768, K = 10, budget 1500.
type selectionTarget struct {
	strategy, n string
	maxMS       float64
}

var selectionTargets = []selectionTarget{
	{"coverage", "100", 0.15}, {"coverage", "1000", 3}, {"coverage", "2000", 8},
	{"adagres", "100", 0.1}, {"mmr", "100", 0.1},
}

// cellRE reads a time from a strategy-grid cell ("3.46 ms · 1.0 MiB · 206").
var cellRE = regexp.MustCompile(`^\s*([0-9.]+) (ns|µs|ms)`)

// gridTimes reads a rendered go-strategies section back: strategy|N|d ->
// time per query in ns.
func gridTimes(section string) map[string]float64 {
	out := map[string]float64{}
	var d string
	var ns []string
	for _, line := range strings.Split(section, "\n") {
		switch {
		case strings.HasPrefix(line, "d = "):
			d = strings.TrimSuffix(strings.Fields(line)[2], ",")
		case strings.HasPrefix(line, "| strategy |"):
			ns = ns[:0]
			for _, c := range strings.Split(line, "|")[2:] {
				if f := strings.Fields(c); len(f) == 3 {
					ns = append(ns, f[2])
				}
			}
		case strings.HasPrefix(line, "| ") && !strings.HasPrefix(line, "|---"):
			cells := strings.Split(line, "|")
			if len(cells) < 3 {
				continue
			}
			s := strings.TrimSpace(cells[1])
			for i, c := range cells[2 : len(cells)-1] {
				m := cellRE.FindStringSubmatch(c)
				if m == nil || i >= len(ns) {
					continue
				}
				v, _ := strconv.ParseFloat(m[1], 64)
				v *= map[string]float64{"ns": 1, "µs": 1e3, "ms": 1e6}[m[2]]
				out[s+"|"+ns[i]+"|"+d] = v
			}
		}
	}
	return out
}

// renderTargets is the go-targets section: the selection targets against
// this run's medians (wall clock, and the process's CPU time per query when
// the benchmark reports it), and every strategy's change against the grid
// the document held before this run (previous, empty when there is none).
func renderTargets(grid map[string]map[string]float64, previous map[string]float64) string {
	var b strings.Builder
	b.WriteString("Selection alone, d = 768, K = 10, budget 1500 tokens (`BenchmarkStrategies`, medians of this run; CPU = " +
		"the process's CPU time per query, every thread).\n\n| target | median | CPU per query | met? |\n|---|---:|---:|---|\n")
	for _, t := range selectionTargets {
		m, ok := grid[t.strategy+"|"+t.n+"|768"]
		if !ok {
			fmt.Fprintf(&b, "| %s, N = %s: <= %g ms | not run | | |\n", t.strategy, t.n, t.maxMS)
			continue
		}
		met := "yes"
		if m["ns/op"]/1e6 > t.maxMS {
			met = "**no**"
		}
		cpu := "-"
		if c := m["cpu-ns/op"]; c > 0 {
			cpu = duration(c)
		}
		fmt.Fprintf(&b, "| %s, N = %s: <= %g ms | %s | %s | %s |\n", t.strategy, t.n, t.maxMS, duration(m["ns/op"]), cpu, met)
	}
	if len(previous) == 0 {
		return b.String()
	}
	// Against the previous figures: the largest ratio per strategy.
	type worst struct {
		ratio float64
		at    string
	}
	per := map[string]worst{}
	for k, m := range grid {
		old, ok := previous[k]
		if !ok || old <= 0 {
			continue
		}
		s := strings.SplitN(k, "|", 2)[0]
		if r := m["ns/op"] / old; r > per[s].ratio {
			parts := strings.Split(k, "|")
			per[s] = worst{r, fmt.Sprintf("N = %s, d = %s", parts[1], parts[2])}
		}
	}
	names := make([]string, 0, len(per))
	for s := range per {
		names = append(names, s)
	}
	sort.Strings(names)
	b.WriteString("\nNo strategy above 2x its previous median anywhere in the grid: each strategy's largest ratio of this run's " +
		"median to the figure this page held before the run (same cell).\n\n| strategy | largest ratio | at | <= 2x |\n|---|---:|---|---|\n")
	for _, s := range names {
		w := per[s]
		ok := "yes"
		if w.ratio > 2 {
			ok = "**no**"
		}
		fmt.Fprintf(&b, "| %s | %.2f | %s | %s |\n", s, w.ratio, w.at, ok)
	}
	return b.String()
}

// readmeSelection is the README's selection-alone line from this run.
func readmeSelection(grid map[string]map[string]float64) string {
	at := func(s, n string) string {
		if m, ok := grid[s+"|"+n+"|768"]; ok {
			return duration(m["ns/op"])
		}
		return "-"
	}
	return fmt.Sprintf("- Selection alone (`make bench`), 768 dimensions, K = 10, budget 1500: the default coverage %s at 100 candidates, "+
		"%s at 1000, %s at 2000; adagres %s, mmr %s, dpp %s, facility %s at 100 (%s, %s, %s, %s at 1000). Targets and "+
		"every strategy: [docs/performance.md](docs/performance.md#selection-per-strategy-selection-only-as-the-module-runs-it).\n",
		at("coverage", "100"), at("coverage", "1000"), at("coverage", "2000"), at("adagres", "100"), at("mmr", "100"),
		at("dpp", "100"), at("facility", "100"), at("adagres", "1000"), at("mmr", "1000"), at("dpp", "1000"), at("facility", "1000"))
}
