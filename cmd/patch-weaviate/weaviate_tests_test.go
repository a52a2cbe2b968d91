package main

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func readReport(t *testing.T, stream string) *Report {
	t.Helper()
	r := NewReport()
	if err := r.Read(strings.NewReader(stream)); err != nil {
		t.Fatal(err)
	}
	return r
}

// Canned `go test -json` streams (go1.26 output, Time fields dropped).
const (
	streamPass = `{"Action":"start","Package":"p/ok"}
{"Action":"run","Package":"p/ok","Test":"TestA"}
{"Action":"run","Package":"p/ok","Test":"TestA/x"}
{"Action":"pass","Package":"p/ok","Test":"TestA/x","Elapsed":0}
{"Action":"run","Package":"p/ok","Test":"TestA/y"}
{"Action":"run","Package":"p/ok","Test":"TestA/y/deep"}
{"Action":"pass","Package":"p/ok","Test":"TestA/y/deep","Elapsed":0}
{"Action":"pass","Package":"p/ok","Test":"TestA/y","Elapsed":0}
{"Action":"run","Package":"p/ok","Test":"TestA/z"}
{"Action":"output","Package":"p/ok","Test":"TestA/z","Output":"--- SKIP: TestA/z (0.00s)\n"}
{"Action":"skip","Package":"p/ok","Test":"TestA/z","Elapsed":0}
{"Action":"pass","Package":"p/ok","Test":"TestA","Elapsed":0}
{"Action":"run","Package":"p/ok","Test":"TestB"}
{"Action":"pause","Package":"p/ok","Test":"TestB"}
{"Action":"cont","Package":"p/ok","Test":"TestB"}
{"Action":"pass","Package":"p/ok","Test":"TestB","Elapsed":0.1}
{"Action":"run","Package":"p/ok","Test":"TestC"}
{"Action":"skip","Package":"p/ok","Test":"TestC","Elapsed":0}
{"Action":"output","Package":"p/ok","Output":"ok  \tp/ok\t1.5s\n"}
{"Action":"pass","Package":"p/ok","Elapsed":1.5}
`
	streamNoTests = `{"Action":"start","Package":"p/none"}
{"Action":"output","Package":"p/none","Output":"?   \tp/none\t[no test files]\n"}
{"Action":"skip","Package":"p/none","Elapsed":0.001}
`
	// A crash outside any test: TestMain exits non-zero.
	streamCrash = `{"Action":"start","Package":"p/crash"}
{"Action":"output","Package":"p/crash","Output":"setup: connection refused\n"}
{"Action":"output","Package":"p/crash","Output":"FAIL\tp/crash\t0.01s\n"}
{"Action":"fail","Package":"p/crash","Elapsed":0.01}
`
)

func TestReportCounts(t *testing.T) {
	mixed, err := os.ReadFile("testdata/go-test-mixed.json") // a real run: see its packages below
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		Result          string
		Tests, Subtests Counts
		Failed          []string
		Leaves          []string
		FailedBuild     bool
		Elapsed         float64
	}
	cases := []struct {
		name   string
		stream string
		want   map[string]row
	}{
		{"passing package, nested subtests, parallel, skips", streamPass, map[string]row{
			"p/ok": {Result: "ok", Tests: Counts{2, 0, 1}, Subtests: Counts{3, 0, 1}, Elapsed: 1.5},
		}},
		{"no test files", streamNoTests, map[string]row{
			"p/none": {Result: "no tests", Elapsed: 0.001},
		}},
		{"crash outside a test", streamCrash, map[string]row{
			"p/crash": {Result: "FAIL", Elapsed: 0.01},
		}},
		// a: a failing subtest and its parent, skips; b: does not compile;
		// c: times out inside a subtest (test2json never reports those tests).
		{"real run: failure, build failure, timeout", string(mixed), map[string]row{
			"example.com/fake/a": {Result: "FAIL", Tests: Counts{1, 1, 1}, Subtests: Counts{2, 1, 1},
				Failed: []string{"TestFail/bad", "TestFail"}, Leaves: []string{"TestFail/bad"}, Elapsed: 0.033},
			"example.com/fake/b": {Result: "FAIL", FailedBuild: true},
			"example.com/fake/c": {Result: "FAIL", Tests: Counts{0, 1, 0}, Subtests: Counts{0, 1, 0},
				Failed: []string{"TestHang", "TestHang/sub"}, Leaves: []string{"TestHang/sub"}, Elapsed: 2.022},
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := readReport(t, tc.stream)
			if len(r.Packages) != len(tc.want) {
				t.Errorf("got %d packages, want %d", len(r.Packages), len(tc.want))
			}
			for name, want := range tc.want {
				p := r.Packages[name]
				if p == nil {
					t.Fatalf("%s: no result", name)
				}
				got := row{p.Result, p.Tests, p.Subtests, p.Failed, p.LeafFailures(), p.FailedBuild, p.Elapsed}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%s:\n got %+v\nwant %+v", name, got, want)
				}
			}
		})
	}
}

func TestReportProblems(t *testing.T) {
	mixed, _ := os.ReadFile("testdata/go-test-mixed.json")
	r := readReport(t, streamPass+streamNoTests+streamCrash+string(mixed))
	r.Add([]byte("go: warning: not a JSON line"))
	want := []string{"p/ok", "p/none", "p/crash", "example.com/fake/a", "example.com/fake/b", "example.com/fake/c", "p/missing"}
	var got []string
	for _, p := range r.Problems(want) {
		got = append(got, p.String())
	}
	wantProblems := []string{
		"p/none: no tests ran (no test files)",
		"p/crash: failed outside any test",
		"example.com/fake/a: TestFail/bad",
		"example.com/fake/b: build failed",
		"example.com/fake/c: TestHang/sub (did not finish (timeout or crash))",
		"p/missing: no result (not built or not run)",
	}
	if !reflect.DeepEqual(got, wantProblems) {
		t.Errorf("problems:\n got %q\nwant %q", got, wantProblems)
	}
	if len(r.Problems([]string{"p/ok"})) != 0 {
		t.Error("a passing package is a problem")
	}

	var out strings.Builder
	r.WriteFailures(&out, want)
	for _, s := range []string{
		"--- FAIL example.com/fake/a TestFail/bad\n    === RUN   TestFail/bad\n        a_test.go:11: detail\n        a_test.go:11: boom\n",
		"declared and not used: x",                        // the compiler's message
		"--- FAIL example.com/fake/c TestHang/sub",        // the timed-out test
		"panic: test timed out after 2s",                  // and why
		"--- FAIL p/crash\n    setup: connection refused", // package output when no test failed
		"--- p/missing: no result",
		"go: warning: not a JSON line",
	} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("failure report lacks %q:\n%s", s, out.String())
		}
	}
	for _, s := range []string{"TestPass", "TestFail/ok", "TestA"} { // passing tests stay quiet
		if strings.Contains(out.String(), s) {
			t.Errorf("failure report shows passing test %s", s)
		}
	}
}

func TestWriteTable(t *testing.T) {
	r := readReport(t, streamPass+streamCrash)
	var out strings.Builder
	r.WriteTable(&out, []string{weaviateModule + "/x", "p/ok", "p/crash"})
	got := strings.Split(strings.TrimSpace(out.String()), "\n")
	want := []string{
		"package  result     tests pass/fail/skip  subtests pass/fail/skip  time",
		"x        no result",
		"p/ok     ok         2/0/1                 3/0/1                    1.5s",
		"p/crash  FAIL       0/0/0                 0/0/0                    0.0s",
		"total               2/0/1                 3/0/1                    1.5s",
	}
	for i := range got {
		got[i] = strings.TrimRight(got[i], " ")
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("table:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestOutputHeadAndTail(t *testing.T) {
	var stream strings.Builder
	stream.WriteString(`{"Action":"run","Package":"p","Test":"T"}` + "\n")
	for i := range 100 {
		stream.WriteString(`{"Action":"output","Package":"p","Test":"T","Output":"line ` + string(rune('a'+i%26)) + `\n"}` + "\n")
	}
	stream.WriteString(`{"Action":"fail","Package":"p","Test":"T"}` + "\n" + `{"Action":"fail","Package":"p"}` + "\n")
	r := readReport(t, stream.String())
	var out strings.Builder
	r.WriteFailures(&out, []string{"p"})
	if n := strings.Count(out.String(), "    line "); n != 40 {
		t.Errorf("printed %d output lines, want 20 head + 20 tail", n)
	}
	if !strings.Contains(out.String(), "... (60 lines)") {
		t.Errorf("no elision marker:\n%s", out.String())
	}
}

func TestOnPristine(t *testing.T) {
	mixed, _ := os.ReadFile("testdata/go-test-mixed.json")
	base := readReport(t, string(mixed))
	cases := []struct {
		p    Problem
		want string
	}{
		{Problem{Package: "example.com/fake/a", Test: "TestFail/bad"}, "fails on the unpatched tree too"},
		{Problem{Package: "example.com/fake/a", Test: "TestPass/one"}, "passes on the unpatched tree: our patch breaks it"},
		{Problem{Package: "example.com/fake/b", Note: "build failed"}, "package fails too"},
		{Problem{Package: "example.com/fake/zzz", Test: "TestX"}, "unpatched: no result"},
		{Problem{Package: "example.com/fake/a", Test: "TestNew"}, "not run on the unpatched tree"},
	}
	for _, tc := range cases {
		if got := onPristine(base, tc.p); !strings.Contains(got, tc.want) {
			t.Errorf("%v: got %q, want %q", tc.p, got, tc.want)
		}
	}
	if onPristine(nil, cases[0].p) != "" {
		t.Error("no comparison without a pristine run")
	}
}

func TestPlan(t *testing.T) {
	pkgs := []TestPackage{
		{Dir: "a"},
		{Dir: "b", Skip: []SkippedTest{{"TestNeedsDocker", "why"}, {"TestCloud.x", "why"}}},
		{Dir: "c"},
	}
	got := plan(pkgs)
	want := []testRun{
		{pkgs: []string{weaviateModule + "/a", weaviateModule + "/c"}},
		{skip: `^(TestNeedsDocker|TestCloud\.x)$`, pkgs: []string{weaviateModule + "/b"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("plan:\n got %+v\nwant %+v", got, want)
	}
	args := strings.Join(goTestArgs(got[1], "20m"), " ")
	if args != `test -json -count=1 -timeout=20m -skip=^(TestNeedsDocker|TestCloud\.x)$ `+weaviateModule+"/b" {
		t.Errorf("go test args: %s", args)
	}
}

// The tested packages are the patched ones (from the patch table) then the
// relied-on ones, each once, each with a reason, each with tests in the
// pinned source, and every skip has its reason.
func TestTestPackages(t *testing.T) {
	pkgs := TestPackages()
	seen := map[string]bool{}
	for _, p := range Patches {
		if !containsDir(pkgs, p.Package()) {
			t.Errorf("patched package %s is not tested", p.Package())
		}
		seen[p.Package()] = true
	}
	for _, p := range pkgs[:len(seen)] {
		if !seen[p.Dir] {
			t.Errorf("patched packages must come first, found %s", p.Dir)
		}
	}
	for _, r := range ReliedOn {
		found := false
		for _, p := range pkgs {
			if p.Dir == r.Dir {
				found = true
				if !strings.Contains(p.Why, r.Why) {
					t.Errorf("%s: reason %q lost (got %q)", r.Dir, r.Why, p.Why)
				}
			}
		}
		if !found {
			t.Errorf("relied-on package %s is not tested", r.Dir)
		}
	}
	dirs := map[string]bool{}
	src := weaviateSource(t)
	for _, p := range pkgs {
		if dirs[p.Dir] {
			t.Errorf("%s listed twice", p.Dir)
		}
		dirs[p.Dir] = true
		if p.Why == "" {
			t.Errorf("%s: no reason", p.Dir)
		}
		for _, s := range p.Skip {
			if s.Why == "" || strings.Contains(s.Test, "/") {
				t.Errorf("%s: skip %q needs a reason and a top-level test name", p.Dir, s.Test)
			}
		}
		tests, _ := filepath.Glob(filepath.Join(src, p.Dir, "*_test.go"))
		if len(tests) == 0 {
			t.Errorf("%s has no tests in the pinned Weaviate source (moved by an upgrade?)", p.Dir)
		}
	}
	if !strings.HasPrefix(pkgs[0].Why, "patched: ") {
		t.Errorf("patched package reason %q", pkgs[0].Why)
	}
}

func containsDir(pkgs []TestPackage, dir string) bool {
	for _, p := range pkgs {
		if p.Dir == dir {
			return true
		}
	}
	return false
}
