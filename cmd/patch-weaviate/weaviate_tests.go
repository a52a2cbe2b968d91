package main

// Weaviate's own tests on the patched tree (patch-weaviate -test, make
// test-weaviate): run `go test -json` on TestPackages() in the patched copy
// through the workspace, and report per package what passed, failed and was
// skipped, naming every failing test.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"text/tabwriter"
	"time"
)

// testEvent is one line of `go test -json` (cmd/test2json), plus the build
// events the go command adds.
type testEvent struct {
	Action      string
	Package     string
	Test        string
	Elapsed     float64
	Output      string
	ImportPath  string // build-output, build-fail
	FailedBuild string // on a package's fail when its build failed
}

// Counts of finished tests.
type Counts struct{ Passed, Failed, Skipped int }

func (c Counts) String() string { return fmt.Sprintf("%d/%d/%d", c.Passed, c.Failed, c.Skipped) }

// PackageResult is what one package's test run produced.
type PackageResult struct {
	Package string // import path
	// Result is "ok", "FAIL", "no tests" (no test files), or "" if the
	// package never finished (go test was killed or never ran it).
	Result      string
	Elapsed     float64 // seconds the test binary ran (build time excluded)
	Tests       Counts  // top-level tests
	Subtests    Counts  // t.Run subtests, at any depth
	Failed      []string
	FailedBuild bool
	// Unfinished are tests that were running when the package ended (timeout
	// or crash); they are counted as failed and listed in Failed too.
	Unfinished map[string]bool

	output  map[string][]string // per test (""=package); dropped when a test passes
	running map[string]bool
	ended   map[string]bool // tests that passed, failed or skipped
}

// LeafFailures are the failed tests none of whose subtests failed: the ones
// that name the broken check (a parent fails because a child did).
func (p *PackageResult) LeafFailures() []string {
	var out []string
	for _, f := range p.Failed {
		leaf := true
		for _, g := range p.Failed {
			if strings.HasPrefix(g, f+"/") {
				leaf = false
				break
			}
		}
		if leaf {
			out = append(out, f)
		}
	}
	return out
}

// Report collects the results of one or more `go test -json` streams.
type Report struct {
	Packages map[string]*PackageResult
	Order    []string            // packages in the order they started
	Build    map[string][]string // build output by import path
	Other    []string            // stdout lines that are not JSON events
	// Done, if set, is called as each package finishes (progress lines).
	Done func(*PackageResult)
}

func NewReport() *Report {
	return &Report{Packages: map[string]*PackageResult{}, Build: map[string][]string{}}
}

func (r *Report) pkg(name string) *PackageResult {
	p := r.Packages[name]
	if p == nil {
		p = &PackageResult{Package: name, output: map[string][]string{}, running: map[string]bool{}, ended: map[string]bool{}, Unfinished: map[string]bool{}}
		r.Packages[name] = p
		r.Order = append(r.Order, name)
	}
	return p
}

// Read consumes a `go test -json` stream.
func (r *Report) Read(in io.Reader) error {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64*1024), 64*1024*1024) // a test may print huge lines
	for sc.Scan() {
		r.Add(sc.Bytes())
	}
	return sc.Err()
}

// Add consumes one line of the stream.
func (r *Report) Add(line []byte) {
	var e testEvent
	if len(bytes.TrimSpace(line)) == 0 {
		return
	}
	if line[0] != '{' || json.Unmarshal(line, &e) != nil {
		r.Other = append(r.Other, string(line))
		return
	}
	switch e.Action {
	case "build-output":
		r.Build[e.ImportPath] = append(r.Build[e.ImportPath], e.Output)
		return
	case "build-fail":
		return
	}
	if e.Package == "" {
		return
	}
	p := r.pkg(e.Package)
	switch e.Action {
	case "run":
		p.running[e.Test] = true
	case "output":
		p.output[e.Test] = append(p.output[e.Test], e.Output)
	case "pass", "fail", "skip":
		if e.Test == "" {
			r.finish(p, e)
			return
		}
		delete(p.running, e.Test)
		p.ended[e.Test] = true
		c := &p.Tests
		if strings.Contains(e.Test, "/") {
			c = &p.Subtests
		}
		switch e.Action {
		case "pass":
			c.Passed++
			delete(p.output, e.Test)
		case "fail":
			c.Failed++
			p.Failed = append(p.Failed, e.Test)
		case "skip":
			c.Skipped++
		}
	}
}

func (r *Report) finish(p *PackageResult, e testEvent) {
	p.Elapsed = e.Elapsed
	switch e.Action {
	case "pass":
		p.Result = "ok"
	case "skip":
		p.Result = "no tests"
	case "fail":
		p.Result = "FAIL"
		p.FailedBuild = e.FailedBuild != ""
	}
	// A test still running when its package ends was cut off (timeout, panic
	// in another goroutine, os.Exit): count it as failed.
	var cut []string
	for t := range p.running {
		cut = append(cut, t)
	}
	sort.Strings(cut)
	for _, t := range cut {
		if strings.Contains(t, "/") {
			p.Subtests.Failed++
		} else {
			p.Tests.Failed++
		}
		p.Failed = append(p.Failed, t)
		p.Unfinished[t] = true
	}
	p.running = map[string]bool{}
	if r.Done != nil {
		r.Done(p)
	}
}

// Problem is a failing test, or a package that failed without one (Test is
// empty: build failure, crash outside a test, no tests, no result).
type Problem struct{ Package, Test, Note string }

func (p Problem) String() string {
	if p.Package == "" {
		return p.Note
	}
	if p.Test == "" {
		return shortPkg(p.Package) + ": " + p.Note
	}
	if p.Note != "" {
		return shortPkg(p.Package) + ": " + p.Test + " (" + p.Note + ")"
	}
	return shortPkg(p.Package) + ": " + p.Test
}

// Problems lists what makes the run a failure: the leaf failing tests of
// each package, or the package itself. want are the import paths that must pass.
func (r *Report) Problems(want []string) []Problem {
	var out []Problem
	for _, name := range want {
		p := r.Packages[name]
		switch {
		case p == nil || p.Result == "":
			out = append(out, Problem{Package: name, Note: "no result (not built or not run)"})
		case p.Result == "no tests":
			out = append(out, Problem{Package: name, Note: "no tests ran (no test files)"})
		case p.FailedBuild:
			out = append(out, Problem{Package: name, Note: "build failed"})
		case p.Result == "FAIL" && len(p.Failed) == 0:
			out = append(out, Problem{Package: name, Note: "failed outside any test"})
		default:
			for _, t := range p.LeafFailures() {
				pr := Problem{Package: name, Test: t}
				if p.Unfinished[t] {
					pr.Note = "did not finish (timeout or crash)"
				}
				out = append(out, pr)
			}
		}
	}
	return out
}

// WriteTable prints one row per package: result, top-level tests and subtests
// as passed/failed/skipped, and the test binary's run time.
func (r *Report) WriteTable(w io.Writer, want []string) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "package\tresult\ttests pass/fail/skip\tsubtests pass/fail/skip\ttime")
	var tot, sub Counts
	var secs float64
	for _, name := range want {
		p := r.Packages[name]
		if p == nil {
			fmt.Fprintf(tw, "%s\tno result\t\t\t\n", shortPkg(name))
			continue
		}
		res := p.Result
		if res == "" {
			res = "no result"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%.1fs\n", shortPkg(name), res, p.Tests, p.Subtests, p.Elapsed)
		tot.Passed, tot.Failed, tot.Skipped = tot.Passed+p.Tests.Passed, tot.Failed+p.Tests.Failed, tot.Skipped+p.Tests.Skipped
		sub.Passed, sub.Failed, sub.Skipped = sub.Passed+p.Subtests.Passed, sub.Failed+p.Subtests.Failed, sub.Skipped+p.Subtests.Skipped
		secs += p.Elapsed
	}
	fmt.Fprintf(tw, "total\t\t%s\t%s\t%.1fs\n", tot, sub, secs)
	tw.Flush()
}

// WriteFailures prints the build output, then for every failing package its
// failing tests with the tail of their output, or the package's own output
// when no test failed.
func (r *Report) WriteFailures(w io.Writer, want []string) {
	// The head holds a panic's message, the tail a test's last checks.
	const head, tail = 20, 20
	show := func(lines []string) {
		emit := func(ls []string) {
			for _, l := range ls {
				fmt.Fprint(w, "    ", strings.TrimRight(l, "\n"), "\n")
			}
		}
		if len(lines) <= head+tail {
			emit(lines)
			return
		}
		emit(lines[:head])
		fmt.Fprintf(w, "    ... (%d lines)\n", len(lines)-head-tail)
		emit(lines[len(lines)-tail:])
	}
	var paths []string
	for path := range r.Build {
		paths = append(paths, path)
	}
	sort.Strings(paths)
	for _, path := range paths {
		fmt.Fprintf(w, "--- build output of %s\n", path)
		show(r.Build[path])
	}
	for _, name := range want {
		p := r.Packages[name]
		switch {
		case p == nil:
			fmt.Fprintf(w, "--- %s: no result\n", name)
		case p.Result == "ok":
		case len(p.Failed) == 0:
			res := p.Result
			if res == "" {
				res = "no result"
			}
			fmt.Fprintf(w, "--- %s %s\n", res, name)
			show(p.output[""])
		default:
			for _, t := range p.LeafFailures() {
				fmt.Fprintf(w, "--- FAIL %s %s\n", name, t)
				show(p.output[t])
			}
		}
	}
	if len(r.Other) > 0 {
		fmt.Fprintln(w, "--- go test output that is not a test event:")
		show(r.Other)
	}
}

func shortPkg(name string) string { return strings.TrimPrefix(name, weaviateModule+"/") }

// skipPattern is the -skip regexp leaving out the given top-level tests.
func skipPattern(skip []SkippedTest) string {
	var names []string
	for _, s := range skip {
		names = append(names, regexp.QuoteMeta(s.Test))
	}
	if len(names) == 0 {
		return ""
	}
	return "^(" + strings.Join(names, "|") + ")$"
}

// testRun is one `go test` invocation: packages sharing a -skip pattern.
type testRun struct {
	skip string
	pkgs []string
}

// plan groups the packages into go test invocations: all packages without
// skips in one (the go command builds and runs them in parallel), and each
// package with skips alone, as -skip applies to every package of a run.
func plan(pkgs []TestPackage) []testRun {
	var runs []testRun
	var plain []string
	for _, p := range pkgs {
		if len(p.Skip) == 0 {
			plain = append(plain, weaviateModule+"/"+p.Dir)
		} else {
			runs = append(runs, testRun{skipPattern(p.Skip), []string{weaviateModule + "/" + p.Dir}})
		}
	}
	if len(plain) > 0 {
		runs = append([]testRun{{pkgs: plain}}, runs...)
	}
	return runs
}

// goTestArgs are the arguments of one invocation. -count=1: never a cached
// result; -timeout bounds each test binary.
func goTestArgs(r testRun, timeout string) []string {
	args := []string{"test", "-json", "-count=1", "-timeout=" + timeout}
	if r.skip != "" {
		args = append(args, "-skip="+r.skip)
	}
	return append(args, r.pkgs...)
}

// runWeaviateTests runs the tests of pkgs in the Weaviate tree at tree with
// the workspace gowork, printing a line as each package finishes. It returns
// an error only if go test could not be run; test failures are in the report,
// and go test's non-zero exits in the returned list (for failures no event shows).
func runWeaviateTests(tree, gowork string, pkgs []TestPackage, timeout string, progress io.Writer) (*Report, []string, error) {
	rep := NewReport()
	rep.Done = func(p *PackageResult) {
		fmt.Fprintf(progress, "%-8s %s  (%.1fs)\n", p.Result, shortPkg(p.Package), p.Elapsed)
	}
	var exitErrs []string
	for _, r := range plan(pkgs) {
		args := goTestArgs(r, timeout)
		fmt.Fprintf(progress, "$ (cd %s && GOWORK=%s go %s)\n", tree, gowork, strings.Join(args, " "))
		cmd := exec.Command("go", args...)
		cmd.Dir = tree
		cmd.Env = append(os.Environ(), "GOWORK="+gowork)
		cmd.Stderr = os.Stderr
		out, err := cmd.StdoutPipe()
		if err != nil {
			return nil, nil, err
		}
		if err := cmd.Start(); err != nil {
			return nil, nil, fmt.Errorf("go test: %w", err)
		}
		readErr := rep.Read(out)
		err = cmd.Wait()
		if readErr != nil {
			return nil, nil, fmt.Errorf("reading go test output: %w", readErr)
		}
		var exit *exec.ExitError
		if err != nil && !errors.As(err, &exit) {
			return nil, nil, fmt.Errorf("go test: %w", err)
		}
		if err != nil {
			exitErrs = append(exitErrs, fmt.Sprintf("go test %s: %v", strings.Join(r.pkgs, " "), err))
		}
	}
	return rep, exitErrs, nil
}

// testWeaviate runs Weaviate's tests on the patched tree under out (and, with
// pristine, on an unpatched copy to tell Weaviate's own failures from ours).
func testWeaviate(repo, out, timeout string, pristine bool) error {
	start := time.Now()
	pkgs := TestPackages()
	var want []string
	fmt.Println("== Weaviate tests of the packages we patch or rely on")
	for _, p := range pkgs {
		want = append(want, weaviateModule+"/"+p.Dir)
		fmt.Printf("  %s: %s\n", p.Dir, p.Why)
		for _, s := range p.Skip {
			fmt.Printf("    skipped %s: %s\n", s.Test, s.Why)
		}
	}
	tree, gowork, err := treeAndWork(out)
	if err != nil {
		return err
	}
	rep, exitErrs, err := runWeaviateTests(tree, gowork, pkgs, timeout, os.Stdout)
	if err != nil {
		return err
	}
	problems := rep.Problems(want)
	if len(problems) == 0 {
		for _, e := range exitErrs { // go test failed in a way no event shows
			problems = append(problems, Problem{Note: e})
		}
	}

	var base *Report
	if pristine {
		fmt.Println("== the same tests on an unpatched copy")
		pout := filepath.Join(out, "pristine")
		if err := prepare(repo, pout, nil); err != nil {
			return err
		}
		ptree, pwork, err := treeAndWork(pout)
		if err != nil {
			return err
		}
		if base, _, err = runWeaviateTests(ptree, pwork, pkgs, timeout, os.Stdout); err != nil {
			return err
		}
	}

	fmt.Printf("\n== Weaviate tests on the patched tree (%s), go test -count=1 -timeout=%s\n", tree, timeout)
	rep.WriteTable(os.Stdout, want)
	if base != nil {
		fmt.Println("\n== unpatched tree")
		base.WriteTable(os.Stdout, want)
	}
	fmt.Printf("wall time %s (builds included)\n", time.Since(start).Round(time.Second))
	if len(problems) == 0 {
		return nil
	}
	fmt.Println()
	rep.WriteFailures(os.Stdout, want)
	fmt.Println("\n== failing (package: test)")
	for _, p := range problems {
		fmt.Println("  " + p.String() + onPristine(base, p))
	}
	if base == nil {
		fmt.Println("to see which also fail without our patches: go run ./cmd/patch-weaviate -out " + out + " -test -pristine")
	}
	return fmt.Errorf("%d Weaviate test failure(s) on the patched tree", len(problems))
}

// onPristine says how a failure of the patched tree fares on the unpatched one.
func onPristine(base *Report, pr Problem) string {
	if base == nil {
		return ""
	}
	p := base.Packages[pr.Package]
	switch {
	case p == nil || p.Result == "":
		return "  [unpatched: no result]"
	case pr.Test == "" && p.Result != "ok":
		return "  [unpatched: package fails too]"
	case pr.Test == "":
		return "  [unpatched: package passes]"
	}
	for _, f := range p.Failed {
		if f == pr.Test {
			return "  [fails on the unpatched tree too: Weaviate's, not ours]"
		}
	}
	if !p.ended[pr.Test] {
		return "  [not run on the unpatched tree]"
	}
	return "  [passes on the unpatched tree: our patch breaks it]"
}

func treeAndWork(out string) (string, string, error) {
	abs, err := filepath.Abs(out)
	if err != nil {
		return "", "", err
	}
	return filepath.Join(abs, "weaviate"), filepath.Join(abs, "go.work"), nil
}
