package main

import (
	"fmt"
	"strings"
	"time"
)

// seriesMedian returns the median of the variant of series s over protocol
// p in t (0 when the run did not time it).
func seriesMedian(t table, s, p string) time.Duration {
	for _, r := range t.rows {
		if r.variant.series == s && r.variant.protocol == p {
			return r.median
		}
	}
	return 0
}

// verdict says whether got is at most limit.
func verdict(got, limit time.Duration) string {
	switch {
	case got == 0 || limit <= 0:
		return "-"
	case got <= limit:
		return "yes"
	}
	return "**no**"
}

// summary is the default strategy against Weaviate's MMR per pool, in the
// terms of the speed targets: over gRPC (the rerank route) at most 0.9 x
// MMR's median; over GraphQL at most 0.9 x MMR's median plus the protocol
// gap measured in the same run (plain top-10 over GraphQL minus over gRPC).
// plotLink shows the plot under the default width's summary.
const plotLink = "![median latency against pool size](performance-latency.png)"

func summary(tables []table) string {
	var b strings.Builder
	b.WriteString("Medians of one interleaved run (`make bench-server`; the tables below give every variant and the p95). " +
		"Target: the default strategy at most 0.9 x Weaviate MMR's median over gRPC; over GraphQL at most 0.9 x MMR's " +
		"median plus the protocol gap (plain top-10 over GraphQL minus over gRPC, same run).\n\n")
	b.WriteString("| pool | Weaviate MMR (gRPC) | default via rerank (gRPC) | ratio | <= 0.9 x MMR | default (GraphQL) | protocol gap | " +
		"ratio to MMR | <= 0.9 x MMR + gap | plain top-10 gRPC / GraphQL | plain pool gRPC / GraphQL |\n")
	b.WriteString("|---:|---:|---:|---:|---|---:|---:|---:|---|---:|---:|\n")
	for _, t := range tables {
		mmr := seriesMedian(t, seriesMMR, "gRPC")
		rr := seriesMedian(t, seriesDefault, "gRPC")
		gq := seriesMedian(t, seriesDefault, "GraphQL")
		topG, topQ := seriesMedian(t, seriesPlainTop, "gRPC"), seriesMedian(t, seriesPlainTop, "GraphQL")
		poolG, poolQ := seriesMedian(t, seriesPlainPool, "gRPC"), seriesMedian(t, seriesPlainPool, "GraphQL")
		gap := topQ - topG
		fmt.Fprintf(&b, "| %d | %s | %s | %s | %s | %s | %s | %s | %s | %s / %s | %s / %s |\n", t.pool, ms(mmr), ms(rr),
			ratio(rr, mmr), verdict(rr, mmr*9/10), ms(gq), ms(gap), ratio(gq, mmr), verdict(gq, mmr*9/10+gap),
			ms(topG), ms(topQ), ms(poolG), ms(poolQ))
	}
	b.WriteString("\n" + plotLink + "\n")
	return b.String()
}

// readmeSummary is the README's end-to-end speed line, from the same run.
func readmeSummary(tables []table) string {
	var parts []string
	for _, t := range tables {
		mmr := seriesMedian(t, seriesMMR, "gRPC")
		parts = append(parts, fmt.Sprintf("%d candidates: default %s ms over gRPC (rerank) and %s ms over GraphQL, "+
			"Weaviate MMR %s ms, plain top-10 %s ms (gRPC)", t.pool, ms(seriesMedian(t, seriesDefault, "gRPC")),
			ms(seriesMedian(t, seriesDefault, "GraphQL")), ms(mmr), ms(seriesMedian(t, seriesPlainTop, "gRPC"))))
	}
	return "- End to end (`make bench-server`, medians of one interleaved run, nearText, budget 1500, 10 results): " +
		strings.Join(parts, "; ") + ". Per pool against the targets: [docs/performance.md](docs/performance.md#end-to-end).\n"
}

// gatewaySummary is the gateway against the module's rerank route and
// Weaviate's MMR per pool, in the terms of its targets: at most 1.3 x the
// module's median, and at most Weaviate MMR's median from pool 500.
func gatewaySummary(tables []table) string {
	var b strings.Builder
	b.WriteString("Medians of the same interleaved run, over gRPC: the default strategy through the gateway (bin/gateway in " +
		"front of the same server, the class's config in the gateway's file), through the module's rerank route, " +
		"Weaviate's MMR and the plain top-10. Targets: the gateway at most 1.3 x the module, and at most Weaviate MMR " +
		"from pool 500.\n\n")
	b.WriteString("| pool | gateway | module (rerank) | gateway / module | <= 1.3 x module | Weaviate MMR | gateway / MMR | <= MMR | plain top-10 |\n")
	b.WriteString("|---:|---:|---:|---:|---|---:|---:|---|---:|\n")
	for _, t := range tables {
		gw, mod, mmr := seriesMedian(t, seriesGateway, "gRPC"), seriesMedian(t, seriesDefault, "gRPC"), seriesMedian(t, seriesMMR, "gRPC")
		atMostMMR := verdict(gw, mmr)
		if t.pool < 500 {
			atMostMMR = "(not a target)"
		}
		fmt.Fprintf(&b, "| %d | %s | %s | %s | %s | %s | %s | %s | %s |\n", t.pool, ms(gw), ms(mod), ratio(gw, mod),
			verdict(gw, mod*13/10), ms(mmr), ratio(gw, mmr), atMostMMR, ms(seriesMedian(t, seriesPlainTop, "gRPC")))
	}
	return b.String()
}
