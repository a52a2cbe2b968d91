package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/diverse-select/diverse-select/integration/stack"
)

// profile reads the server's goroutine count and its heap in use after a
// forced GC, from Weaviate's pprof handlers (GO_PROFILING_PORT).
func (l *load) profile(ctx context.Context) (goroutines int, heapInUse uint64, err error) {
	body, err := l.pprof(ctx, "/debug/pprof/goroutine?debug=1")
	if err != nil {
		return 0, 0, err
	}
	l.dumps = append(l.dumps, body) // kept for a failure's diagnosis
	first, _, _ := strings.Cut(body, "\n")
	if _, err := fmt.Sscanf(first, "goroutine profile: total %d", &goroutines); err != nil {
		return 0, 0, fmt.Errorf("goroutine profile: unexpected first line %q", first)
	}
	body, err = l.pprof(ctx, "/debug/pprof/heap?gc=1&debug=1")
	if err != nil {
		return 0, 0, err
	}
	sc := bufio.NewScanner(strings.NewReader(body))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "# HeapInuse = "); ok {
			heapInUse, err = strconv.ParseUint(strings.TrimSpace(v), 10, 64)
			return goroutines, heapInUse, err
		}
	}
	return 0, 0, fmt.Errorf("heap profile without HeapInuse")
}

func (l *load) pprof(ctx context.Context, path string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, l.s.ProfilingURL+path, nil)
	if err != nil {
		return "", err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", fmt.Errorf("pprof %s: %w", path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("pprof %s: status %d", path, resp.StatusCode)
	}
	return string(b), err
}

// summary is a run's figures.
type summary struct {
	// via says how the queries went: GraphQL to the module, or gRPC through the gateway.
	via                                   string
	requests, concurrency, distinct, docs int
	elapsed                               time.Duration
	errors, wrong                         int64
	quietWrong, afterWrong                int
	firstError, firstWriteError           string
	imported, reput, writeErrors          int64
	p50, p95, p99                         time.Duration
	goroutinesBefore, goroutinesAfter     int
	heapBefore, heapAfter                 uint64
	shape                                 shape
	rssBefore, rssAfter                   stack.ServerMemory
	rssPeak                               uint64 // sampled during the run
}

func mib(b uint64) float64 { return float64(b) / (1 << 20) }

func (s *summary) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "load: %d diverseSelect queries %s (shape %s: %d distinct, %d query vectors x %d strategy/form shapes, pool %d of %d objects of %d dimensions), concurrency %d, in %s (%.0f queries/s)\n",
		s.requests, s.via, s.shape.name, s.distinct, s.shape.queryVectors, len(s.shape.specs), s.shape.pool, s.docs, s.shape.dims,
		s.concurrency, s.elapsed.Round(time.Millisecond), float64(s.requests)/s.elapsed.Seconds())
	fmt.Fprintf(&b, "load: during the run: %d objects imported into %s, %d queried objects re-put unchanged, %d write errors\n",
		s.imported, written, s.reput, s.writeErrors)
	fmt.Fprintf(&b, "load: errors %d, wrong selections %d (before the run %d, after it %d, of %d distinct queries each)\n",
		s.errors, s.wrong, s.quietWrong, s.afterWrong, s.distinct)
	fmt.Fprintf(&b, "load: latency p50 %s, p95 %s, p99 %s\n", s.p50.Round(100*time.Microsecond), s.p95.Round(100*time.Microsecond), s.p99.Round(100*time.Microsecond))
	fmt.Fprintf(&b, "load: server goroutines before %d, after %d\n", s.goroutinesBefore, s.goroutinesAfter)
	fmt.Fprintf(&b, "load: server heap in use after GC before %.1f MiB, after %.1f MiB\n", mib(s.heapBefore), mib(s.heapAfter))
	fmt.Fprintf(&b, "load: server resident memory before the run %.0f MiB, peak during it %.0f MiB, after it %.0f MiB (peak since start %.0f MiB)\n",
		mib(s.rssBefore.RSS), mib(s.rssPeak), mib(s.rssAfter.RSS), mib(s.rssAfter.PeakRSS))
	if s.firstError != "" {
		fmt.Fprintf(&b, "load: first error: %s\n", s.firstError)
	}
	if s.firstWriteError != "" {
		fmt.Fprintf(&b, "load: first write error: %s\n", s.firstWriteError)
	}
	return b.String()
}

// verdict fails the run on any error, wrong selection, goroutine growth or
// heap growth beyond the tolerances.
func (s *summary) verdict(o options) error {
	var bad []string
	if s.errors > 0 || s.writeErrors > 0 {
		bad = append(bad, fmt.Sprintf("%d query errors, %d write errors", s.errors, s.writeErrors))
	}
	if s.wrong > 0 || s.quietWrong > 0 || s.afterWrong > 0 {
		bad = append(bad, fmt.Sprintf("wrong selections: %d during, %d before, %d after", s.wrong, s.quietWrong, s.afterWrong))
	}
	if s.goroutinesAfter > s.goroutinesBefore+o.goroutineSlack {
		bad = append(bad, fmt.Sprintf("goroutines grew from %d to %d (slack %d)", s.goroutinesBefore, s.goroutinesAfter, o.goroutineSlack))
	}
	if mib(s.heapAfter) > mib(s.heapBefore)+o.heapSlackMiB {
		bad = append(bad, fmt.Sprintf("heap in use grew from %.1f to %.1f MiB (slack %.0f MiB)", mib(s.heapBefore), mib(s.heapAfter), o.heapSlackMiB))
	}
	if len(bad) > 0 {
		return fmt.Errorf("FAILED: %s", strings.Join(bad, "; "))
	}
	fmt.Println("load: PASS")
	return nil
}
