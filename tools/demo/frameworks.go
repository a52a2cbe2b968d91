package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/diverse-select/diverse-select/integration/stack"
	"github.com/diverse-select/diverse-select/internal/corpus"
)

// The block of docs/frameworks.md that make frameworks writes.
const (
	frameworksBegin = "<!-- BEGIN frameworks -->"
	frameworksEnd   = "<!-- END frameworks -->"
)

// frameworkK is the k of the methods that return k results (top-k, MMR,
// PyversityRanker); frameworkRuns the timed calls per query and method.
const (
	frameworkK    = 6
	frameworkRuns = 5
)

// frameworkRow is one method's answer to one query, as frameworks.py writes it.
type frameworkRow struct {
	Framework string   `json:"framework"`
	Method    string   `json:"method"`
	Query     string   `json:"query"`
	Chunks    []string `json:"chunks"`
	MS        float64  `json:"ms"`
}

// sideBySide runs frameworks.py against the demo collection and writes its
// table into file's frameworks block.
func sideBySide(ctx context.Context, w io.Writer, s *stack.Stack, o options, mode string) error {
	root, err := stack.RepoRoot()
	if err != nil {
		return err
	}
	python, err := filepath.Abs(o.python)
	if err != nil {
		return err
	}
	if _, err := os.Stat(python); err != nil {
		return fmt.Errorf("-frameworks: no Python at %s (run `make venv`)", python)
	}
	dir, err := os.MkdirTemp("", "diverse-select-frameworks-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	var queries []string
	for _, q := range corpus.Queries() {
		queries = append(queries, q.Text)
	}
	cfg, err := json.Marshal(map[string]any{"httpPort": s.HTTPPort, "grpcPort": s.GRPCPort, "embedder": s.EmbedderURL,
		"class": Class, "textKey": "body", "queries": queries, "k": frameworkK, "pool": o.candidates,
		"budget": o.budget, "runs": frameworkRuns})
	if err != nil {
		return err
	}
	in, out := filepath.Join(dir, "in.json"), filepath.Join(dir, "out.json")
	if err := os.WriteFile(in, cfg, 0o644); err != nil {
		return err
	}
	fmt.Fprintln(w, "running each demo query through LangChain, LlamaIndex and Haystack (tools/demo/frameworks.py)")
	cmd := exec.CommandContext(ctx, python, filepath.Join(root, "tools", "demo", "frameworks.py"), in, out)
	cmd.Env = append(os.Environ(), "HAYSTACK_TELEMETRY_ENABLED=False")
	cmd.Stdout, cmd.Stderr = w, w
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("frameworks.py: %w", err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		return err
	}
	var res struct{ Rows []frameworkRow }
	if err := json.Unmarshal(b, &res); err != nil {
		return fmt.Errorf("frameworks.py's output: %w", err)
	}
	table, err := frameworksTable(res.Rows, mode, o.budget, o.candidates)
	if err != nil {
		return err
	}
	fmt.Fprint(w, table)
	return spliceFile(o.frameworks, func(doc string) (string, error) {
		return spliceBlock(doc, frameworksBegin, frameworksEnd, table)
	})
}

// rowStats are what a selection holds, judged by the corpus's labels.
type rowStats struct {
	chunks, facets, totalFacets, nearCopies, paraphrasePairs, tokens int
}

func statsOf(ids []string, q corpus.Query, byID map[string]corpus.Chunk) (rowStats, error) {
	st := rowStats{chunks: len(ids), totalFacets: len(q.Facets)}
	inQuery := map[string]bool{}
	for _, f := range q.Facets {
		inQuery[f.Facet] = true
	}
	facets, groups, selected := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, id := range ids {
		selected[id] = true
	}
	for _, id := range ids {
		c, ok := byID[id]
		if !ok {
			return st, fmt.Errorf("chunk %q is not in the demo corpus", id)
		}
		if inQuery[c.Facet] {
			facets[c.Facet] = true
		}
		if c.DupGroup != "" {
			if groups[c.DupGroup] {
				st.nearCopies++
			}
			groups[c.DupGroup] = true
		}
		if c.Kind == corpus.KindParaphrase && selected[c.ParaphraseOf] {
			st.paraphrasePairs++
		}
		st.tokens += promptTokens.Count(c.Body)
	}
	st.facets = len(facets)
	return st, nil
}

// frameworksTable is the block's markdown: per framework, each method's
// totals over the demo queries, then every query's row.
func frameworksTable(rows []frameworkRow, mode string, budget, pool int) (string, error) {
	byID := map[string]corpus.Chunk{}
	for _, c := range corpus.Chunks() {
		byID[c.ID] = c
	}
	byText := map[string]corpus.Query{}
	for _, q := range corpus.Queries() {
		byText[q.Text] = q
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Embedder %s; pool %d candidates; budget %d tokens for diverse-select, k = %d for the others; "+
		"tokens are cl100k_base tokens of the returned texts; time is the median of %d calls per query (the query's embedding included).\n\n",
		mode, pool, budget, frameworkK, frameworkRuns)
	b.WriteString("| framework | method | chunks, all queries | facets covered | near-copies | paraphrase pairs | tokens per query | median ms per query |\n|---|---|---|---|---|---|---|---|\n")
	type key struct{ framework, method string }
	var order []key
	sum := map[key]*rowStats{}
	times := map[key][]float64{}
	var detail strings.Builder
	detail.WriteString("| framework | method | query | chunks | facets | near-copies | paraphrase pairs | tokens | ms |\n|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range rows {
		q, ok := byText[r.Query]
		if !ok {
			return "", fmt.Errorf("row for unknown query %q", r.Query)
		}
		st, err := statsOf(r.Chunks, q, byID)
		if err != nil {
			return "", fmt.Errorf("%s, %s, %s: %w", r.Framework, r.Method, q.ID, err)
		}
		k := key{r.Framework, r.Method}
		if sum[k] == nil {
			order = append(order, k)
			sum[k] = &rowStats{}
		}
		s := sum[k]
		s.chunks, s.facets, s.totalFacets = s.chunks+st.chunks, s.facets+st.facets, s.totalFacets+st.totalFacets
		s.nearCopies, s.paraphrasePairs, s.tokens = s.nearCopies+st.nearCopies, s.paraphrasePairs+st.paraphrasePairs, s.tokens+st.tokens
		times[k] = append(times[k], r.MS)
		fmt.Fprintf(&detail, "| %s | %s | %s | %d | %d/%d | %d | %d | %d | %.1f |\n", r.Framework, r.Method, q.ID,
			st.chunks, st.facets, st.totalFacets, st.nearCopies, st.paraphrasePairs, st.tokens, r.MS)
	}
	for _, k := range order {
		s, ts := sum[k], times[k]
		slices.Sort(ts)
		fmt.Fprintf(&b, "| %s | %s | %d | %d/%d | %d | %d | %d | %.1f |\n", k.framework, k.method, s.chunks,
			s.facets, s.totalFacets, s.nearCopies, s.paraphrasePairs, s.tokens/len(ts), ts[len(ts)/2])
	}
	b.WriteString("\nPer query:\n\n")
	b.WriteString(detail.String())
	return b.String(), nil
}
