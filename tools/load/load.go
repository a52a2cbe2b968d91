package main

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-openapi/strfmt"
	"github.com/weaviate/weaviate-go-client/v5/weaviate"
	"github.com/weaviate/weaviate/entities/models"
	pb "github.com/weaviate/weaviate/grpc/generated/protocol/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/diverse-select/diverse-select/integration/expect"
	"github.com/diverse-select/diverse-select/integration/stack"
)

const (
	queried = "LoadDocs"   // the class every query reads
	written = "LoadWrites" // the class the importers write
	topics  = 80
)

// shape is what a run imports and asks: the vectors' dimensions, the
// candidate pool of every query, the distinct query vectors and the query
// shapes sent with each.
type shape struct {
	name         string
	dims, pool   int
	queryVectors int
	specs        []spec
}

var shapes = map[string]shape{
	// mixed: every strategy family and both forms on small pools, fast
	// enough for tens of thousands of queries (make load).
	"mixed": {name: "mixed", dims: 64, pool: 40, queryVectors: 24, specs: specs},
	// large: the memory case - the default strategy (no arguments but the
	// pool) over 2000 candidates of 768 dimensions, the largest pool the
	// module accepts by default; each query holds N x N matrices and the
	// packed vectors while it selects.
	"large": {name: "large", dims: 768, pool: 2000, queryVectors: 8,
		specs: []spec{{args: "", raw: map[string]any{}, limit: 20}}},
}

// spec is one query shape: the diverseSelect arguments, as GraphQL and as
// the map config.Parse reads, in one of the two forms.
type spec struct {
	args  string
	raw   map[string]any
	field bool // _additional { diverseSelect(...) }: the query limit is the pool
	limit int  // top-level form: the query limit (caps the output)
}

var specs = []spec{
	{args: `strategy: "coverage", tokenBudget: 300`, raw: map[string]any{"strategy": "coverage", "tokenBudget": 300}, limit: 12},
	{args: `strategy: "adagres", tokenBudget: 250`, raw: map[string]any{"strategy": "adagres", "tokenBudget": 250}, limit: 10},
	{args: `strategy: "mmr", lambda: 0.5, maxResults: 8`, raw: map[string]any{"strategy": "mmr", "lambda": 0.5, "maxResults": 8}, limit: 20},
	{args: `strategy: "facility", tokenBudget: 400`, raw: map[string]any{"strategy": "facility", "tokenBudget": 400}, limit: 20},
	{args: `strategy: "dpp", tokenBudget: 300`, raw: map[string]any{"strategy": "dpp", "tokenBudget": 300}, limit: 20},
	{args: `strategy: "knapsack", tokenBudget: 300`, raw: map[string]any{"strategy": "knapsack", "tokenBudget": 300}, limit: 20},
	{args: `strategy: "topk", tokenBudget: 200`, raw: map[string]any{"strategy": "topk", "tokenBudget": 200}, field: true},
	{args: `strategy: "ngram", tokenBudget: 300`, raw: map[string]any{"strategy": "ngram", "tokenBudget": 300}, field: true},
}

// query is one distinct request and the answer computed offline.
type query struct {
	text string            // GraphQL
	req  *pb.SearchRequest // or a gRPC search through the gateway
	want []string          // ids in the expected order
}

type doc struct {
	id     string
	body   string
	grp    int
	vector []float32
}

type load struct {
	s       *stack.Stack
	gw      pb.WeaviateClient // the gateway (nil: GraphQL to the server)
	o       options
	shape   shape
	client  *weaviate.Client
	httpc   *http.Client
	docs    []doc
	queries []query
	dumps   []string // goroutine profiles, before and after
}

func newLoad(s *stack.Stack, gw *stack.Gateway, o options) (*load, error) {
	host := fmt.Sprintf("127.0.0.1:%d", s.HTTPPort)
	if gw != nil {
		host = strings.TrimPrefix(gw.HTTPURL, "http://") // writes through the gateway's pass-through
	}
	c, err := weaviate.NewClient(weaviate.Config{Host: host, Scheme: "http"})
	if err != nil {
		return nil, err
	}
	tr := &http.Transport{MaxIdleConnsPerHost: 2 * o.concurrency, MaxConnsPerHost: 0}
	l := &load{s: s, o: o, shape: shapes[o.shape], client: c, httpc: &http.Client{Transport: tr, Timeout: time.Minute}}
	if gw != nil {
		conn, err := grpc.NewClient(gw.GRPCAddr, grpc.WithTransportCredentials(insecure.NewCredentials()),
			grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(64<<20)))
		if err != nil {
			return nil, err
		}
		l.gw = pb.NewWeaviateClient(conn)
	}
	return l, nil
}

// corpus makes docs in topics: the docs of a topic share words and lie
// close to the topic's direction, so selections have redundancy to remove.
func corpus(n, dims int) []doc {
	rng := rand.New(rand.NewPCG(42, 9))
	vocab := make([]string, 600)
	for i := range vocab {
		vocab[i] = fmt.Sprintf("%c%c%c%c", 'a'+rune(i%26), 'a'+rune(i/26%26), 'e'+rune(i%7), 'k'+rune(i%11))
	}
	centers := make([][]float64, topics)
	for t := range centers {
		centers[t] = randUnit(rng, dims)
	}
	out := make([]doc, n)
	for i := range out {
		t := i % topics
		words := make([]string, 20+rng.IntN(60))
		for j := range words {
			if rng.IntN(2) == 0 {
				words[j] = vocab[t*7+rng.IntN(7)]
			} else {
				words[j] = vocab[rng.IntN(len(vocab))]
			}
		}
		noise := randUnit(rng, dims)
		v := make([]float32, dims)
		for j := range v {
			v[j] = float32(centers[t][j] + 0.35*noise[j])
		}
		out[i] = doc{id: uuid(queried, i), body: strings.Join(words, " ") + ".", grp: t, vector: v}
	}
	return out
}

func randUnit(rng *rand.Rand, dims int) []float64 {
	v := make([]float64, dims)
	n := 0.0
	for i := range v {
		v[i] = rng.NormFloat64()
		n += v[i] * v[i]
	}
	for i := range v {
		v[i] /= math.Sqrt(n)
	}
	return v
}

func uuid(class string, i int) string {
	h := uint64(i)*0x9e3779b97f4a7c15 + uint64(len(class))
	return fmt.Sprintf("%08x-0000-4000-8000-%012x", uint32(h>>32), h&0xffffffffffff)
}

func (l *load) setup(ctx context.Context) error {
	for _, class := range []string{queried, written} {
		_ = l.client.Schema().ClassDeleter().WithClassName(class).Do(ctx)
		if err := l.client.Schema().ClassCreator().WithClass(&models.Class{Class: class, Vectorizer: "none",
			Properties: []*models.Property{{Name: "body", DataType: []string{"text"}}, {Name: "grp", DataType: []string{"int"}}},
		}).Do(ctx); err != nil {
			return fmt.Errorf("create %s: %w", class, err)
		}
	}
	l.docs = corpus(l.o.docs, l.shape.dims)
	for start := 0; start < len(l.docs); start += 100 {
		if err := l.importBatch(ctx, queried, l.docs[start:min(start+100, len(l.docs))]); err != nil {
			return err
		}
	}
	return nil
}

func (l *load) importBatch(ctx context.Context, class string, docs []doc) error {
	objs := make([]*models.Object, len(docs))
	for i, d := range docs {
		objs[i] = &models.Object{Class: class, ID: strfmt.UUID(d.id), Vector: d.vector,
			Properties: map[string]any{"body": d.body, "grp": d.grp}}
	}
	res, err := l.client.Batch().ObjectsBatcher().WithObjects(objs...).Do(ctx)
	if err != nil {
		return fmt.Errorf("import into %s: %w", class, err)
	}
	if err := stack.BatchError(res); err != nil {
		return fmt.Errorf("import into %s: %w", class, err)
	}
	return nil
}

// repeat re-puts a queried object with identical content.
func (l *load) repeat(ctx context.Context, d doc) error {
	return l.client.Data().Updater().WithClassName(queried).WithID(d.id).
		WithProperties(map[string]any{"body": d.body, "grp": d.grp}).WithVector(d.vector).Do(ctx)
}

// prepare builds the distinct queries and their offline answers: the
// candidates come from a plain nearVector query of the pool size (ids in
// retrieval order, distances, vectors, texts), and the selection from
// integration/expect (the selectors library, as the module sets the problem up).
func (l *load) prepare(ctx context.Context) error {
	sel, err := expect.New()
	if err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(7, 7))
	pool := l.shape.pool
	for qi := 0; qi < l.shape.queryVectors; qi++ {
		qv := l.docs[rng.IntN(len(l.docs))].vector
		near := expect.NearVector(qv)
		cands, err := expect.Candidates(ctx, l.httpc, l.s.HTTPURL, queried, "body", near, pool)
		if err != nil {
			return err
		}
		for _, sp := range l.shape.specs {
			if l.gw != nil {
				want, err := sel.Select(ctx, cands, expect.Query{Args: sp.raw}) // the rerank route: the limit is the pool
				if err != nil {
					return fmt.Errorf("%s: %w", sp.args, err)
				}
				l.queries = append(l.queries, query{req: rerankRequest(qv, pool, sp.raw), want: want})
				continue
			}
			q := expect.Query{Args: sp.raw}
			if !sp.field {
				q.Limit = sp.limit
			}
			want, err := sel.Select(ctx, cands, q)
			if err != nil {
				return fmt.Errorf("%s: %w", sp.args, err)
			}
			var text string
			if sp.field {
				text = fmt.Sprintf("{ Get { %s(%s, limit: %d) { _additional { id diverseSelect(%s) { rank } } } } }", queried, near, pool, sp.args)
			} else {
				args := strings.TrimPrefix(sp.args+", ", ", ")
				text = fmt.Sprintf("{ Get { %s(%s, limit: %d, diverseSelect: {%scandidates: %d}) { _additional { id } } } }",
					queried, near, sp.limit, args, pool)
			}
			l.queries = append(l.queries, query{text: text, want: want})
		}
	}
	return nil
}

// graphql runs a Get query on the queried class through the load's own
// connection pool and decodes its objects into out.
func (l *load) graphql(ctx context.Context, q string, out any) error {
	return stack.QueryGetWith(ctx, l.httpc, l.s.HTTPURL, queried, q, out)
}

// rerankRequest is the gRPC search of the gateway mode: nearVector qv, the
// pool as its limit, the settings in the rerank property (the helpers'
// form, property|diverseSelect.v1|{json}).
func rerankRequest(qv []float32, pool int, settings map[string]any) *pb.SearchRequest {
	b, _ := json.Marshal(settings)
	vec := make([]byte, 4*len(qv))
	for i, x := range qv {
		binary.LittleEndian.PutUint32(vec[4*i:], math.Float32bits(x))
	}
	return &pb.SearchRequest{Collection: queried, Limit: uint32(pool),
		NearVector:  &pb.NearVector{VectorBytes: vec},
		Rerank:      &pb.Rerank{Property: "body|diverseSelect.v1|" + string(b)},
		Metadata:    &pb.MetadataRequest{Uuid: true},
		Properties:  &pb.PropertiesRequest{},
		Uses_123Api: true, Uses_125Api: true, Uses_127Api: true}
}

// ask runs query q and compares the answer with the offline selection.
func (l *load) ask(ctx context.Context, q query) (wrong bool, err error) {
	if q.req != nil {
		reply, err := l.gw.Search(ctx, q.req)
		if err != nil {
			return false, err
		}
		if len(reply.Results) != len(q.want) {
			return true, nil
		}
		for i, r := range reply.Results {
			if r.GetMetadata().GetId() != q.want[i] {
				return true, nil
			}
		}
		return false, nil
	}
	var got []struct {
		Additional struct{ ID string } `json:"_additional"`
	}
	if err := l.graphql(ctx, q.text, &got); err != nil {
		return false, err
	}
	if len(got) != len(q.want) {
		return true, nil
	}
	for i, h := range got {
		if h.Additional.ID != q.want[i] {
			return true, nil
		}
	}
	return false, nil
}

// run measures the baseline, sends the load with the writers running, and
// measures again.
func (l *load) run(ctx context.Context) (*summary, error) {
	if err := l.setup(ctx); err != nil {
		return nil, err
	}
	if err := l.prepare(ctx); err != nil {
		return nil, err
	}
	via := "over GraphQL to the module"
	if l.gw != nil {
		via = "over gRPC through the gateway in front of stock Weaviate"
	}
	sum := &summary{via: via, requests: l.o.requests, concurrency: l.o.concurrency, distinct: len(l.queries), docs: l.o.docs, shape: l.shape}
	// Quiet pass: each distinct query once, alone; it also warms the server
	// (not with -cold: the load meets the cache as the import left it).
	for _, q := range l.queries {
		if l.o.cold {
			break
		}
		wrong, err := l.ask(ctx, q)
		if err != nil {
			return nil, fmt.Errorf("quiet pass: %w\nquery: %.300s%v", err, q.text, q.req)
		}
		if wrong {
			sum.quietWrong++
		}
	}
	l.httpc.CloseIdleConnections()
	if !l.o.cold {
		time.Sleep(l.o.settle)
	}
	var err error
	if sum.goroutinesBefore, sum.heapBefore, err = l.profile(ctx); err != nil {
		return nil, err
	}
	if sum.rssBefore, err = l.s.Memory(); err != nil {
		return nil, err
	}
	stopSampling := l.sampleRSS(&sum.rssPeak)

	writeCtx, stopWrites := context.WithCancel(ctx)
	var wg sync.WaitGroup
	var imported, reput, writeErrs atomic.Int64
	var firstWriteErr atomic.Value
	for w := 0; w < l.o.writers; w++ {
		wg.Add(2)
		go func(w int) { // importer: new objects into the class no query reads
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 11))
			for b := 0; writeCtx.Err() == nil; b++ {
				batch := corpus(20, l.shape.dims)
				for i := range batch {
					batch[i].id = uuid(written, (w*1_000_000)+b*20+i)
					batch[i].grp = rng.IntN(topics)
				}
				if err := l.importBatch(writeCtx, written, batch); err != nil {
					if writeCtx.Err() == nil {
						writeErrs.Add(1)
						firstWriteErr.CompareAndSwap(nil, err.Error())
					}
					continue
				}
				imported.Add(int64(len(batch)))
			}
		}(w)
		go func(w int) { // re-putter: queried objects, identical content
			defer wg.Done()
			for i := w; writeCtx.Err() == nil; i += l.o.writers {
				if err := l.repeat(writeCtx, l.docs[i%len(l.docs)]); err != nil {
					if writeCtx.Err() == nil {
						writeErrs.Add(1)
						firstWriteErr.CompareAndSwap(nil, err.Error())
					}
					continue
				}
				reput.Add(1)
			}
		}(w)
	}

	latencies := make([]time.Duration, l.o.requests)
	var next, errs, wrong atomic.Int64
	var firstErr atomic.Value
	start := time.Now()
	var qwg sync.WaitGroup
	for c := 0; c < l.o.concurrency; c++ {
		qwg.Add(1)
		go func() {
			defer qwg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= l.o.requests || ctx.Err() != nil {
					return
				}
				q := l.queries[i%len(l.queries)]
				t0 := time.Now()
				bad, err := l.ask(ctx, q)
				latencies[i] = time.Since(t0)
				switch {
				case err != nil:
					errs.Add(1)
					firstErr.CompareAndSwap(nil, err.Error())
				case bad:
					wrong.Add(1)
				}
			}
		}()
	}
	qwg.Wait()
	sum.elapsed = time.Since(start)
	stopWrites()
	wg.Wait()
	stopSampling()
	if ctx.Err() != nil {
		return nil, fmt.Errorf("the run exceeded -timeout %s", l.o.timeout)
	}
	sum.errors, sum.wrong = errs.Load(), wrong.Load()
	sum.imported, sum.reput, sum.writeErrors = imported.Load(), reput.Load(), writeErrs.Load()
	if v := firstErr.Load(); v != nil {
		sum.firstError = v.(string)
	}
	if v := firstWriteErr.Load(); v != nil {
		sum.firstWriteError = v.(string)
	}
	sort.Slice(latencies, func(a, b int) bool { return latencies[a] < latencies[b] })
	sum.p50 = latencies[len(latencies)/2]
	sum.p95 = latencies[len(latencies)*95/100]
	sum.p99 = latencies[len(latencies)*99/100]

	// The imported objects are data, not the module's memory: drop them.
	if err := l.client.Schema().ClassDeleter().WithClassName(written).Do(ctx); err != nil {
		return nil, fmt.Errorf("delete %s: %w", written, err)
	}
	// Our idle keep-alive connections each hold a server goroutine: close them.
	l.httpc.CloseIdleConnections()
	time.Sleep(l.o.settle)
	if sum.goroutinesAfter, sum.heapAfter, err = l.profile(ctx); err != nil {
		return nil, err
	}
	if sum.rssAfter, err = l.s.Memory(); err != nil {
		return nil, err
	}
	// After: the answers are still those computed before the run.
	for _, q := range l.queries {
		if bad, err := l.ask(ctx, q); err != nil || bad {
			sum.afterWrong++
		}
	}
	return sum, nil
}

// sampleRSS records the server's largest resident memory, sampled every
// 50 ms, into peak until the returned function is called.
func (l *load) sampleRSS(peak *uint64) (stop func()) {
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for {
			if m, err := l.s.Memory(); err == nil && m.RSS > *peak {
				*peak = m.RSS
			}
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	return func() { close(done); <-finished }
}
