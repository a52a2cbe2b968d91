// Command eval measures how good a context each selection strategy picks, on
// labelled data read in place from the shared data folder (never copied
// into the repo), with sentence vectors from the local embedder's glove mode
// and cl100k_base token counts.
//
//	make eval          library evaluation: docs/quality.md tables and plot
//	make eval-check    the CI quality regression check on a fixed subset
//	make eval-server   the HotpotQA measurement end to end through Weaviate
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	dsconfig "github.com/diverse-select/diverse-select/config"
	"github.com/diverse-select/diverse-select/integration/stack"
	_ "github.com/diverse-select/diverse-select/selectors/all"
)

// Evaluation constants of the issue.
var (
	hotpotBudgets = []int{300, 450, 600, 900}
	perspKs       = []int{3, 5, 8}
	pirKs         = []int{5, 10}
)

type options struct {
	dataDir, gloveDir string
	doc, plot         string
	extra             []config
	print             bool
}

func main() {
	var (
		o     options
		mode  = flag.String("mode", "library", "library (tables and plot), check (CI regression check) or server (end to end through Weaviate)")
		extra = flag.String("extra", "", "more configs to evaluate, ';'-separated name:key=value,... (exploration; printed only)")
	)
	flag.StringVar(&o.dataDir, "data", "", "shared data folder (default: ../shared/data beside the repo root)")
	flag.StringVar(&o.gloveDir, "glove-dir", "", "GloVe folder (default: <data>/glove-6b-100d-top100k)")
	flag.StringVar(&o.doc, "doc", "docs/quality.md", "document whose generated sections are rewritten (library and server modes)")
	flag.StringVar(&o.plot, "plot", "docs/quality-budget.png", "budget-vs-score plot written by the library mode")
	flag.BoolVar(&o.print, "print", false, "print the tables only; do not touch the document or the plot")
	flag.Parse()
	if err := o.resolve(); err != nil {
		fail(err)
	}
	if *extra != "" {
		for _, s := range strings.Split(*extra, ";") {
			c, err := parseConfig(strings.TrimSpace(s))
			if err != nil {
				fail(err)
			}
			o.extra = append(o.extra, c)
		}
	}
	ctx := context.Background()
	start := time.Now()
	var err error
	switch *mode {
	case "library":
		err = runLibrary(ctx, o, os.Stdout)
	default:
		err = fmt.Errorf("unknown -mode %q", *mode)
	}
	if err != nil {
		fail(err)
	}
	fmt.Fprintf(os.Stderr, "eval: done in %s\n", time.Since(start).Round(time.Millisecond))
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "eval:", err)
	os.Exit(1)
}

// resolve fills the default paths: the data folder is ../shared/data
// relative to the repo root, and a missing folder is an error, never a skip.
func (o *options) resolve() error {
	root, err := stack.RepoRoot()
	if err != nil {
		return err
	}
	if o.dataDir == "" {
		o.dataDir = filepath.Join(root, "..", "shared", "data")
	}
	if o.gloveDir == "" {
		o.gloveDir = filepath.Join(o.dataDir, "glove-6b-100d-top100k")
	}
	for _, p := range []string{o.dataDir, o.gloveDir} {
		if _, err := os.Stat(p); err != nil {
			return fmt.Errorf("evaluation data missing: %w (the shared data folder must sit beside the repo, or pass -data)", err)
		}
	}
	if !filepath.IsAbs(o.doc) {
		o.doc = filepath.Join(root, o.doc)
	}
	if !filepath.IsAbs(o.plot) {
		o.plot = filepath.Join(root, o.plot)
	}
	return nil
}

// loadSuites builds the three library suites.
func loadSuites(o options) (*env, []*suite, error) {
	e, err := newEnv(o.gloveDir)
	if err != nil {
		return nil, nil, err
	}
	hq, err := loadHotpot(o.dataDir)
	if err != nil {
		return nil, nil, err
	}
	pd, err := loadPerspectrum(o.dataDir)
	if err != nil {
		return nil, nil, err
	}
	pt, err := loadPIR(o.dataDir)
	if err != nil {
		return nil, nil, err
	}
	return e, []*suite{hotpotSuite(e, hq, hotpotBudgets), perspSuite(e, pd, perspKs), pirSuite(e, pt, pirKs)}, nil
}

func runLibrary(ctx context.Context, o options, w io.Writer) error {
	t0 := time.Now()
	_, suites, err := loadSuites(o)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "eval: data loaded and embedded in %s\n", time.Since(t0).Round(time.Millisecond))
	cfgs := append(configs(dsconfig.DefaultStrategy), o.extra...)
	for _, s := range suites {
		res, err := runSuite(ctx, s, cfgs)
		if err != nil {
			return err
		}
		printSuite(w, s, res, cfgs, nil, "all")
		if s.Name != "PIR" {
			printSuite(w, s, res, cfgs, func(in *instance) bool { return in.Half == 1 }, "held-out half")
		}
	}
	return nil
}

// printSuite prints one plain table per suite (exploration output).
func printSuite(w io.Writer, s *suite, res map[string]*outcome, cfgs []config, keep func(*instance) bool, subset string) {
	fmt.Fprintf(w, "\n== %s (%s, %d instances)\n%-34s", s.Name, subset, count(s, keep), "")
	for _, m := range s.Metrics {
		for _, c := range s.Constraints {
			fmt.Fprintf(w, " %9s", abbrev(m)+"@"+c.String()[2:])
		}
	}
	fmt.Fprintln(w)
	row := func(label string, val func(ci, mi int) float64) {
		fmt.Fprintf(w, "%-34s", label)
		for mi := range s.Metrics {
			for ci := range s.Constraints {
				v := val(ci, mi)
				if s.Metrics[mi] == mDistract {
					fmt.Fprintf(w, " %9.2f", v)
				} else {
					fmt.Fprintf(w, " %9.1f", 100*v)
				}
			}
		}
		fmt.Fprintln(w)
	}
	for _, c := range cfgs {
		row(c.Label, func(ci, mi int) float64 { return res[c.Label].mean(s, ci, mi, keep) })
	}
	row("mmr (best λ per column)", func(ci, mi int) float64 { _, v := bestSweep(s, res, cfgs, ci, mi, keep); return v })
}

func count(s *suite, keep func(*instance) bool) int {
	n := 0
	for _, in := range s.Insts {
		if keep == nil || keep(in) {
			n++
		}
	}
	return n
}

func abbrev(m string) string {
	switch m {
	case mBoth:
		return "both"
	case mRecall:
		return "rec"
	case mCover:
		return "cov"
	case mDistract:
		return "dis"
	case mPersp:
		return "persp"
	}
	return m
}
