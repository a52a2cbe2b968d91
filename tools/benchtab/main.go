// Command benchtab turns `go test -bench` output (several -count runs) into
// markdown tables of medians, and can splice them into a document between
// <!-- BEGIN name --> and <!-- END name --> markers (make bench does, into
// docs/performance.md).
//
//	benchtab [-doc FILE] < bench.txt
//
// Tables: the strategy grid (BenchmarkStrategies: one table per dimension,
// strategies by pool size, each cell "time · B/op · allocs/op"), the engine
// memory per query, the Gram kernels (BenchmarkGram: GFLOP/s and share of the
// FMA peak), the FMA peak, and every other benchmark as a flat list.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
)

func main() {
	doc := flag.String("doc", "", "splice the tables into this markdown file (sections go-strategies, go-targets, go-memory, go-gram, go-other) instead of printing them")
	readme := flag.String("readme", "", "with -doc: splice the selection summary into this file too (section speed-selection)")
	flag.Parse()
	res, err := parse(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchtab:", err)
		os.Exit(1)
	}
	var previous map[string]float64
	if *doc != "" {
		if data, err := os.ReadFile(*doc); err == nil {
			previous = gridTimes(section(string(data), "go-strategies"))
		}
	}
	sections, grid := render(res, previous)
	if *doc != "" && *readme != "" {
		if err := splice(*readme, map[string]string{"speed-selection": readmeSelection(grid)}); err != nil {
			fmt.Fprintln(os.Stderr, "benchtab:", err)
			os.Exit(1)
		}
	}
	if *doc == "" {
		for _, name := range sectionOrder {
			fmt.Printf("<!-- %s -->\n%s\n", name, sections[name])
		}
		return
	}
	if err := splice(*doc, sections); err != nil {
		fmt.Fprintln(os.Stderr, "benchtab:", err)
		os.Exit(1)
	}
}

var sectionOrder = []string{"go-env", "go-strategies", "go-targets", "go-memory", "go-gram", "go-other"}

// section returns the text between <!-- BEGIN name --> and <!-- END name -->.
func section(doc, name string) string {
	begin, end := "<!-- BEGIN "+name+" -->", "<!-- END "+name+" -->"
	i, j := strings.Index(doc, begin), strings.Index(doc, end)
	if i < 0 || j < i {
		return ""
	}
	return doc[i+len(begin) : j]
}

// results maps a benchmark name (without the -GOMAXPROCS suffix) to its
// metrics' samples, and keeps the header lines (goos, cpu, ...).
type results struct {
	names   []string
	samples map[string]map[string][]float64
	header  map[string]string
}

var lineRE = regexp.MustCompile(`^(Benchmark\S+?)(?:-\d+)?\s+(\d+)\s+(.*)$`)

func parse(r io.Reader) (*results, error) {
	res := &results{samples: map[string]map[string][]float64{}, header: map[string]string{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		for _, h := range []string{"goos", "goarch", "cpu", "pkg"} {
			if v, ok := strings.CutPrefix(line, h+": "); ok && res.header[h] == "" {
				res.header[h] = strings.TrimSpace(v)
			}
		}
		m := lineRE.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		name := m[1]
		f := strings.Fields(m[3])
		if res.samples[name] == nil {
			res.samples[name] = map[string][]float64{}
			res.names = append(res.names, name)
		}
		for i := 0; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				continue
			}
			res.samples[name][f[i+1]] = append(res.samples[name][f[i+1]], v)
		}
	}
	return res, sc.Err()
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// params splits "BenchmarkX/a=1/b=c" into its key=value parts.
func params(name string) (string, map[string]string) {
	parts := strings.Split(name, "/")
	out := map[string]string{}
	for _, p := range parts[1:] {
		if k, v, ok := strings.Cut(p, "="); ok {
			out[k] = v
		}
	}
	return parts[0], out
}

func duration(ns float64) string {
	switch {
	case ns >= 1e6:
		return fmt.Sprintf("%.2f ms", ns/1e6)
	case ns >= 1e3:
		return fmt.Sprintf("%.1f µs", ns/1e3)
	}
	return fmt.Sprintf("%.0f ns", ns)
}

func bytesStr(b float64) string {
	switch {
	case b >= 1<<20:
		return fmt.Sprintf("%.1f MiB", b/(1<<20))
	case b >= 1<<10:
		return fmt.Sprintf("%.1f KiB", b/(1<<10))
	}
	return fmt.Sprintf("%.0f B", b)
}

func atoiSort(vals map[string]bool) []string {
	out := make([]string, 0, len(vals))
	for v := range vals {
		out = append(out, v)
	}
	sort.Slice(out, func(i, j int) bool {
		a, ea := strconv.Atoi(out[i])
		b, eb := strconv.Atoi(out[j])
		if ea == nil && eb == nil {
			return a < b
		}
		return out[i] < out[j]
	})
	return out
}

// render returns the sections and the strategy grid (strategy|N|d -> metric
// medians); previous is the grid the document held before (for the targets).
func render(res *results, previous map[string]float64) (map[string]string, map[string]map[string]float64) {
	out := map[string]string{}
	runs := 0
	for _, name := range res.names {
		for _, s := range res.samples[name] {
			runs = max(runs, len(s))
		}
	}
	out["go-env"] = fmt.Sprintf("Medians of %d runs per benchmark (`-count %d`); %s/%s, cpu: %s.\n",
		runs, runs, res.header["goos"], res.header["goarch"], res.header["cpu"])

	// Strategy grid.
	type key struct{ s, n, d string }
	grid := map[key]map[string]float64{}
	strategies, ns, ds := map[string]bool{}, map[string]bool{}, map[string]bool{}
	var other []string
	gram := map[string]bool{}
	for _, name := range res.names {
		base, p := params(name)
		switch {
		case base == "BenchmarkStrategies" && p["s"] != "":
			k := key{p["s"], p["N"], p["d"]}
			grid[k] = map[string]float64{}
			for metric, v := range res.samples[name] {
				grid[k][metric] = median(v)
			}
			strategies[p["s"]], ns[p["N"]], ds[p["d"]] = true, true, true
		case base == "BenchmarkGram":
			gram[name] = true
		default:
			other = append(other, name)
		}
	}
	var b strings.Builder
	sl := make([]string, 0, len(strategies))
	for s := range strategies {
		sl = append(sl, s)
	}
	sort.Strings(sl)
	nl, dl := atoiSort(ns), atoiSort(ds)
	for _, d := range dl {
		gridHeader(&b, fmt.Sprintf("d = %s, K = 10, budget 1500 tokens; each cell: time per query · B/op · allocs/op.", d), "strategy", nl)
		for _, s := range sl {
			fmt.Fprintf(&b, "| %s |", s)
			for _, n := range nl {
				m, ok := grid[key{s, n, d}]
				if !ok {
					b.WriteString(" - |")
					continue
				}
				fmt.Fprintf(&b, " %s · %s · %.0f |", duration(m["ns/op"]), bytesStr(m["B/op"]), m["allocs/op"])
			}
			b.WriteString("\n")
		}
		b.WriteString("\n")
	}
	out["go-strategies"] = b.String()

	// Engine memory per query.
	b.Reset()
	for _, d := range dl {
		gridHeader(&b, fmt.Sprintf("d = %s: memory the similarity engine holds for one query (engine-B; pooled buffers, reused across queries).", d), "strategy", nl)
		for _, s := range sl {
			any := false
			row := fmt.Sprintf("| %s |", s)
			for _, n := range nl {
				m, ok := grid[key{s, n, d}]
				if !ok || m["engine-B"] == 0 {
					row += " - |"
					continue
				}
				any = true
				row += " " + bytesStr(m["engine-B"]) + " |"
			}
			if any {
				b.WriteString(row + "\n")
			}
		}
		b.WriteString("\n")
	}
	out["go-memory"] = b.String()

	// Gram kernels.
	b.Reset()
	type gkey struct{ impl, n, d string }
	gm := map[gkey]map[string]float64{}
	impls, gns, gds := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for name := range gram {
		_, p := params(name)
		k := gkey{p["impl"], p["N"], p["d"]}
		gm[k] = map[string]float64{}
		for metric, v := range res.samples[name] {
			gm[k][metric] = median(v)
		}
		impls[p["impl"]], gns[p["N"]], gds[p["d"]] = true, true, true
	}
	il := make([]string, 0, len(impls))
	for i := range impls {
		il = append(il, i)
	}
	sort.Strings(il)
	gnl, gdl := atoiSort(gns), atoiSort(gds)
	for _, d := range gdl {
		gridHeader(&b, fmt.Sprintf("d = %s: GFLOP/s (useful flops of the symmetric Gram matrix, 2d per distinct pair), wall clock; "+
			"in parentheses, percent of the single-core FMA peak; for the single-core runs, the rate over thread CPU time too.", d), "kernel", gnl)
		for _, i := range il {
			fmt.Fprintf(&b, "| %s |", i)
			for _, n := range gnl {
				m, ok := gm[gkey{i, n, d}]
				if !ok {
					b.WriteString(" - |")
					continue
				}
				cell := fmt.Sprintf(" %.1f (%.0f%%)", m["GFLOP/s"], m["peak%"])
				if c := m["GFLOP/s-cpu"]; c > 0 {
					cell += fmt.Sprintf("; cpu %.1f", c)
				}
				b.WriteString(cell + " |")
			}
			b.WriteString("\n")
		}
		b.WriteString("\n")
	}
	out["go-gram"] = b.String()

	// Everything else, flat.
	b.Reset()
	b.WriteString("| benchmark | time/op | other metrics (medians) |\n|---|---:|---|\n")
	for _, name := range other {
		m := res.samples[name]
		var extra []string
		metrics := make([]string, 0, len(m))
		for metric := range m {
			metrics = append(metrics, metric)
		}
		sort.Strings(metrics)
		for _, metric := range metrics {
			if metric == "ns/op" {
				continue
			}
			v := median(m[metric])
			switch metric {
			case "B/op":
				extra = append(extra, bytesStr(v)+"/op")
			case "allocs/op":
				extra = append(extra, fmt.Sprintf("%.0f allocs/op", v))
			default:
				extra = append(extra, fmt.Sprintf("%.4g %s", v, metric))
			}
		}
		fmt.Fprintf(&b, "| %s | %s | %s |\n", strings.TrimPrefix(name, "Benchmark"), duration(median(m["ns/op"])), strings.Join(extra, ", "))
	}
	out["go-other"] = b.String()
	flat := map[string]map[string]float64{}
	for k, m := range grid {
		flat[k.s+"|"+k.n+"|"+k.d] = m
	}
	out["go-targets"] = renderTargets(flat, previous)
	return out, flat
}

// splice replaces the text between <!-- BEGIN name --> and <!-- END name -->
// in file by the named sections (sections without markers are skipped).
func splice(file string, sections map[string]string) error {
	data, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	s := string(data)
	done := 0
	for name, body := range sections {
		begin, end := "<!-- BEGIN "+name+" -->", "<!-- END "+name+" -->"
		i := strings.Index(s, begin)
		j := strings.Index(s, end)
		if i < 0 || j < i {
			continue
		}
		s = s[:i+len(begin)] + "\n" + body + s[j:]
		done++
	}
	if done == 0 {
		return fmt.Errorf("%s has no <!-- BEGIN section --> markers", file)
	}
	return os.WriteFile(file, []byte(s), 0o644)
}

// gridHeader writes a grid table's caption, then its header row - the row
// label's column and one right-aligned column per pool size N.
func gridHeader(b *strings.Builder, caption, label string, ns []string) {
	fmt.Fprintf(b, "%s\n\n| %s |", caption, label)
	for _, n := range ns {
		fmt.Fprintf(b, " N = %s |", n)
	}
	b.WriteString("\n|---|" + strings.Repeat("---:|", len(ns)) + "\n")
}
