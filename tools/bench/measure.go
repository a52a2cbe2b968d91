package main

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"

	pb "github.com/weaviate/weaviate/grpc/generated/protocol/v1"

	"github.com/diverse-select/diverse-select/tools/internal/docblock"
)

const (
	// budget and k of the diverse variants, and MMR's page size.
	budget = 1500
	k      = 10
	// mmrBalance is Weaviate MMR's lambda: 0.5 weighs relevance and diversity
	// alike, as mmr's default lambda does.
	mmrBalance = 0.5
)

// variant is one way of sending the query.
type variant struct {
	name, protocol string
	// plain marks the baseline of its protocol.
	plain bool
	// series names the variant in the summary and the plot (with its
	// protocol); empty for the others.
	series string
	run    func(ctx context.Context, q string) (time.Duration, error)
}

func (c *clients) variants(pool int, strategies []string, rerank bool) []variant {
	fields := "title body _additional { id distance }"
	gql := func(limit int, extra string) func(ctx context.Context, q string) (time.Duration, error) {
		return func(ctx context.Context, q string) (time.Duration, error) {
			return c.graphql(ctx, fmt.Sprintf(`{ Get { %s(nearText: {concepts: [%q]}, limit: %d%s) { %s } } }`,
				className, q, limit, extra, fields))
		}
	}
	grpcReq := func(q string, limit int) *pb.SearchRequest {
		return &pb.SearchRequest{
			Collection:  className,
			Limit:       uint32(limit),
			NearText:    &pb.NearTextSearch{Query: []string{q}},
			Properties:  &pb.PropertiesRequest{NonRefProperties: []string{"title", "body"}},
			Metadata:    &pb.MetadataRequest{Uuid: true, Distance: true},
			Uses_127Api: true,
		}
	}
	grpcRun := func(limit int, edit func(*pb.SearchRequest)) func(ctx context.Context, q string) (time.Duration, error) {
		return func(ctx context.Context, q string) (time.Duration, error) {
			req := grpcReq(q, limit)
			if edit != nil {
				edit(req)
			}
			return c.grpcSearch(ctx, req)
		}
	}
	out := []variant{
		{name: "plain nearText", protocol: "GraphQL", plain: true, series: seriesPlainPool, run: gql(pool, "")},
		{name: fmt.Sprintf("plain nearText, limit %d (top-k, for reference)", k), protocol: "GraphQL", series: seriesPlainTop, run: gql(k, "")},
		{name: "plain nearText", protocol: "gRPC", plain: true, series: seriesPlainPool, run: grpcRun(pool, nil)},
		{name: fmt.Sprintf("plain nearText, limit %d (top-k, for reference)", k), protocol: "gRPC", series: seriesPlainTop, run: grpcRun(k, nil)},
		{name: fmt.Sprintf("Weaviate MMR (balance %.1f, limit %d)", mmrBalance, k), protocol: "gRPC", series: seriesMMR, run: grpcRun(pool, func(r *pb.SearchRequest) {
			lim, bal := uint32(k), float32(mmrBalance)
			r.NearText.Selection = &pb.Selection{Selection: &pb.Selection_Mmr{Mmr: &pb.Selection_MMR{Limit: &lim, Balance: &bal}}}
		})},
		{name: "diverseSelect default (" + defaultStrategy + ")", protocol: "GraphQL", series: seriesDefault, run: gql(pool,
			fmt.Sprintf(`, diverseSelect: {candidates: %d, tokenBudget: %d, maxResults: %d}`, pool, budget, k))},
	}
	if rerank {
		// The gRPC route: the class configures reranker-diverse-select with
		// budget and K and no strategy (the default); the search asks for a
		// rerank on body, adagres through the rerank query's settings.
		out = append(out, variant{name: "diverseSelect default (" + defaultStrategy + ") via rerank", protocol: "gRPC", series: seriesDefault,
			run: grpcRun(pool, func(r *pb.SearchRequest) { r.Rerank = &pb.Rerank{Property: "body"} })},
			variant{name: "diverseSelect adagres via rerank", protocol: "gRPC", run: grpcRun(pool, func(r *pb.SearchRequest) {
				q := `diverseSelect(strategy: "adagres")`
				r.Rerank = &pb.Rerank{Property: "body", Query: &q}
			})})
	}
	if rerank && c.gw != nil {
		// The gateway (cmd/gateway) in front of the same server: the same
		// rerank, the class's config from the gateway's file.
		out = append(out, variant{name: "diverseSelect default (" + defaultStrategy + ") via the gateway (rerank)", protocol: "gRPC",
			series: seriesGateway, run: func(ctx context.Context, q string) (time.Duration, error) {
				req := grpcReq(q, pool)
				req.Rerank = &pb.Rerank{Property: "body"}
				start := time.Now()
				reply, err := c.gw.Search(ctx, req)
				took := time.Since(start)
				if err == nil && len(reply.Results) == 0 {
					err = fmt.Errorf("the gateway selected nothing")
				}
				return took, err
			}})
	}
	for _, s := range strategies {
		if s == defaultStrategy {
			continue // timed above, without naming it
		}
		out = append(out, variant{name: "diverseSelect " + s, protocol: "GraphQL",
			run: gql(pool, fmt.Sprintf(`, diverseSelect: {strategy: %q, candidates: %d, tokenBudget: %d, maxResults: %d}`, s, pool, budget, k))})
	}
	return out
}

// The series of the summary and the plot: every pool times them.
const (
	seriesPlainPool = "plain nearText, the whole pool"
	seriesPlainTop  = "plain nearText, limit 10"
	seriesMMR       = "Weaviate MMR"
	seriesDefault   = "diverseSelect default"
	seriesGateway   = "diverseSelect default via the gateway"
)

// defaultStrategy is the module's default strategy, which the default
// variants leave unnamed.
const defaultStrategy = "coverage"

// row is one variant's figures.
type row struct {
	variant      variant
	median, p95  time.Duration
	plainMedian  time.Duration
	plainP95     time.Duration
	count, fails int
}

type table struct {
	pool int
	rows []row
	took time.Duration
}

// measure runs every variant o.warmup times untimed, then o.n times timed,
// round-robin: query i of every variant is the same text and runs in the
// same stretch of time, so noise from other processes spreads evenly.
func (c *clients) measure(ctx context.Context, pool int, strategies []string, rerank bool, o options) (table, error) {
	vs := c.variants(pool, strategies, rerank)
	fmt.Fprintf(os.Stderr, "bench: pool %d: %d variants x (%d warm-up + %d timed) queries\n", pool, len(vs), o.warmup, o.n)
	start := time.Now()
	for i := 0; i < o.warmup; i++ {
		for _, v := range vs {
			if _, err := v.run(ctx, benchQueries[i%len(benchQueries)]); err != nil {
				return table{}, fmt.Errorf("pool %d, %s (%s): %w", pool, v.name, v.protocol, err)
			}
		}
	}
	lat := make([][]time.Duration, len(vs))
	for i := 0; i < o.n; i++ {
		q := benchQueries[i%len(benchQueries)]
		// Rotate the starting variant so that no variant always runs first.
		for j := range vs {
			vi := (i + j) % len(vs)
			d, err := vs[vi].run(ctx, q)
			if err != nil {
				return table{}, fmt.Errorf("pool %d, %s (%s): %w", pool, vs[vi].name, vs[vi].protocol, err)
			}
			lat[vi] = append(lat[vi], d)
		}
		if err := ctx.Err(); err != nil {
			return table{}, fmt.Errorf("pool %d: stopped after %d rounds: %w", pool, i, err)
		}
	}
	t := table{pool: pool, took: time.Since(start)}
	plain := map[string]row{}
	for vi, v := range vs {
		r := row{variant: v, median: quantile(lat[vi], 0.5), p95: quantile(lat[vi], 0.95), count: len(lat[vi])}
		t.rows = append(t.rows, r)
		if v.plain {
			plain[v.protocol] = r
		}
	}
	for i := range t.rows {
		p := plain[t.rows[i].variant.protocol]
		t.rows[i].plainMedian, t.rows[i].plainP95 = p.median, p.p95
	}
	return t, nil
}

// quantile is the nearest-rank quantile q of d.
func quantile(d []time.Duration, q float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	i := int(q*float64(len(s))+0.999999) - 1
	return s[min(max(i, 0), len(s)-1)]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f", float64(d)/1e6) }

func ratio(a, b time.Duration) string {
	if b == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", float64(a)/float64(b))
}

// report renders the tables as markdown.
func report(o options, before, after serverMeta, tables []table) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Produced by `make bench-server` (tools/bench) on %s: %s, %d logical CPUs, %s, Weaviate %s with the module "+
		"(similarity kernel: %s). Corpus: %d chunks built from the demo corpus's sentences, embedded by bin/embedder in hash "+
		"mode (%d dimensions), cosine HNSW index. One client, sequential queries over loopback; %d warm-up and %d timed "+
		"queries per variant, variants interleaved round-robin, %d query texts in rotation. Latency is measured by the client: "+
		"request sent to answer read.\n\n",
		time.Now().UTC().Format("2006-01-02"), docblock.CPUModel(), runtime.NumCPU(), runtime.Version(), before.version, before.kernel,
		o.docs, o.dims, o.warmup, o.n, len(benchQueries))
	if end := loadAverage(); o.loadStart != "" && end != "" {
		fmt.Fprintf(&b, "The machine's load average (1, 5, 15 minutes) at the start of the run: %s; at its end: %s "+
			"(above the CPU count, other processes shared the cores: the ratios of one run are the figures to read).\n\n", o.loadStart, end)
	}
	for _, t := range tables {
		fmt.Fprintf(&b, "Pool of %d (nearText, limit %d; diverseSelect: candidates %d, tokenBudget %d, maxResults %d; "+
			"MMR: window %d, limit %d, balance %.1f). Ratios are to the plain query of the same protocol. Took %s.\n\n",
			t.pool, t.pool, t.pool, budget, k, t.pool, k, mmrBalance, t.took.Round(time.Second))
		b.WriteString("| variant | protocol | median ms | p95 ms | median / plain | p95 / plain |\n|---|---|---:|---:|---:|---:|\n")
		for _, r := range t.rows {
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n", r.variant.name, r.variant.protocol, ms(r.median), ms(r.p95),
				ratio(r.median, r.plainMedian), ratio(r.p95, r.plainP95))
		}
		b.WriteString("\n")
	}
	if c := after.cache; c != nil {
		num := func(k string) string {
			if f, ok := c[k].(float64); ok {
				return fmt.Sprintf("%.0f", f)
			}
			return fmt.Sprint(c[k])
		}
		fmt.Fprintf(&b, "Feature cache after the run: %s hits, %s misses, %s entries, %s bytes of %s.\n",
			num("hits"), num("misses"), num("entries"), num("bytes"), num("maxBytes"))
	}
	return b.String()
}

// loadAverage is the machine's load average over 1, 5 and 15 minutes, as
// Linux gives it ("": not known).
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return ""
	}
	return strings.Join(f[:3], " / ")
}
