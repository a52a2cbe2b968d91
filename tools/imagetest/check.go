package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/go-openapi/strfmt"
	"github.com/weaviate/weaviate-go-client/v5/weaviate"
	"github.com/weaviate/weaviate-go-client/v5/weaviate/connection"
	"github.com/weaviate/weaviate/entities/models"
	pb "github.com/weaviate/weaviate/grpc/generated/protocol/v1"

	"github.com/diverse-select/diverse-select/integration/expect"
	"github.com/diverse-select/diverse-select/integration/stack"
	"github.com/diverse-select/diverse-select/internal/corpus"
)

// class is the collection the check creates: the demo corpus, vectors
// from the compose file's vectorizer (the embedder), both modules configured.
const (
	class  = "ImageCheck"
	pool   = 40
	budget = 500
)

// check talks to the running image as a user would.
type check struct {
	ctx                 context.Context
	base, grpc, metrics string
	container           string
	image               string      // the image the containers run
	published           map[int]int // container port -> host port (the compose file's)
	memLimit            string      // the compose file's mem_limit
	client              *weaviate.Client
	selector            *expect.Selector
}

func (c *check) all() error {
	for _, step := range []struct {
		name string
		fn   func() error
	}{
		{"non-root server process", c.nonRoot},
		{"image health check", c.healthy},
		{"/v1/meta lists both modules", c.meta},
		{"class created, corpus imported", c.importCorpus},
		{"diverseSelect over GraphQL", c.graphql},
		{"diverse selection over the gRPC rerank route", c.grpcRoute},
		{"module metrics on the metrics port", c.moduleMetrics},
		{"every served and published port exposed", c.exposedPorts},
		{"plugins folder in place", c.pluginsFolder},
		{"memory limit from the container (LIMIT_RESOURCES)", c.memoryLimit},
		{"authentication on unless the compose file turns it off", c.authOn},
	} {
		if err := step.fn(); err != nil {
			return fmt.Errorf("%s: %w", step.name, err)
		}
		fmt.Printf("imagetest: ok  %s\n", step.name)
	}
	return nil
}

// nonRoot: the server process (not only the image's USER) runs as a user
// other than root: its real uid on the host (rootful podman maps none).
func (c *check) nonRoot() error {
	out, err := podman(c.ctx, "top", c.container, "hpid", "user", "args")
	if err != nil {
		return err
	}
	for _, line := range strings.Split(out, "\n")[1:] {
		f := strings.Fields(line)
		if len(f) < 3 || !strings.Contains(line, "weaviate-server") {
			continue
		}
		status, err := os.ReadFile("/proc/" + f[0] + "/status")
		if err != nil {
			return err
		}
		for _, l := range strings.Split(string(status), "\n") {
			if uids := strings.Fields(l); len(uids) >= 2 && uids[0] == "Uid:" {
				if uids[1] == "0" || f[1] == "root" {
					return fmt.Errorf("weaviate-server runs as root: %s", line)
				}
				fmt.Printf("imagetest: weaviate-server runs as %s (uid %s)\n", f[1], uids[1])
				return nil
			}
		}
	}
	return fmt.Errorf("no weaviate-server process in podman top:\n%s", out)
}

// healthy: the image's HEALTHCHECK (kept by --format docker) passes.
func (c *check) healthy() error {
	cmd, err := podman(c.ctx, "inspect", "--format", "{{json .Config.Healthcheck}}", c.container)
	if err != nil {
		return err
	}
	if !strings.Contains(cmd, "/v1/.well-known/ready") {
		return fmt.Errorf("the image has no health check on /v1/.well-known/ready (built without --format docker?): %s", cmd)
	}
	return untilHealthy(c.ctx, c.container, 30*time.Second)
}

func (c *check) meta() error {
	var meta struct {
		Version string                    `json:"version"`
		Modules map[string]map[string]any `json:"modules"`
	}
	if err := c.getJSON(c.base+"/v1/meta", &meta); err != nil {
		return err
	}
	for _, m := range []string{"diverse-select", "reranker-diverse-select", "text2vec-transformers"} {
		if _, ok := meta.Modules[m]; !ok {
			return fmt.Errorf("module %s missing; /v1/meta lists %v", m, keys(meta.Modules))
		}
	}
	fmt.Printf("imagetest: Weaviate %s, %d modules\n", meta.Version, len(meta.Modules))
	return nil
}

func (c *check) importCorpus() error {
	var err error
	if c.client, err = weaviate.NewClient(weaviate.Config{Host: strings.TrimPrefix(c.base, "http://"), Scheme: "http"}); err != nil {
		return err
	}
	if c.selector, err = expect.New(); err != nil {
		return err
	}
	if err := c.client.Schema().ClassCreator().WithClass(&models.Class{
		Class:             class,
		Vectorizer:        "text2vec-transformers",
		VectorIndexConfig: map[string]any{"ef": 512}, // exact search over the small corpus
		ModuleConfig: map[string]any{
			"text2vec-transformers":   map[string]any{"vectorizeClassName": false},
			"diverse-select":          map[string]any{"textProperty": "body"},
			"reranker-diverse-select": map[string]any{"tokenBudget": budget},
		},
		Properties: []*models.Property{
			{Name: "body", DataType: []string{"text"}},
			{Name: "chunkId", DataType: []string{"text"}, ModuleConfig: map[string]any{"text2vec-transformers": map[string]any{"skip": true}}},
		},
	}).Do(c.ctx); err != nil {
		return err
	}
	chunks := corpus.Chunks()
	objs := make([]*models.Object, len(chunks))
	for i, ch := range chunks {
		objs[i] = &models.Object{Class: class, ID: strfmt.UUID(fmt.Sprintf("00000000-0000-4000-8000-%012x", i+1)),
			Properties: map[string]any{"body": ch.Body, "chunkId": ch.ID}}
	}
	res, err := c.client.Batch().ObjectsBatcher().WithObjects(objs...).Do(c.ctx)
	if err != nil {
		return err
	}
	if err := stack.BatchError(res); err != nil {
		return fmt.Errorf("import: %w", err)
	}
	fmt.Printf("imagetest: %d objects imported\n", len(objs))
	return c.untilIndexed(len(objs))
}

// untilIndexed waits until no vector of the class waits for the index and a
// nearText search retrieves the whole pool: with ASYNC_INDEXING (the compose file sets it, as
// docs/deployment.md asks) a search right after the import finds nothing
// until Weaviate's indexing queue is drained.
func (c *check) untilIndexed(objects int) error {
	if len(corpus.Chunks()) < pool {
		return fmt.Errorf("the corpus has fewer chunks than the pool %d", pool)
	}
	deadline := time.Now().Add(2 * time.Minute)
	for {
		nodes, err := stack.Nodes(c.ctx, c.base, class)
		var count, queued int64
		for _, n := range nodes {
			for _, sh := range n.Shards {
				count += sh.ObjectCount
				queued += sh.VectorQueueLength
			}
		}
		if err == nil && queued == 0 && len(nodes) > 0 {
			// The queue is drained; the search must now find the whole pool.
			if _, err = c.candidates(corpus.Queries()[0].Text); err == nil {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("not indexed after 2m: %d of %d objects counted, %d vectors queued (%v)", count, objects, queued, err)
		}
		if !sleep(c.ctx, 500*time.Millisecond) {
			return c.ctx.Err()
		}
	}
}

// candidates reads the pool a nearText query retrieves, as the selection sees it.
func (c *check) candidates(text string) ([]expect.Candidate, error) {
	return expect.Candidates(c.ctx, nil, c.base, class, "body", fmt.Sprintf("nearText: {concepts: [%q]}", text), pool)
}

// graphql: the top-level form over nearText equals the library's selection
// on the same candidates, and is not just their head.
func (c *check) graphql() error {
	text := corpus.Queries()[0].Text
	cands, err := c.candidates(text)
	if err != nil {
		return err
	}
	want, err := c.selector.Select(c.ctx, cands, expect.Query{Args: map[string]any{"tokenBudget": budget}, Limit: 10, Text: text})
	if err != nil {
		return err
	}
	var hits []struct {
		Additional struct{ ID string } `json:"_additional"`
	}
	q := fmt.Sprintf(`{ Get { %s(nearText: {concepts: [%q]}, limit: 10, diverseSelect: {tokenBudget: %d, candidates: %d}) { _additional { id } } } }`,
		class, text, budget, pool)
	if err := stack.QueryGet(c.ctx, c.base, class, q, &hits); err != nil {
		return err
	}
	got := make([]string, len(hits))
	for i, h := range hits {
		got[i] = h.Additional.ID
	}
	return c.compare("GraphQL", got, want, cands)
}

// grpcRoute: a gRPC nearText search with rerank (what the official clients
// send) returns the selection of the class's reranker config.
func (c *check) grpcRoute() error {
	text := corpus.Queries()[1].Text
	cands, err := c.candidates(text)
	if err != nil {
		return err
	}
	want, err := c.selector.Select(c.ctx, cands, expect.Query{Class: map[string]any{"tokenBudget": budget}, Text: text})
	if err != nil {
		return err
	}
	conn, err := connection.NewGrpcClient(c.grpc, false, nil, nil, time.Minute, 30*time.Second)
	if err != nil {
		return err
	}
	reply, err := conn.Search(c.ctx, &pb.SearchRequest{
		Collection: class, Limit: pool,
		NearText:    &pb.NearTextSearch{Query: []string{text}},
		Rerank:      &pb.Rerank{Property: "body"},
		Metadata:    &pb.MetadataRequest{Uuid: true},
		Uses_123Api: true, Uses_125Api: true, Uses_127Api: true,
	})
	if err != nil {
		return err
	}
	got := make([]string, len(reply.Results))
	for i, r := range reply.Results {
		got[i] = r.GetMetadata().GetId()
	}
	return c.compare("gRPC", got, want, cands)
}

func (c *check) compare(route string, got, want []string, cands []expect.Candidate) error {
	if !slices.Equal(got, want) {
		return fmt.Errorf("selected %v, the library selects %v on the same candidates", got, want)
	}
	head := make([]string, 0, len(want))
	for _, cd := range cands[:len(want)] {
		head = append(head, cd.ID)
	}
	if slices.Equal(got, head) {
		return fmt.Errorf("the selection is the head of the nearText ranking: no diverse selection happened")
	}
	fmt.Printf("imagetest: %s selected %d of %d candidates, as the library does\n", route, len(got), len(cands))
	return nil
}

// moduleMetrics: the selections above are counted on the published metrics port.
func (c *check) moduleMetrics() error {
	resp, err := http.Get(c.metrics)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	for _, route := range []string{`route="argument"`, `route="rerank"`} {
		if !strings.Contains(string(body), "diverse_select_selection_duration_seconds_count{") ||
			!strings.Contains(string(body), route) {
			return fmt.Errorf("no diverse_select_selection_duration_seconds with %s at %s", route, c.metrics)
		}
	}
	return nil
}

func (c *check) getJSON(url string, out any) error {
	req, err := http.NewRequestWithContext(c.ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: HTTP %d", url, resp.StatusCode)
	}
	return json.NewDecoder(resp.Body).Decode(out)
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
