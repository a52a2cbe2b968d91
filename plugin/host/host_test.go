package host

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/diverse-select/diverse-select/config"
	"github.com/diverse-select/diverse-select/selectors"
	_ "github.com/diverse-select/diverse-select/selectors/all"
)

// The tests start real plugin processes: plugin/testdata/misbehave, built
// once and copied under the names that pick its behaviour, in one host
// shared by every test (the selectors registry is process-wide).
var (
	testHost *Host
	binDir   string
)

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	flag.Parse()
	dir, err := os.MkdirTemp("", "diverse-select-plugins-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	binDir = dir
	bin := filepath.Join(dir, "misbehave")
	build := exec.Command("go", "build", "-o", bin, "../testdata/misbehave")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build the test plugin:", err)
		return 1
	}
	b, err := os.ReadFile(bin)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	// The folder: the behaviours, plus a file named after a built-in strategy
	// and one whose name is no strategy name; a second "cheat" elsewhere.
	for _, name := range []string{"passthrough", "crash", "hang", "cheat", "badversion", "pinned", "env", "mmr", "bad.name.x", "dup/cheat"} {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		if err := os.WriteFile(path, b, 0o755); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	os.Remove(bin)
	sum := sha256.Sum256(b)
	// Weaviate's environment holds a secret; the plugins get only what
	// DIVERSE_SELECT_PLUGIN_ENV names (TestPluginEnvironment).
	os.Setenv("DIVERSE_SELECT_TEST_SECRET", "s3cret")
	os.Setenv("DIVERSE_SELECT_TEST_SHARED", "shared-value")
	cfg, err := config.PluginsFromEnv(func(name string) string {
		return map[string]string{
			"DIVERSE_SELECT_PLUGIN_DIR":     dir,
			"DIVERSE_SELECT_PLUGINS":        filepath.Join(dir, "dup", "cheat"),
			"DIVERSE_SELECT_PLUGIN_TIMEOUT": "1s",
			"DIVERSE_SELECT_PLUGIN_ENV":     "DIVERSE_SELECT_TEST_SHARED, DIVERSE_SELECT_TEST_UNSET",
			// passthrough pinned to its true hash, pinned to a wrong one.
			"DIVERSE_SELECT_PLUGIN_SHA256": "passthrough=" + hex.EncodeToString(sum[:]) + ",pinned=" + strings.Repeat("ab", 32),
		}[name]
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	logger := logrus.New()
	logger.SetOutput(io.Discard)
	if testing.Verbose() {
		logger.SetOutput(os.Stderr)
		logger.SetLevel(logrus.DebugLevel)
	}
	testHost = Start(cfg, logger)
	defer testHost.Close()
	return m.Run()
}

// problem is n random candidates of dimension d with token costs 1..10.
func problem(n, d int, seed int64) *selectors.Problem {
	rng := rand.New(rand.NewSource(seed))
	p := &selectors.Problem{Candidates: make([]selectors.Candidate, n)}
	for i := range p.Candidates {
		v := make([]float32, d)
		for j := range v {
			v[j] = float32(rng.NormFloat64())
		}
		p.Candidates[i] = selectors.Candidate{ID: fmt.Sprintf("00000000-0000-0000-0000-%012d", i),
			Relevance: rng.Float64(), Tokens: 1 + rng.Intn(10), Vector: v}
	}
	return p
}

func statusOf(name string) Status {
	for _, s := range testHost.Status() {
		if s.Strategy == name {
			return s
		}
	}
	return Status{}
}

func TestPassthroughMatchesBuiltIn(t *testing.T) {
	for _, tc := range []struct {
		params map[string]any
		budget int
		k      int
	}{
		{nil, 0, 5},
		{map[string]any{"lambda": 0.3, "normalize": "minmax"}, 40, 0},
		{map[string]any{"lambda": 0.9, "simMap": "half"}, 25, 8},
	} {
		p := problem(60, 32, 7)
		p.Budget, p.MaxResults = tc.budget, tc.k
		want, err := run2(t, "mmr", tc.params, p)
		if err != nil {
			t.Fatal(err)
		}
		got, err := run2(t, "passthrough", tc.params, p)
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(got.Indices()) != fmt.Sprint(want.Indices()) {
			t.Errorf("%v: plugin selected %v, built-in mmr %v", tc.params, got.Indices(), want.Indices())
		}
		for i := range got.Items {
			if got.Items[i].Gain != want.Items[i].Gain || got.Items[i].Tokens != want.Items[i].Tokens {
				t.Errorf("%v: item %d: plugin %+v, built-in %+v", tc.params, i, got.Items[i], want.Items[i])
			}
		}
	}
	if s := statusOf("passthrough"); s.State != StateRunning || !s.Pinned || s.PID == 0 {
		t.Errorf("passthrough status %+v, want running, pinned, with a pid", s)
	}
}

// TestLargeProblem: a pool of 2000 candidates with 1536-dimensional vectors
// (12 MiB) passes gRPC's default 4 MiB message limit.
func TestLargeProblem(t *testing.T) {
	p := problem(2000, 1536, 5)
	p.MaxResults = 3
	want, err := run2(t, "mmr", nil, p)
	if err != nil {
		t.Fatal(err)
	}
	got, err := run2(t, "passthrough", nil, p)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got.Indices()) != fmt.Sprint(want.Indices()) {
		t.Errorf("plugin selected %v, built-in mmr %v", got.Indices(), want.Indices())
	}
}

// TestConsecutiveCrashes: each crash backs off longer, and the next call
// still waits for a restart due within its timeout.
func TestConsecutiveCrashes(t *testing.T) {
	for i := 0; i < 3; i++ {
		if _, err := run2(t, "crash", nil, problem(10, 8, 2)); err == nil || !strings.Contains(err.Error(), "crashed") {
			t.Fatalf("crash %d: %v", i, err)
		}
	}
	if _, err := run2(t, "crash", map[string]any{"crash": false}, problem(10, 8, 2)); err != nil {
		t.Fatalf("after three crashes (backoff 100, 200, 400 ms): %v", err)
	}
	if s := statusOf("crash"); s.State != StateRunning {
		t.Errorf("status %+v", s)
	}
}

func run2(t *testing.T, name string, params map[string]any, p *selectors.Problem) (*selectors.Result, error) {
	t.Helper()
	s, err := selectors.New(name, params)
	if err != nil {
		return nil, err
	}
	return s.Run(context.Background(), p)
}

func TestBrokenPluginsAreUnavailableWithTheirCause(t *testing.T) {
	for _, tc := range []struct{ name, want string }{
		{"badversion", "plugin speaks protocol 2, this module speaks 1"},
		{"pinned", "does not match its pin in DIVERSE_SELECT_PLUGIN_SHA256"},
	} {
		_, err := selectors.New(tc.name, map[string]any{"lambda": 0.5})
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "unavailable") {
			t.Errorf("%s: error %v, want it to say unavailable: %q", tc.name, err, tc.want)
		}
		if s := statusOf(tc.name); s.State != StateFailed || !strings.Contains(s.Error, tc.want) {
			t.Errorf("%s: status %+v", tc.name, s)
		}
		d, _ := selectors.Lookup(tc.name)
		if !strings.Contains(d.Doc, "unavailable") {
			t.Errorf("%s: doc %q should say unavailable", tc.name, d.Doc)
		}
	}
}

// TestNameConflicts: a plugin named after a built-in strategy, after
// another plugin, or with no valid strategy name is refused; the others run.
func TestNameConflicts(t *testing.T) {
	byPath := map[string]Status{}
	for _, s := range testHost.Status() {
		byPath[s.Path] = s
	}
	for _, tc := range []struct{ file, want string }{
		{"mmr", `a strategy named "mmr" already exists`},
		{"bad.name.x", "does not give a valid strategy name"},
		{"dup/cheat", `already gives the strategy name "cheat"`},
	} {
		s := byPath[filepath.Join(binDir, tc.file)]
		if s.State != StateFailed || !strings.Contains(s.Error, tc.want) || s.PID != 0 {
			t.Errorf("%s: %+v, want failed: %q", tc.file, s, tc.want)
		}
	}
	if d, _ := selectors.Lookup("mmr"); d.Unavailable != nil || d.New == nil {
		t.Error("the built-in mmr was replaced")
	}
	if s := byPath[filepath.Join(binDir, "cheat")]; s.State != StateRunning {
		t.Errorf("the first cheat: %+v", s)
	}
}

func TestCheatIsRefused(t *testing.T) {
	for _, tc := range []struct{ how, want string }{
		{"duplicate", "index 0 selected twice"},
		{"outofrange", "index 20 is out of range: 20 candidates"},
		{"overbudget", "over the token budget of 5"},
		{"toomany", "4 items selected, more than maxResults 3"},
	} {
		p := problem(20, 8, 1)
		p.Budget = 5
		if tc.how == "toomany" {
			p.Budget, p.MaxResults = 0, 3
		}
		_, err := run2(t, "cheat", map[string]any{"cheat": tc.how}, p)
		if err == nil || !strings.Contains(err.Error(), `plugin "cheat" returned an invalid selection: `) ||
			!strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.how, err, tc.want)
		}
	}
	if s := statusOf("cheat"); s.State != StateRunning || s.Restarts != 0 {
		t.Errorf("a cheat is not a crash: status %+v", s)
	}
}

func TestCrashRestarts(t *testing.T) {
	before := statusOf("crash")
	_, err := run2(t, "crash", nil, problem(10, 8, 2))
	if err == nil || !strings.Contains(err.Error(), `plugin "crash" crashed during the call`) ||
		!strings.Contains(err.Error(), "exit status 3") {
		t.Fatalf("error %v, want a crash naming exit status 3", err)
	}
	// The next call waits for the restart (first backoff) and succeeds.
	res, err := run2(t, "crash", map[string]any{"crash": false}, problem(10, 8, 2))
	if err != nil || len(res.Items) == 0 {
		t.Fatalf("after the restart: %v, %v", res, err)
	}
	after := statusOf("crash")
	if after.Restarts != before.Restarts+1 || after.PID == before.PID || after.State != StateRunning {
		t.Errorf("status before %+v, after %+v: want one restart, a new pid", before, after)
	}
	if processAlive(before.PID) {
		t.Errorf("the crashed process %d is still there", before.PID)
	}
}

func TestHangTimesOutAndIsReplaced(t *testing.T) {
	before := statusOf("hang")
	start := time.Now()
	_, err := run2(t, "hang", nil, problem(10, 8, 3))
	if err == nil || !strings.Contains(err.Error(), `plugin "hang" did not answer within 1s (DIVERSE_SELECT_PLUGIN_TIMEOUT)`) {
		t.Fatalf("error %v", err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("the call took %s with a timeout of 1s", took)
	}
	deadline := time.Now().Add(10 * time.Second)
	for statusOf("hang").Restarts == before.Restarts && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	after := statusOf("hang")
	if after.Restarts != before.Restarts+1 || after.PID == before.PID {
		t.Errorf("status before %+v, after %+v: want the hung process replaced", before, after)
	}
	if processAlive(before.PID) {
		t.Errorf("the hung process %d is still there", before.PID)
	}
}

// processAlive reports whether pid is a live (not zombie) process.
func processAlive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	f := strings.Fields(string(b))
	return len(f) > 2 && f[2] != "Z"
}

// TestCheckCommonKeys: a plugin parameter named like a common key is
// refused (the other spec rules are selectors.CheckParamSpecs', tested there).
func TestCheckCommonKeys(t *testing.T) {
	if err := checkCommonKeys([]selectors.ParamSpec{{Name: "tokenBudget", Kind: selectors.KindInt}}); err == nil ||
		!strings.Contains(err.Error(), `parameter "tokenBudget" has the name of a common key`) {
		t.Errorf("tokenBudget: %v", err)
	}
	if err := checkCommonKeys([]selectors.ParamSpec{{Name: "w", Kind: selectors.KindFloat}}); err != nil {
		t.Errorf("w: %v", err)
	}
}

// TestPluginEnvironment: a plugin process starts with the variables
// DIVERSE_SELECT_PLUGIN_ENV names and none other of Weaviate's environment.
func TestPluginEnvironment(t *testing.T) {
	d, ok := selectors.Lookup("env")
	if !ok {
		t.Fatalf("the env plugin is not registered: %+v", statusOf("env"))
	}
	_, env, _ := strings.Cut(d.Doc, "env=")
	if !strings.Contains(env, "DIVERSE_SELECT_TEST_SHARED=shared-value") {
		t.Errorf("the plugin's environment %q lacks the variable DIVERSE_SELECT_PLUGIN_ENV names", env)
	}
	for _, leaked := range []string{"s3cret", "DIVERSE_SELECT_TEST_SECRET", "PATH=", "HOME=", "DIVERSE_SELECT_TEST_UNSET"} {
		if strings.Contains(env, leaked) {
			t.Errorf("the plugin's environment %q holds %q", env, leaked)
		}
	}
}

// TestVerifiedCopy: a pinned plugin runs from a private copy of the bytes
// that were hashed, so swapping the file after the check changes nothing;
// a file that does not match is refused before anything runs.
func TestVerifiedCopy(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "p")
	good := []byte("#!/bin/sh\necho good\n")
	if err := os.WriteFile(path, good, 0o755); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(good)
	p := &Plugin{path: path, pin: sum[:]}
	copyPath, err := p.verifiedCopy()
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(filepath.Dir(copyPath))
	if err := os.WriteFile(path, []byte("#!/bin/sh\necho swapped\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(copyPath)
	if err != nil || string(got) != string(good) {
		t.Fatalf("copy holds %q (%v), want the verified bytes", got, err)
	}
	info, err := os.Stat(filepath.Dir(copyPath))
	if err != nil || info.Mode().Perm() != 0o700 {
		t.Fatalf("copy folder mode %v (%v), want 0700", info.Mode().Perm(), err)
	}
	if _, err := p.verifiedCopy(); err == nil || !strings.Contains(err.Error(), "does not match its pin") {
		t.Fatalf("swapped file: %v, want a pin mismatch", err)
	}
}
