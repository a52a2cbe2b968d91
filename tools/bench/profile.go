package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/google/pprof/profile"
)

// profileBuckets say where a CPU sample's time went: a sample belongs to the
// first bucket that names one of its frames, from the leaf towards the root
// (so the innermost recognised work gets it), or to "other". The module's
// other work takes a sample only when no outer frame of ours names another
// bucket: a helper of ours (a dot product, a row sum, a work-sharing loop)
// counts where our code called it from.
var profileBuckets = []struct {
	name  string
	match []string
}{
	{"the kernel: cosines with the targets and the coverage kernel (simcache Cross, coverage.kernel)",
		[]string{"simcache.(*Engine).Cross", "simcache.(*Engine).crossBlocks", "simcache.(*Engine).Matrix", "simcache.gramStrip",
			"coverage.kernel", "coverage.rowMeans", "coverage.topTargets"}},
	{"the greedy, the fill and the near-copy guard", []string{"coverage.(*objective).", "coverage.guardBestSingle",
		"selectors.(*CopyGuard)", "selectors.WordPairs", "selectors/internal/lazyheap"}},
	{"our features: query terms, title links, relevance, token counts and terms (feature cache)",
		[]string{"coverage.titleLinks", "coverage.queryTerms", "coverage.scanTerms", "coverage.(*queryIndex)", "coverage.analysed", "coverage.denseRelevance", "coverage.strategy.objective",
			"diverse-select/module.(*featureSource)", "diverse-select/module.(*lazyText)", "diverse-select/simcache.(*FeatureCache)",
			"diverse-select/simcache.FeatureKey", "diverse-select/selectors/tokens",
			"diverse-select/selectors/text"}},
	{"packing and normalising the vectors", []string{"diverse-select/simcache.New", "diverse-select/simcache.normalise"}},
	{moduleWork, []string{ourFrames}},
	{"embedding the query (text2vec-transformers client)", []string{"text2vec-transformers", "modules/text2vec"}},
	{"object and vector loading (storage)", []string{"storobj.", "lsmkv.", "ObjectsByDocID", "objectsByDocID", "entities/storobj"}},
	{"vector search (HNSW)", []string{"vector/hnsw", "vector/compressionhelpers", "distancer", "adapters/repos/db.(*Shard).ObjectVectorSearch"}},
	{"response: GraphQL, JSON, gRPC, HTTP", []string{"graphql-go", "adapters/handlers/graphql", "encoding/json", "adapters/handlers/grpc",
		"google.golang.org/grpc", "google.golang.org/protobuf", "net/http", "searchResultsToGetResponse"}},
	{"Go runtime: garbage collection and scheduling", []string{"runtime.gcBgMarkWorker", "runtime.bgsweep", "runtime.bgscavenge",
		"runtime.mcall", "runtime.morestack", "runtime.schedule", "runtime.findRunnable"}},
}

// profileDefault profiles the server (Weaviate's pprof endpoint) while one
// client sends the default strategy's GraphQL query at o.profilePool over
// and over, and says where the CPU time went, per bucket.
func (c *clients) profileDefault(ctx context.Context, o options) (string, error) {
	v := c.variants(o.profilePool, nil, o.profileProtocol != "GraphQL")
	var run func(ctx context.Context, q string) (time.Duration, error)
	for _, x := range v {
		if o.profileProtocol == "MMR" && x.series == seriesMMR ||
			o.profileProtocol == profileGateway && x.series == seriesGateway ||
			x.series == seriesDefault && x.protocol == o.profileProtocol {
			run = x.run
		}
	}
	if run == nil {
		return "", fmt.Errorf("-profile-protocol %q: want GraphQL, gRPC, MMR or gateway (with -gateway)", o.profileProtocol)
	}
	fmt.Fprintf(os.Stderr, "bench: profiling the default strategy at pool %d for %s\n", o.profilePool, o.profileTime)
	done := fetchProfile(ctx, o.profilingURL, o.profileTime, o.profileOut)
	var gwDone <-chan profileResult
	if o.profileProtocol == profileGateway && o.gatewayProfilingURL != "" && o.profileOut != "" {
		// The gateway's own CPU in the same stretch, raw, beside the server's.
		gwDone = fetchProfile(ctx, o.gatewayProfilingURL, o.profileTime, strings.TrimSuffix(o.profileOut, ".pb.gz")+"-gateway.pb.gz")
	}
	queries := 0
	for i := 0; ; i++ {
		select {
		case r := <-done:
			if r.err != nil {
				return "", fmt.Errorf("profile: %w", r.err)
			}
			if gwDone != nil {
				if g := <-gwDone; g.err != nil {
					return "", fmt.Errorf("profile of the gateway: %w", g.err)
				}
			}
			return profileReport(r.p, o, queries), nil
		default:
		}
		if _, err := run(ctx, benchQueries[i%len(benchQueries)]); err != nil {
			return "", fmt.Errorf("profile: %w", err)
		}
		queries++
	}
}

// profileGateway is the -profile-protocol of the gateway's variant: the
// server's profile as the report, the gateway's raw beside -profile-out.
const profileGateway = "gateway"

type profileResult struct {
	p   *profile.Profile
	err error
}

// fetchProfile reads a CPU profile of d from the pprof endpoint at base,
// writing it raw to out too ("": not).
func fetchProfile(ctx context.Context, base string, d time.Duration, out string) <-chan profileResult {
	done := make(chan profileResult, 1)
	go func() {
		url := fmt.Sprintf("%s/debug/pprof/profile?seconds=%d", base, int(d.Seconds()))
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			done <- profileResult{err: err}
			return
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			done <- profileResult{err: err}
			return
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			done <- profileResult{err: fmt.Errorf("GET %s: HTTP %d", url, resp.StatusCode)}
			return
		}
		p, err := profile.Parse(resp.Body)
		if err == nil && out != "" {
			if f, ferr := os.Create(out); ferr == nil {
				err = p.Write(f)
				f.Close()
			}
		}
		done <- profileResult{p, err}
	}()
	return done
}

// moduleWork is the fallback bucket: the module's frames (ourFrames) no
// other bucket names.
const (
	moduleWork = "the module's other work (plan, validation, results)"
	ourFrames  = "github.com/diverse-select/"
)

// bucketOf is the index in profileBuckets of the bucket s belongs to, or
// len(profileBuckets) for "other".
func bucketOf(s *profile.Sample) int {
	fallback := -1
	for _, loc := range s.Location {
		for li := range loc.Line { // the innermost of inlined frames first
			name := loc.Line[li].Function.Name
			if fallback >= 0 && !strings.Contains(name, ourFrames) {
				return fallback // out of our code: its callers (the handlers) did not do this work
			}
			for bi, bk := range profileBuckets {
				if !slices.ContainsFunc(bk.match, func(m string) bool { return strings.Contains(name, m) }) {
					continue
				}
				if bk.name != moduleWork {
					return bi
				}
				if fallback < 0 {
					fallback = bi
				}
			}
		}
	}
	if fallback >= 0 {
		return fallback
	}
	return len(profileBuckets)
}

// profileReport renders the buckets of p as markdown.
func profileReport(p *profile.Profile, o options, queries int) string {
	vi := len(p.SampleType) - 1 // cpu nanoseconds
	byBucket := make([]int64, len(profileBuckets)+1)
	var total int64
	for _, s := range p.Sample {
		b := bucketOf(s)
		byBucket[b] += s.Value[vi]
		total += s.Value[vi]
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "Produced by `make bench-server` (tools/bench, `-profile-pool %d`): Weaviate's CPU profile "+
		"(its pprof endpoint, %s) while one client sent the default strategy's %s query (candidates %d, "+
		"tokenBudget %d, maxResults %d, nearText, limit %d) %d times, one after the other: %.2f ms of server CPU per query. "+
		"Each sample goes to the innermost frame this list recognises.\n\n",
		o.profilePool, o.profileTime, o.profileProtocol, o.profilePool, budget, k, o.profilePool, queries, float64(total)/1e6/float64(max(1, queries)))
	sb.WriteString("| where the time goes | share of CPU | ms per query |\n|---|---:|---:|\n")
	names := make([]string, 0, len(byBucket))
	for _, bk := range profileBuckets {
		names = append(names, bk.name)
	}
	names = append(names, "other (HTTP server, Weaviate's query plumbing, unattributed runtime)")
	for bi, ns := range byBucket {
		fmt.Fprintf(&sb, "| %s | %.1f%% | %.2f |\n", names[bi], 100*float64(ns)/float64(max(1, total)),
			float64(ns)/1e6/float64(max(1, queries)))
	}
	return sb.String()
}
