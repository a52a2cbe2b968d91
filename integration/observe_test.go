package integration

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	pb "github.com/weaviate/weaviate/grpc/generated/protocol/v1"
)

// Observability: the shared stack runs with PROMETHEUS_MONITORING_ENABLED and
// LOG_LEVEL=debug (main_test.go). These tests send a known set of queries -
// both GraphQL forms, the gRPC rerank route, a refused argument - and check
// that the module's metrics on Weaviate's /metrics moved by exactly that, and
// that its log lines appeared in the server log. No test runs in parallel,
// so nothing else queries the server meanwhile.

// scrape reads the stack's /metrics.
func scrape(t testing.TB) map[string]*dto.MetricFamily {
	t.Helper()
	return scrapeURL(t, srv.MetricsURL)
}

// scrapeURL reads a server's /metrics at url.
func scrapeURL(t testing.TB, url string) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := httpc.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: HTTP %d", url, resp.StatusCode)
	}
	var p expfmt.TextParser
	mfs, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("parse /metrics: %v", err)
	}
	return mfs
}

// sample returns the value of a counter or the sample count of a histogram
// with the given labels (0 when the series does not exist yet).
func sample(mfs map[string]*dto.MetricFamily, name string, labels ...string) float64 {
	mf, ok := mfs[name]
	if !ok {
		return 0
	}
	want := map[string]string{}
	for i := 0; i+1 < len(labels); i += 2 {
		want[labels[i]] = labels[i+1]
	}
next:
	for _, m := range mf.GetMetric() {
		got := map[string]string{}
		for _, l := range m.GetLabel() {
			got[l.GetName()] = l.GetValue()
		}
		for k, v := range want {
			if got[k] != v {
				continue next
			}
		}
		if h := m.GetHistogram(); h != nil {
			return float64(h.GetSampleCount())
		}
		return m.GetCounter().GetValue()
	}
	return 0
}

func TestMetrics(t *testing.T) {
	c := rerankHealth(t)
	near := fmt.Sprintf(`nearText: {concepts: [%q]}`, healthQuery)
	before := scrape(t)
	if _, ok := before["diverse_select_feature_cache_hits_total"]; !ok {
		t.Fatal("/metrics has no diverse_select_ metrics: the module did not register its collectors")
	}

	// 2 x mmr (argument form), 1 x default strategy (field form), 1 x gRPC
	// rerank (adagres, re-fetches ntok), 1 refused strategy name.
	for range 2 {
		hits := get(t, c, sel(c, near+", limit: 6", `strategy: "mmr", tokenBudget: 60, candidates: 15`, "body"), nil)
		checkSelection(t, hits, 60, true)
	}
	hits := get(t, c, field(c, near+", limit: 15", "tokenBudget: 60", "body"), nil)
	if len(hits) == 0 || hits[0].DS.Strategy != "coverage" {
		t.Fatalf("field form: %d hits, want the default strategy coverage", len(hits))
	}
	mustGRPC(t, withNearText(rerankRequest(c, 15)))
	gqlError(t, sel(c, near, `strategy: "nope"`, "body"), nil)

	after := scrape(t)
	delta := func(name string, labels ...string) float64 {
		return sample(after, name, labels...) - sample(before, name, labels...)
	}
	for _, tc := range []struct {
		name   string
		labels []string
		want   float64
	}{
		{"diverse_select_selection_duration_seconds", []string{"strategy", "mmr", "route", "argument"}, 2},
		{"diverse_select_selection_duration_seconds", []string{"strategy", "coverage", "route", "field"}, 1},
		{"diverse_select_selection_duration_seconds", []string{"strategy", "adagres", "route", "rerank"}, 1},
		{"diverse_select_candidates", []string{"strategy", "mmr"}, 2},
		{"diverse_select_selected", []string{"strategy", "mmr"}, 2},
		{"diverse_select_budget_use_ratio", []string{"strategy", "mmr"}, 2},
		{"diverse_select_candidates", []string{"strategy", "adagres"}, 1},
		{"diverse_select_errors_total", []string{"kind", "invalid_argument", "route", "argument"}, 1},
		{"diverse_select_errors_total", []string{"kind", "invalid_argument", "route", "field"}, 0},
		// The selection stage asks the search for what the selection reads:
		// the gRPC route no longer reads candidates again by id.
		{"diverse_select_degraded_total", []string{"reason", "refetch"}, 0},
	} {
		if got := delta(tc.name, tc.labels...); got != tc.want {
			t.Errorf("%s%v moved by %v, want %v", tc.name, tc.labels, got, tc.want)
		}
	}
	// The second mmr query found every candidate's token count cached.
	if got := delta("diverse_select_feature_cache_hits_total"); got < 15 {
		t.Errorf("feature cache hits moved by %v, want >= 15 (the second identical query's candidates)", got)
	}
	// Every selection's duration is in the histogram's sum.
	if sum := histSum(after, "diverse_select_selection_duration_seconds", "mmr") - histSum(before,
		"diverse_select_selection_duration_seconds", "mmr"); sum <= 0 || sum > 10 {
		t.Errorf("mmr selection time moved by %v s, want a positive figure below 10 s", sum)
	}
}

func histSum(mfs map[string]*dto.MetricFamily, name, strategy string) float64 {
	s := 0.0
	for _, m := range mfs[name].GetMetric() {
		for _, l := range m.GetLabel() {
			if l.GetName() == "strategy" && l.GetValue() == strategy {
				s += m.GetHistogram().GetSampleSum()
			}
		}
	}
	return s
}

// TestSelectionLog: one debug line per selection with its figures, on both
// the GraphQL and the gRPC route, and the warning for a re-fetch.
func TestSelectionLog(t *testing.T) {
	c := rerankHealth(t)
	near := fmt.Sprintf(`nearText: {concepts: [%q]}`, healthQuery)
	from := logSize(t)
	hits := get(t, c, sel(c, near+", limit: 5", `strategy: "dpp", tokenBudget: 50, candidates: 12`, "body"), nil)
	mustGRPC(t, withNearText(rerankRequest(c, 12)))

	want := []struct {
		level, msg string
		fields     map[string]any
	}{
		{"debug", "diverse-select: selection", map[string]any{"class": c, "strategy": "dpp", "route": "argument",
			"candidates": 12.0, "selected": float64(len(hits)), "budget": 50.0, "tokensUsed": float64(hits[0].DS.TokensUsed)}},
		{"debug", "diverse-select: selection", map[string]any{"class": c, "strategy": "adagres", "route": "rerank",
			"candidates": 12.0, "budget": 120.0}},
	}
	var lines []map[string]any
	deadline := time.Now().Add(10 * time.Second)
	for {
		lines = moduleLogLines(t, from)
		missing := 0
		for _, w := range want {
			if findLine(lines, w.level, w.msg, w.fields) == nil {
				missing++
			}
		}
		if missing == 0 {
			break
		}
		if time.Now().After(deadline) {
			for _, w := range want {
				if findLine(lines, w.level, w.msg, w.fields) == nil {
					t.Errorf("no %s line %q with %v in the server log; the module's lines: %v", w.level, w.msg, w.fields, lines)
				}
			}
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	if l := findLine(lines, "warning", "diverse-select: the search did not load", map[string]any{"class": c}); l != nil {
		t.Errorf("the gRPC route read candidates again by id: %v", l)
	}
	sel := findLine(lines, "debug", "diverse-select: selection", want[0].fields)
	t.Logf("selection line: %v", sel)
	for _, k := range []string{"durationMs", "removed", "selected", "tokensUsed"} {
		if _, ok := sel[k]; !ok {
			t.Errorf("selection line has no %s: %v", k, sel)
		}
	}
	if d, _ := sel["durationMs"].(float64); d <= 0 {
		t.Errorf("durationMs = %v, want > 0", sel["durationMs"])
	}
	if n := countLines(lines, "diverse-select: selection"); n != 2 {
		t.Errorf("%d selection lines for 2 selections", n)
	}
}

// withNearText makes req a nearText search for healthQuery.
func withNearText(req *pb.SearchRequest) *pb.SearchRequest {
	req.NearText = &pb.NearTextSearch{Query: []string{healthQuery}}
	return req
}

func logSize(t testing.TB) int64 {
	t.Helper()
	fi, err := os.Stat(logPath)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

// moduleLogLines returns the module's JSON log lines written after offset.
func moduleLogLines(t testing.TB, offset int64) []map[string]any {
	t.Helper()
	f, err := os.Open(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Seek(offset, 0); err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "weaviate | ")
		if !ok || !strings.Contains(line, "diverse-select") {
			continue
		}
		var m map[string]any
		if json.Unmarshal([]byte(line), &m) == nil && m["module"] != nil {
			out = append(out, m)
		}
	}
	return out
}

// findLine returns the first line of the level whose msg starts with msg and
// that has every field.
func findLine(lines []map[string]any, level, msg string, fields map[string]any) map[string]any {
next:
	for _, l := range lines {
		if l["level"] != level || !strings.HasPrefix(fmt.Sprint(l["msg"]), msg) {
			continue
		}
		for k, v := range fields {
			if l[k] != v {
				continue next
			}
		}
		return l
	}
	return nil
}

func countLines(lines []map[string]any, msg string) int {
	n := 0
	for _, l := range lines {
		if l["msg"] == msg {
			n++
		}
	}
	return n
}
