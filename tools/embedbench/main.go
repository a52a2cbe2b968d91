// Command embedbench measures the local embedder's modes as Weaviate uses
// them - over HTTP, one text a request - and the evaluation's batch path,
// and writes the table into docs/embedder.md (make bench-embedder):
//
//   - single-query latency: HotpotQA questions sent one after another
//     (a nearText's vectorisation), median and p95;
//   - passage throughput: HotpotQA paragraphs from 8 concurrent clients (an
//     import), texts per second;
//   - the batch path (tools/eval's vector cache): the same paragraphs in
//     one Encode call, texts per second (neural mode only);
//   - memory: the peak resident size of the embedder and its worker.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/diverse-select/diverse-select/cmd/embedder/embed"
	"github.com/diverse-select/diverse-select/integration/stack"
	"github.com/diverse-select/diverse-select/tools/internal/docblock"
)

func main() {
	var (
		doc      = flag.String("doc", "docs/embedder.md", "document whose embedder-speed block is rewritten")
		data     = flag.String("data", "", "shared data folder (default: ../shared/data beside the repo root)")
		python   = flag.String("python", "", "the neural worker's Python (default: <repo>/.venv/bin/python)")
		queries  = flag.Int("queries", 100, "questions sent one at a time, per mode")
		passages = flag.Int("passages", 400, "paragraphs sent by 8 clients, per mode")
		print    = flag.Bool("print", false, "print the table; do not touch the document")
	)
	flag.Parse()
	if err := run(*doc, *data, *python, *queries, *passages, *print); err != nil {
		fmt.Fprintln(os.Stderr, "embedbench:", err)
		os.Exit(1)
	}
}

// row is one mode's measurements.
type row struct {
	mode                string
	p50, p95            time.Duration
	perSecond, batchSec float64
	rssMiB              float64
}

func run(doc, data, python string, queries, passages int, print bool) error {
	root, err := stack.RepoRoot()
	if err != nil {
		return err
	}
	if data == "" {
		data = filepath.Join(root, "..", "shared", "data")
	}
	if python == "" {
		python = filepath.Join(root, ".venv", "bin", "python")
	}
	qs, ps, err := hotpotTexts(filepath.Join(data, "hotpotqa-dev300", "dev_subsampled.jsonl"), queries, passages)
	if err != nil {
		return err
	}
	modes := [][]string{
		{"-mode", "neural", "-python", python},
		{"-mode", "glove", "-glove-dir", filepath.Join(data, "glove-6b-100d-top100k")},
		{"-mode", "hash"},
	}
	var rows []row
	for _, args := range modes {
		r, err := measure(filepath.Join(root, "bin"), args, qs, ps)
		if err != nil {
			return fmt.Errorf("%s: %w", args[1], err)
		}
		rows = append(rows, r)
	}
	// The batch path, as tools/eval runs it.
	n, err := embed.StartNeural(python, os.Stderr)
	if err != nil {
		return err
	}
	if _, err := n.Encode(context.Background(), ps[:min(32, len(ps))]); err != nil { // warm-up
		return err
	}
	t0 := time.Now()
	if _, err := n.Encode(context.Background(), ps); err != nil {
		return err
	}
	rows[0].batchSec = float64(len(ps)) / time.Since(t0).Seconds()
	_ = n.Close()

	var b strings.Builder
	fmt.Fprintf(&b, "Measured by `make bench-embedder` (tools/embedbench) on %s, %d cores, %s, load average %s at the start: "+
		"%d HotpotQA questions one at a time, then %d of its paragraphs from 8 concurrent clients, over HTTP as Weaviate sends them; "+
		"the batch column is one `Encode` call over the same paragraphs, the path of the evaluation's vector cache. "+
		"Memory is the peak resident size of the embedder and, in neural mode, its Python worker.\n\n",
		time.Now().UTC().Format("2006-01-02"), runtime.NumCPU(), docblock.CPUModel(), loadAvg(), len(qs), len(ps))
	b.WriteString("| mode | query p50 | query p95 | paragraphs/s (8 clients) | paragraphs/s (batch) | peak memory |\n|---|---|---|---|---|---|\n")
	for _, r := range rows {
		batch := "-"
		if r.batchSec > 0 {
			batch = fmt.Sprintf("%.1f", r.batchSec)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %.1f | %s | %.0f MiB |\n", r.mode, ms(r.p50), ms(r.p95), r.perSecond, batch, r.rssMiB)
	}
	if print {
		fmt.Print(b.String())
		return nil
	}
	if !filepath.IsAbs(doc) {
		doc = filepath.Join(root, doc)
	}
	return docblock.Splice(doc, "embedder-speed", b.String())
}

// measure starts the embedder with args and times it over HTTP.
func measure(bin string, args, qs, ps []string) (row, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	s, err := stack.StartEmbedder(ctx, stack.Options{BinDir: bin, EmbedderArgs: args})
	if err != nil {
		return row{}, err
	}
	defer s.Stop()
	r := row{mode: args[1]}
	c := &http.Client{Timeout: time.Minute}
	for _, q := range qs[:min(10, len(qs))] { // warm-up
		if err := post(c, s.EmbedderURL, q); err != nil {
			return r, err
		}
	}
	lat := make([]time.Duration, 0, len(qs))
	for _, q := range qs {
		t := time.Now()
		if err := post(c, s.EmbedderURL, q); err != nil {
			return r, err
		}
		lat = append(lat, time.Since(t))
	}
	slices.Sort(lat)
	r.p50, r.p95 = lat[len(lat)/2], lat[len(lat)*95/100]

	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	next := make(chan string)
	t0 := time.Now()
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for p := range next {
				if err := post(c, s.EmbedderURL, p); err != nil {
					mu.Lock()
					firstErr = err
					mu.Unlock()
				}
			}
		}()
	}
	for _, p := range ps {
		next <- p
	}
	close(next)
	wg.Wait()
	if firstErr != nil {
		return r, firstErr
	}
	r.perSecond = float64(len(ps)) / time.Since(t0).Seconds()
	r.rssMiB = treePeakRSS(s.EmbedderPID())
	return r, nil
}

func post(c *http.Client, url, text string) error {
	body, _ := json.Marshal(map[string]any{"text": text, "config": map[string]any{"task_type": "query"}})
	res, err := c.Post(url+"/vectors", "application/json", bytes.NewReader(body))
	if err != nil {
		return err
	}
	defer res.Body.Close()
	var out embed.VectorsResponse
	if err := json.NewDecoder(res.Body).Decode(&out); err != nil {
		return err
	}
	if res.StatusCode != http.StatusOK || len(out.Vector) == 0 {
		return fmt.Errorf("POST /vectors: status %d", res.StatusCode)
	}
	return nil
}

// hotpotTexts reads the first q questions and p distinct paragraphs
// (title, newline, text: the evaluation's form).
func hotpotTexts(path string, q, p int) ([]string, []string, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	var qs, ps []string
	seen := map[string]bool{}
	for _, line := range strings.Split(string(raw), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		var rec struct {
			Question string `json:"question_text"`
			Contexts []struct {
				Title string `json:"title"`
				Text  string `json:"paragraph_text"`
			} `json:"contexts"`
		}
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			return nil, nil, err
		}
		if len(qs) < q {
			qs = append(qs, rec.Question)
		}
		for _, c := range rec.Contexts {
			if t := c.Title + "\n" + c.Text; len(ps) < p && !seen[t] {
				seen[t] = true
				ps = append(ps, t)
			}
		}
	}
	if len(qs) < q || len(ps) < p {
		return nil, nil, fmt.Errorf("%s holds %d questions and %d paragraphs, fewer than asked", path, len(qs), len(ps))
	}
	return qs, ps, nil
}

// treePeakRSS is the peak resident size (VmHWM) of pid and its children, in MiB.
func treePeakRSS(pid int) float64 {
	if pid == 0 {
		return 0
	}
	var kib float64
	for _, p := range append([]int{pid}, children(pid)...) {
		raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p))
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(raw), "\n") {
			if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmHWM:" {
				v, _ := strconv.ParseFloat(f[1], 64)
				kib += v
			}
		}
	}
	return kib / 1024
}

// children are pid's child processes, from every thread's list (a Go
// program starts a child from whichever thread runs the call).
func children(pid int) []int {
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
	var out []int
	for _, f := range tasks {
		raw, _ := os.ReadFile(f)
		for _, c := range strings.Fields(string(raw)) {
			if n, err := strconv.Atoi(c); err == nil {
				out = append(out, n)
			}
		}
	}
	return out
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000) }

func loadAvg() string {
	raw, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	return strings.Join(strings.Fields(string(raw))[:1], "")
}
