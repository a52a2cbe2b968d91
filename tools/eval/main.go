// Command eval measures how good a context each selection strategy picks, on
// labelled data read in place from the shared data folder (never copied
// into the repo), with sentence vectors from the local embedder's glove mode
// and cl100k_base token counts.
//
//	make eval          library evaluation: docs/quality.md tables and plot
//	make eval-check    the CI quality regression check on a fixed subset
//	make eval-server   the HotpotQA measurement end to end through Weaviate
//	make eval-large    coverage's targets on pools of 1000 and 2000 candidates
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	dsconfig "github.com/diverse-select/diverse-select/config"
	"github.com/diverse-select/diverse-select/integration/stack"
	_ "github.com/diverse-select/diverse-select/selectors/all"
)

// Evaluation constants of the issue.
var (
	hotpotBudgets = []int{300, 450, 600, 900}
	mixedBudgets  = []int{300, 450, 600}
	perspKs       = []int{3, 5, 8}
	pirKs         = []int{5, 10}
)

type options struct {
	dataDir, gloveDir string
	vectorCache       string // the neural encoder's vectors (vectorcache.go)
	python            string // the interpreter of the neural worker
	doc, plot         string
	thresholds        string
	questions         int
	extra             []config
	print             bool
	target            string
	only              []string
	encoders          []string
	pools             []int
	suites            []string // -suites: run only these suites (exploration)
	dump              string   // -dump: the tune mode's per-instance lines (exploration)
	peers             bool     // -peers: the tune mode also runs pyversity
}

// targetFor lists the configs whose targets are printed: -target, or the
// default strategy and every -extra config. A -target that names no config
// is an error naming the labels it can take.
func (o options) targetFor(cfgs []config) ([]string, error) {
	if o.target != "" {
		var labels []string
		for _, c := range cfgs {
			if c.Label == o.target {
				return []string{o.target}, nil
			}
			labels = append(labels, c.Label)
		}
		return nil, fmt.Errorf("-target: no config %q (allowed: %s)", o.target, strings.Join(labels, ", "))
	}
	out := []string{dsconfig.DefaultStrategy}
	for _, c := range o.extra {
		out = append(out, c.Label)
	}
	return out, nil
}

// keep drops the configs -only does not name (all of them without -only).
func (o options) keep(cfgs []config) []config {
	if o.only == nil {
		return cfgs
	}
	var out []config
	for _, c := range cfgs {
		if slices.Contains(o.only, c.Strategy) {
			out = append(out, c)
		}
	}
	return out
}

func tuning(in *instance) bool  { return in.Half == 0 }
func heldOut(in *instance) bool { return in.Half == 1 }

func main() {
	var (
		o      options
		mode   = flag.String("mode", "library", "library (tables and plot), cards (evidence cards on HotpotQA), peers (pyversity beside the default on the tune mode's suites), check (CI regression check), server (end to end through Weaviate), large (coverage's targets on pools of 1000 and 2000) tune (the default and -extra against top-k and best-lambda MMR on the multi-hop sets, per half: the fast loop of its rules), segment and segment-lean (the chunkers; lean: the part a shared machine finishes in minutes with -minilm) or vectors (fill the minilm vector cache with every text the other modes embed)")
		update = flag.Bool("update", false, "check mode: rewrite the thresholds file from this run instead of checking")
		addNew = flag.Bool("add-new", false, "check mode: check, and add to the thresholds file the figures it holds no floor for yet (the others unchanged)")
		extra  = flag.String("extra", "", "more configs to evaluate, ';'-separated name:key=value,... (exploration; printed only)")
		pools  = flag.String("pools", "", "large mode: the pool sizes, comma-separated (default 1000,2000)")
		neural = flag.String("neural-url", "", "segment mode: a text2vec-transformers endpoint serving all-MiniLM-L6-v2 (the embedder's neural mode); empty: GloVe-SIF only")
		minilm = flag.Bool("minilm", false, "segment and segment-lean modes without -neural-url: all-MiniLM-L6-v2 too, its vectors from the vector cache (computed by the neural worker on first use)")
		encs   = flag.String("encoders", strings.Join(encoderNames, ","), "library, check and tune modes: the sentence vectors to run on, comma-separated ("+strings.Join(encoderNames, ", ")+")")
	)
	flag.StringVar(&o.dataDir, "data", "", "shared data folder (default: ../shared/data beside the repo root)")
	flag.StringVar(&o.gloveDir, "glove-dir", "", "GloVe folder (default: <data>/glove-6b-100d-top100k)")
	flag.StringVar(&o.vectorCache, "vector-cache", defaultVectorCache(), "folder of the minilm encoder's cached vectors (computed on first use)")
	flag.StringVar(&o.python, "python", "", "the Python of the neural worker (default: <repo>/.venv/bin/python, made by `make venv`)")
	flag.StringVar(&o.doc, "doc", "docs/quality.md", "document whose generated sections are rewritten (library and server modes)")
	flag.IntVar(&o.questions, "questions", 0, "server mode: ask only the first n questions (all paragraphs are imported); large mode: the first n questions and claims; 0 = all")
	flag.StringVar(&o.thresholds, "thresholds", "tools/eval/thresholds.json", "floors of the check mode")
	flag.StringVar(&o.plot, "plot", "docs/quality-budget.png", "budget-vs-score plot written by the library mode")
	flag.StringVar(&o.dump, "dump", "", "tune mode: append one JSON line per instance (pool statistics, every config's metrics) to this file (exploration)")
	flag.BoolVar(&o.peers, "peers", false, "tune mode: also run pyversity's strategies (the best-baseline columns then include them)")
	flag.BoolVar(&o.print, "print", false, "print the tables only; do not touch the document or the plot")
	flag.StringVar(&o.target, "target", "", "config whose targets are printed (default: the default strategy and every -extra config)")
	suitesFlag := flag.String("suites", "", "with -print: run only these suites (comma-separated names, e.g. 'HotpotQA,HotpotQA mixed,Perspectrum'; exploration)")
	only := flag.String("only", "", "with -print: run only these strategies (comma-separated names; the MMR sweep runs when mmr is named) and the -extra configs (exploration)")
	flag.Parse()
	if err := o.resolve(); err != nil {
		fail(err)
	}
	var err error
	if o.encoders, err = parseEncoders(*encs); err != nil {
		fail(err)
	}
	if o.pools, err = parsePools(*pools); err != nil {
		fail(err)
	}
	if *only != "" {
		o.only = strings.Split(*only, ",")
	}
	if *suitesFlag != "" {
		if !o.print && *mode != "tune" {
			fail(fmt.Errorf("-suites needs -print (the document and the check need every suite)"))
		}
		o.suites = strings.Split(*suitesFlag, ",")
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
	switch *mode {
	case "library":
		err = runLibrary(ctx, o, os.Stdout)
	case "server":
		err = runServer(ctx, o, os.Stdout)
	case "check":
		err = runCheck(ctx, o, os.Stdout, o.thresholds, *update, *addNew)
	case "cards":
		err = runCards(ctx, o, os.Stdout)
	case "peers":
		err = runPeers(ctx, o, os.Stdout)
	case "large":
		err = runLarge(ctx, o, os.Stdout)
	case "tune":
		err = runTune(ctx, o, os.Stdout)
	case "segment":
		if !flagSet("doc") {
			o.doc = strings.TrimSuffix(o.doc, "quality.md") + "segmentation.md"
		}
		err = runSegment(ctx, o, os.Stdout, *neural, *minilm)
	case "segment-lean":
		if !flagSet("doc") {
			o.doc = strings.TrimSuffix(o.doc, "quality.md") + "segmentation.md"
		}
		err = runSegmentLean(ctx, o, os.Stdout, *minilm)
	case "vectors":
		err = runVectors(o)
	default:
		err = fmt.Errorf("unknown -mode %q", *mode)
	}
	if err != nil {
		fail(err)
	}
	fmt.Fprintf(os.Stderr, "eval: done in %s\n", time.Since(start).Round(time.Millisecond))
}

// runVectors computes the minilm vectors of every text the evaluation
// embeds (the library and cards suites; the large and server modes embed
// the same texts) into the cache, so that the other modes only read them.
func runVectors(o options) error {
	e, _, err := loadSuites(o, encMiniLM)
	if err != nil {
		return err
	}
	if _, err := loadCards(o, encMiniLM); err != nil {
		return err
	}
	demoSuite(e) // the demo corpus and queries
	if e.err != nil {
		return e.err
	}
	fmt.Fprintf(os.Stderr, "eval: %d texts with %s vectors in %s\n", len(e.cache.vecs), encMiniLM, e.cache.path)
	return nil
}

// parsePools reads the -pools flag: positive pool sizes, comma-separated.
func parsePools(s string) ([]int, error) {
	if s == "" {
		return nil, nil
	}
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("-pools: %q is not a pool size (allowed: positive integers, comma-separated)", f)
		}
		out = append(out, n)
	}
	return out, nil
}

// flagSet reports whether the command line set the flag.
func flagSet(name string) bool {
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
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
	if o.python == "" {
		o.python = filepath.Join(root, ".venv", "bin", "python")
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
	if !filepath.IsAbs(o.thresholds) {
		o.thresholds = filepath.Join(root, o.thresholds)
	}
	return nil
}

// loadSuites builds the three library suites with the vectors of one encoder.
func loadSuites(o options, enc string) (*env, []*suite, error) {
	e, err := newEnv(o, enc)
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
	suites := []*suite{hotpotSuite(e, hq, hotpotBudgets)}
	var mixed []*suite
	for _, set := range multiHopSets {
		qs := hq
		if set.Name != "HotpotQA" {
			if qs, err = loadMultiHop(filepath.Join(o.dataDir, set.File)); err != nil {
				return nil, nil, err
			}
			suites = append(suites, multiHopSuite(e, set.Name, qs, hotpotBudgets))
		}
		mixed = append(mixed, mixedSuite(e, set.Name, qs, mixedBudgets))
	}
	suites = append(suites, perspSuite(e, pd, perspKs), pirSuite(e, pt, pirKs))
	suites = append(suites, mixed...)
	if e.err != nil {
		return nil, nil, e.err
	}
	if o.suites != nil {
		var names []string
		kept := suites[:0]
		for _, s := range suites {
			names = append(names, s.Name)
			if slices.Contains(o.suites, s.Name) {
				kept = append(kept, s)
			}
		}
		if len(kept) != len(o.suites) {
			return nil, nil, fmt.Errorf("-suites %q: a name matches no suite (allowed: %s)", strings.Join(o.suites, ","), strings.Join(names, ", "))
		}
		suites = kept
	}
	return e, suites, nil
}

// fillBudget is the default before issue 34, which fills the budget: the
// precision summary shows it beside the default.
const fillBudget = "coverage:fill=true"

// greedyBoth keeps the better of the density and the plain-gain greedy
// (issue 42): the precision summary shows it beside the default.
const greedyBoth = "coverage:greedy=both"

// greedyDensity is the density greedy alone, the default before greedy
// "auto" (issue 42): the precision summary shows it beside the default.
const greedyDensity = "coverage:greedy=density"

// outsideWhole and outsideRelevance credit the query words of a chunk
// outside the relevance window whole (the default before outsideTerms
// "auto") and by its relevance in every priced pool (issue 42): the
// precision summary shows them beside the default.
const (
	outsideWhole     = "coverage:outsideTerms=whole"
	outsideRelevance = "coverage:outsideTerms=relevance"
)

// ablations are the variants of the default reported in docs/quality.md:
// each part switched off, the similarity powers and second-hop weights the
// default was chosen from, the novelty floors that were measured and not
// kept, the fill of the budget (the default before issue 34), the targets
// settings around the default (the exact objective and fewer targets, on
// the library's own pools: docs/performance.md, "What coverage's targets
// cost in quality"), the density greedy alone and the better of the density
// and the plain-gain greedy, the outside chunks' words whole and by relevance, and the
// AdaGReS fixes discussed there.
var ablations = []string{
	"coverage:similarityPower=1",
	"coverage:similarityPower=1.5",
	"coverage:similarityPower=4",
	"coverage:similarityPower=8",
	"coverage:queryCoverage=0",
	"coverage:lexicalWeight=0",
	"coverage:lexicalWeight=0,queryCoverage=0",
	"coverage:center=false",
	"coverage:hop=0",
	"coverage:hop=2",
	"coverage:hop=8",
	"coverage:parts=0",
	"coverage:parts=0.5",
	"coverage:parts=2",
	"coverage:minNovelty=0.05",
	"coverage:minNovelty=0.1",
	"coverage:minNovelty=0.2",
	fillBudget,
	greedyDensity,
	greedyBoth,
	outsideWhole,
	outsideRelevance,
	"coverage:targets=0",
	"coverage:targets=16",
	"coverage:targets=8",
	"adagres:lambda=0.5",
	"adagres:stopAtZeroGain=false",
	"adagres:lambda=0.5,stopAtZeroGain=false",
}

func runLibrary(ctx context.Context, o options, w io.Writer) error {
	t0 := time.Now()
	def := dsconfig.DefaultStrategy
	var abl []config
	if !o.print {
		for _, a := range ablations {
			c, err := parseConfig(a)
			if err != nil {
				return err
			}
			abl = append(abl, c)
		}
	}
	cfgs := append(append(o.keep(configs(def)), abl...), o.extra...)
	targetLabels, err := o.targetFor(cfgs)
	if err != nil {
		return err
	}
	var all []*results
	for _, enc := range o.encoders {
		t1 := time.Now()
		_, suites, err := loadSuites(o, enc)
		if err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "eval: %s: data loaded and embedded in %s\n", enc, time.Since(t1).Round(time.Millisecond))
		r, err := runAll(ctx, suites, cfgs)
		if err != nil {
			return err
		}
		r.enc = enc
		all = append(all, r)
		if o.print {
			fmt.Fprintf(w, "\n######## encoder %s\n", enc)
			printAll(w, r)
		}
		for _, label := range targetLabels {
			if o.only != nil {
				break // the targets need every baseline
			}
			for _, sub := range []struct {
				name string
				keep func(*instance) bool
			}{{"tuning half", tuning}, {"held-out half", heldOut}, {"all", nil}} {
				fmt.Fprintf(w, "\n== targets for %s (%s, %s)\n", label, enc, sub.name)
				for _, t := range r.targets(label, sub.keep) {
					fmt.Fprintln(w, t)
				}
			}
		}
	}
	if o.print {
		return nil
	}
	elapsed := time.Since(t0).Round(time.Second)
	var b strings.Builder
	fmt.Fprintf(&b, "Generated by `make eval` (`go run ./tools/eval`) in %s on %d cores, once per encoder: GloVe-SIF sentence vectors "+
		"from the embedder's glove mode (SIF-weighted GloVe 6B 100d, mean and first principal direction removed), "+
		"Universal Sentence Encoder Lite vectors read from ../shared/data/use-lite-512 (every text must have one) and "+
		"all-MiniLM-L6-v2 vectors from the embedder's neural mode (cached outside the repository by `make eval-vectors`). "+
		"Relevance = cosine to the query vector (as the module computes it for nearText: 1 - distance), token costs in "+
		"cl100k_base, every strategy with its defaults, MMR with lambda 0.1 ... 0.9. Data read in place from ../shared/data.\n\n",
		elapsed, runtime.NumCPU())
	b.WriteString(nearCopySummary(all, def))
	for _, r := range all {
		plotPath := encoderPlot(o.plot, r.enc)
		if err := budgetPlot(r, def, plotPath); err != nil {
			return fmt.Errorf("plot: %w", err)
		}
		fmt.Fprintf(&b, "## %s\n\n", encoderTitle(r.enc))
		b.WriteString(libraryReport(r, def, abl, filepath.Base(plotPath)))
	}
	if err := splice(o.doc, libBegin, libEnd, b.String()); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "eval: wrote %s and the plots\n", o.doc)
	return nil
}

// encoderPlot is the plot path of one encoder: the -plot path for GloVe,
// with the encoder's name before the extension for the others.
func encoderPlot(path, enc string) string {
	if enc == encGloVe {
		return path
	}
	ext := filepath.Ext(path)
	return strings.TrimSuffix(path, ext) + "-" + enc + ext
}

// runAll runs every config on every suite.
func runAll(ctx context.Context, suites []*suite, cfgs []config) (*results, error) {
	r := &results{suites: suites, cfgs: cfgs, out: map[string]map[string]*outcome{}}
	for _, s := range suites {
		res, err := runSuite(ctx, s, cfgs)
		if err != nil {
			return nil, err
		}
		r.out[s.Name] = res
	}
	return r, nil
}

// printAll prints the exploration tables.
func printAll(w io.Writer, r *results) {
	fmt.Fprintf(w, "\n== near-copy pairs selected (all instances and constraints)\n%-34s", "")
	for _, s := range r.suites {
		fmt.Fprintf(w, " %11s", s.Name)
	}
	fmt.Fprintln(w)
	for _, c := range r.cfgs {
		fmt.Fprintf(w, "%-34s", c.Label)
		for _, s := range r.suites {
			fmt.Fprintf(w, " %11d", r.out[s.Name][c.Label].nearCopies())
		}
		fmt.Fprintln(w)
	}
	for _, s := range r.suites {
		res := r.out[s.Name]
		if s.Name != "PIR" {
			printSuite(w, s, res, r.cfgs, tuning, "tuning half")
			printSuite(w, s, res, r.cfgs, heldOut, "held-out half")
			printSuite(w, s, res, r.cfgs, nil, "all")
		} else {
			for mi := range s.Metrics {
				printMacro(w, s, res, r.cfgs, mi)
			}
		}
	}
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
				if countMetric(s.Metrics[mi]) {
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
	case mAll:
		return "all"
	case mAnswer:
		return "ans"
	case mOtherTok:
		return "otok"
	case mAhead:
		return "ahead"
	}
	return m
}

// taskKeep selects the PIR roots of one task.
func taskKeep(task string) func(*instance) bool {
	return func(in *instance) bool { return strings.HasPrefix(in.ID, task+"/") }
}

// macro is the mean over the PIR tasks of the per-task means (each task
// counts once, whatever its number of root queries).
func macro(s *suite, o *outcome, ci, mi int) float64 {
	var sum float64
	for _, t := range pirTasks {
		sum += o.mean(s, ci, mi, taskKeep(t))
	}
	return sum / float64(len(pirTasks))
}

func printMacro(w io.Writer, s *suite, res map[string]*outcome, cfgs []config, mi int) {
	fmt.Fprintf(w, "\n== %s per task and macro average: %s\n%-34s", s.Name, s.Metrics[mi], "")
	for _, t := range append(append([]string{}, pirTasks...), "MACRO") {
		for _, c := range s.Constraints {
			fmt.Fprintf(w, " %9s", t[:min(4, len(t))]+"@"+c.String()[2:])
		}
	}
	fmt.Fprintln(w)
	bestMacro := make([]float64, len(s.Constraints))
	for _, c := range cfgs {
		fmt.Fprintf(w, "%-34s", c.Label)
		for _, t := range pirTasks {
			for ci := range s.Constraints {
				fmt.Fprintf(w, " %9.1f", 100*res[c.Label].mean(s, ci, mi, taskKeep(t)))
			}
		}
		for ci := range s.Constraints {
			m := macro(s, res[c.Label], ci, mi)
			if c.Sweep {
				bestMacro[ci] = max(bestMacro[ci], m)
			}
			fmt.Fprintf(w, " %9.1f", 100*m)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "%-34s %s", "mmr (best λ, macro)", strings.Repeat(" ", 10*len(pirTasks)*len(s.Constraints)))
	for _, v := range bestMacro {
		fmt.Fprintf(w, " %9.1f", 100*v)
	}
	fmt.Fprintln(w)
}
