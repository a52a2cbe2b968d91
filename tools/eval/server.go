package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/weaviate/weaviate-go-client/v5/weaviate"
	"github.com/weaviate/weaviate/entities/models"

	dsconfig "github.com/diverse-select/diverse-select/config"
	"github.com/diverse-select/diverse-select/integration/stack"
	"github.com/diverse-select/diverse-select/selectors"
	"github.com/diverse-select/diverse-select/selectors/tokens"
)

// The server mode measures HotpotQA end to end: the paragraphs of all
// questions (deduplicated) go into one class per encoder - vectorised by
// the embedder in glove mode or by a second embedder in neural mode
// (all-MiniLM-L6-v2, the class's inferenceUrl; nearText), or imported with
// their stored USE-Lite vectors (nearVector with the question's vector) - and each
// question runs the search with diverseSelect over 50 candidates. Next to it, the library runs the same strategies on the
// very pools the server retrieved (a plain nearText of 50 with vectors and
// distances), so any difference comes from the real path itself.

const serverPool = 50

// serverRoute is one encoder's path through Weaviate: its class, how a
// question searches it, and the vectors the paragraphs are imported with.
type serverRoute struct {
	enc   string
	class string
	// search is the GraphQL search argument for a question.
	search func(question string) string
	// selectArgs are extra diverseSelect arguments for a question.
	selectArgs func(question string) string
	// neural: the class vectorises with the neural embedder (inferenceUrl).
	neural       bool
	inferenceURL string // the neural embedder's, once started
	// vector is the object vector of a paragraph; nil: the class vectorises.
	vector func(p hotpotPara) []float32
}

// serverRoutes: GloVe through the embedder (nearText), USE-Lite with the
// stored vectors imported with the objects (vectorizer none) and queried by
// nearVector with the question's stored vector; diverseSelect gets the
// question as its query text, which nearText supplies by itself.
func serverRoutes(o options) ([]serverRoute, error) {
	var out []serverRoute
	for _, enc := range o.encoders {
		switch enc {
		case encGloVe:
			out = append(out, serverRoute{enc: enc, class: "EvalHotpot",
				search:     func(q string) string { return fmt.Sprintf(`nearText: {concepts: [%q]}`, q) },
				selectArgs: func(string) string { return "" }})
		case encMiniLM:
			out = append(out, serverRoute{enc: enc, class: "EvalHotpotMiniLM", neural: true,
				search:     func(q string) string { return fmt.Sprintf(`nearText: {concepts: [%q]}`, q) },
				selectArgs: func(string) string { return "" }})
		case encUSE:
			sv, err := loadStoredVectors(filepath.Join(o.dataDir, "use-lite-512"), useLiteDim)
			if err != nil {
				return nil, err
			}
			var vecErr error
			vec := func(text string) []float32 {
				v, err := sv.vector(text)
				if err != nil && vecErr == nil {
					vecErr = err
				}
				return v
			}
			r := serverRoute{enc: enc, class: "EvalHotpotUSE",
				search: func(q string) string {
					return fmt.Sprintf(`nearVector: {vector: %s}`, floatList(vec(q)))
				},
				selectArgs: func(q string) string { return fmt.Sprintf(`, query: %q`, q) },
				vector:     func(p hotpotPara) []float32 { return vec(hotpotText(p)) }}
			// Every question and paragraph must have a vector: check now, not mid-run.
			qs, err := loadHotpot(o.dataDir)
			if err != nil {
				return nil, err
			}
			for _, q := range qs {
				vec(q.Question)
				for _, p := range q.Paras {
					vec(hotpotText(p))
				}
			}
			if vecErr != nil {
				return nil, vecErr
			}
			out = append(out, r)
		}
	}
	return out, nil
}

// floatList renders a vector as a GraphQL list literal.
func floatList(v []float32) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, x := range v {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatFloat(float64(x), 'g', -1, 32))
	}
	b.WriteByte(']')
	return b.String()
}

func runServer(ctx context.Context, o options, w io.Writer) error {
	t0 := time.Now()
	qs, err := loadHotpot(o.dataDir)
	if err != nil {
		return err
	}
	// Every question's paragraphs are imported; -questions only limits the
	// questions asked (a quick look).
	paras := distinctParas(qs)
	root, err := stack.RepoRoot()
	if err != nil {
		return err
	}
	dataDir, err := os.MkdirTemp("", "diverse-select-eval-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dataDir)
	logPath := filepath.Join(root, ".data", "eval-server.log")
	if err := os.MkdirAll(filepath.Dir(logPath), 0o755); err != nil {
		return err
	}
	logFile, err := os.Create(logPath)
	if err != nil {
		return err
	}
	defer logFile.Close()
	fmt.Fprintf(os.Stderr, "eval: starting the embedder (glove) and Weaviate; logs in %s\n", logPath)
	s, err := stack.Start(ctx, stack.Options{DataDir: dataDir, Log: logFile,
		EmbedderArgs: []string{"-mode", "glove", "-glove-dir", o.gloveDir}})
	if err != nil {
		return err
	}
	defer s.Stop()
	client, err := weaviate.NewClient(weaviate.Config{Host: strings.TrimPrefix(s.HTTPURL, "http://"), Scheme: "http"})
	if err != nil {
		return err
	}
	routes, err := serverRoutes(o)
	if err != nil {
		return err
	}
	for i := range routes {
		if routes[i].neural {
			fmt.Fprintf(os.Stderr, "eval: starting a second embedder (neural) for %s\n", routes[i].class)
			n, err := stack.StartEmbedder(ctx, stack.Options{BinDir: filepath.Join(root, "bin"),
				EmbedderArgs: []string{"-mode", "neural", "-python", o.python}, Log: logFile})
			if err != nil {
				return err
			}
			defer n.Stop()
			routes[i].inferenceURL = n.EmbedderURL
		}
	}
	allQuestions := len(qs)
	if o.questions > 0 && o.questions < len(qs) {
		qs = qs[:o.questions]
	}
	var body strings.Builder
	for _, rt := range routes {
		t1 := time.Now()
		if err := importParas(ctx, client, rt, paras); err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "eval: %s: imported %d paragraphs (%d questions) in %s\n", rt.enc, len(paras), allQuestions, time.Since(t1).Round(time.Second))
		part, err := serverRun(ctx, s.HTTPURL, rt, qs, allQuestions, len(paras))
		if err != nil {
			return err
		}
		fmt.Fprintf(&body, "### %s\n\n%s", encoderTitle(rt.enc), part)
	}
	fmt.Fprintf(os.Stderr, "eval: server mode done in %s\n", time.Since(t0).Round(time.Second))
	if o.print {
		fmt.Fprint(w, body.String())
		return nil
	}
	if err := splice(o.doc, serverBegin, serverEnd, body.String()); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "eval: wrote %s\n", o.doc)
	return nil
}

// serverRun asks the questions through one route and renders its table.
func serverRun(ctx context.Context, url string, rt serverRoute, qs []hotpotQuestion, allQuestions, nParas int) (string, error) {
	def := dsconfig.DefaultStrategy
	cfgs := configs(def)
	counter, err := tokens.New(tokens.CL100K)
	if err != nil {
		return "", err
	}
	// Per question: the server's pool, then every config and budget through
	// the server and through the library on that pool.
	type key struct{ cfg, budget int }
	n := len(qs)
	srv := map[key][]float64{}  // both-gold per question
	lib := map[key][]float64{}  // both-gold per question, library on the server's pool
	srvR := map[key][]float64{} // recall
	libR := map[key][]float64{}
	same := map[key]int{} // questions where server and library select the same objects
	for k := range cfgs {
		for b := range hotpotBudgets {
			kk := key{k, b}
			srv[kk], lib[kk], srvR[kk], libR[kk] = make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
		}
	}
	sels := make([]*selectors.Selector, len(cfgs))
	for k, c := range cfgs {
		if sels[k], err = selectors.New(c.Strategy, c.Params); err != nil {
			return "", err
		}
	}
	var mu sync.Mutex
	errs := make([]error, n)
	var poolGold, poolBoth float64
	t1 := time.Now()
	parallel(n, func(qi int) {
		q := qs[qi]
		gold := map[string]bool{}
		for _, p := range q.Paras {
			if p.Gold {
				gold[p.Title] = true
			}
		}
		score := func(titles []string) (float64, float64) {
			hit := map[string]bool{}
			for _, t := range titles {
				if gold[t] {
					hit[t] = true
				}
			}
			both := 0.0
			if len(hit) == len(gold) {
				both = 1
			}
			return both, float64(len(hit)) / float64(len(gold))
		}
		pool, err := serverPoolOf(ctx, url, rt, q.Question, counter)
		if err != nil {
			errs[qi] = err
			return
		}
		titles := make([]string, len(pool))
		for i, c := range pool {
			titles[i] = strings.SplitN(c.Text, "\n", 2)[0]
		}
		pb, pr := score(titles)
		mu.Lock()
		poolBoth += pb
		poolGold += pr
		mu.Unlock()
		for k, c := range cfgs {
			for b, budget := range hotpotBudgets {
				got, err := serverSelect(ctx, url, rt, q.Question, c, budget)
				if err != nil {
					errs[qi] = fmt.Errorf("%s B=%d on %q: %w", c.Label, budget, q.Question, err)
					return
				}
				res, err := sels[k].Run(ctx, &selectors.Problem{Candidates: pool, Budget: budget, Query: q.Question})
				if err != nil {
					errs[qi] = err
					return
				}
				libTitles := make([]string, len(res.Items))
				for i, it := range res.Indices() {
					libTitles[i] = titles[it]
				}
				sb, sr := score(got)
				lb, lr := score(libTitles)
				kk := key{k, b}
				mu.Lock()
				srv[kk][qi], srvR[kk][qi], lib[kk][qi], libR[kk][qi] = sb, sr, lb, lr
				if sameSet(got, libTitles) {
					same[kk]++
				}
				mu.Unlock()
			}
		}
	})
	for _, err := range errs {
		if err != nil {
			return "", err
		}
	}
	elapsed := time.Since(t1)
	queries := n * (1 + len(cfgs)*len(hotpotBudgets))
	fmt.Fprintf(os.Stderr, "eval: %d queries in %s\n", queries, elapsed.Round(time.Second))

	mean := func(v []float64) float64 {
		var s float64
		for _, x := range v {
			s += x
		}
		return s / float64(len(v))
	}
	var b bytes.Buffer
	how := "text2vec-transformers against the local embedder in glove mode, `nearText` with the question"
	if rt.neural {
		how = "text2vec-transformers against a second local embedder in neural mode (all-MiniLM-L6-v2, the class's " +
			"inferenceUrl), `nearText` with the question"
	}
	if rt.vector != nil {
		how = "vectorizer none, each paragraph imported with its stored USE-Lite vector; `nearVector` with the question's " +
			"stored vector and `diverseSelect: {query: <the question>}` for the strategies that read the query text"
	}
	fmt.Fprintf(&b, "Generated by `make eval-server` (`go run ./tools/eval -mode server`): the %d distinct paragraphs of the %d HotpotQA "+
		"questions (%d asked) imported into one class (%s; diverse-select `textProperty: title`, `extraTextProperties: [text]`), "+
		"`diverseSelect: {strategy, tokenBudget, candidates: %d}` over GraphQL, %d queries in %s on %d cores. "+
		"Gold = the question's two supporting paragraphs (by title). This is the open-retrieval setting: the 50 candidates "+
		"come from all %d paragraphs, not the question's own 10, so the numbers differ from the library tables above.\n\n",
		nParas, allQuestions, n, how, serverPool, queries, elapsed.Round(time.Second), runtimeCPUs(), nParas)
	fmt.Fprintf(&b, "The retrieved pool of 50 holds both supporting paragraphs for %.1f%% of the questions (gold recall %.1f%%): "+
		"the ceiling of any selection.\n\n", 100*poolBoth/float64(n), 100*poolGold/float64(n))
	b.WriteString("Server: through Weaviate. Library: the same strategies run in process on the very pools the server retrieved " +
		"(a plain search of 50 with vectors and distances). Same: share of (question, budget) pairs where both selected " +
		"the same paragraphs. HNSW search is approximate and its graph depends on the import's timing, so a pool can " +
		"differ by a paragraph between runs and the figures by a few tenths; the library column always uses the server's pool.\n\n")
	head := []string{"strategy"}
	for _, bud := range hotpotBudgets {
		head = append(head, fmt.Sprintf("both-gold B=%d server", bud), "library")
	}
	for _, bud := range hotpotBudgets {
		head = append(head, fmt.Sprintf("recall B=%d server", bud))
	}
	head = append(head, "same")
	var rows [][]string
	order := rowIndex(cfgs, def)
	for _, k := range order {
		c := cfgs[k]
		name := "`" + c.Label + "`"
		if c.Label == def {
			name = "**`" + c.Label + "` (default)**"
		}
		row := []string{name}
		sameN := 0
		for bi := range hotpotBudgets {
			row = append(row, pct(mean(srv[key{k, bi}])), pct(mean(lib[key{k, bi}])))
			sameN += same[key{k, bi}]
		}
		for bi := range hotpotBudgets {
			row = append(row, pct(mean(srvR[key{k, bi}])))
		}
		row = append(row, pct(float64(sameN)/float64(n*len(hotpotBudgets))))
		rows = append(rows, row)
	}
	// Best-lambda MMR per column, on the server's numbers.
	best := []string{"`mmr`, best lambda per column"}
	for bi := range hotpotBudgets {
		bl, bv, lv := "", -1.0, 0.0
		for k, c := range cfgs {
			if c.Sweep {
				if v := mean(srv[key{k, bi}]); v > bv {
					bl, bv, lv = c.Label, v, mean(lib[key{k, bi}])
				}
			}
		}
		best = append(best, pct(bv)+" ("+strings.TrimPrefix(bl, "mmr ")+")", pct(lv))
	}
	for range hotpotBudgets {
		best = append(best, "")
	}
	rows = append(rows, append(best, ""))
	table(&b, head, rows)
	return b.String(), nil
}

// rowIndex orders the configs as the library tables: default, topk,
// relcost, the other strategies, then the sweep.
func rowIndex(cfgs []config, def string) []int {
	var head, rest, sweep []int
	for k, c := range cfgs {
		switch {
		case c.Sweep:
			sweep = append(sweep, k)
		case c.Label == def || c.Label == "topk" || c.Label == "relcost":
			head = append(head, k)
		default:
			rest = append(rest, k)
		}
	}
	rank := map[string]int{def: 0, "topk": 1, "relcost": 2}
	sort.SliceStable(head, func(a, b int) bool { return rank[cfgs[head[a]].Label] < rank[cfgs[head[b]].Label] })
	return append(append(head, rest...), sweep...)
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	x := append([]string(nil), a...)
	y := append([]string(nil), b...)
	sort.Strings(x)
	sort.Strings(y)
	for i := range x {
		if x[i] != y[i] {
			return false
		}
	}
	return true
}

// importParas (re)creates the class and imports the paragraphs in batches.
func importParas(ctx context.Context, client *weaviate.Client, rt serverRoute, paras []hotpotPara) error {
	_ = client.Schema().ClassDeleter().WithClassName(rt.class).Do(ctx)
	ds := map[string]any{"textProperty": "title", "extraTextProperties": []string{"text"}}
	class := &models.Class{
		Class:      rt.class,
		Vectorizer: "text2vec-transformers",
		ModuleConfig: map[string]any{
			"text2vec-transformers": map[string]any{"vectorizeClassName": false},
			"diverse-select":        ds,
		},
		Properties: []*models.Property{
			{Name: "title", DataType: []string{"text"}},
			{Name: "text", DataType: []string{"text"}},
		},
	}
	if rt.inferenceURL != "" {
		class.ModuleConfig.(map[string]any)["text2vec-transformers"] = map[string]any{"vectorizeClassName": false, "inferenceUrl": rt.inferenceURL}
	}
	if rt.vector != nil {
		class.Vectorizer = "none"
		class.ModuleConfig = map[string]any{"diverse-select": ds}
	}
	if err := client.Schema().ClassCreator().WithClass(class).Do(ctx); err != nil {
		return fmt.Errorf("create class %s: %w", rt.class, err)
	}
	const batch = 200
	for start := 0; start < len(paras); start += batch {
		objs := make([]*models.Object, 0, batch)
		for _, p := range paras[start:min(start+batch, len(paras))] {
			obj := &models.Object{Class: rt.class, Properties: map[string]any{"title": p.Title, "text": p.Text}}
			if rt.vector != nil {
				obj.Vector = rt.vector(p)
			}
			objs = append(objs, obj)
		}
		resp, err := client.Batch().ObjectsBatcher().WithObjects(objs...).Do(ctx)
		if err != nil {
			return fmt.Errorf("import: %w", err)
		}
		if err := stack.BatchError(resp); err != nil {
			return fmt.Errorf("import: %w", err)
		}
	}
	return nil
}

// gql posts a GraphQL query and decodes the objects of the class.
func gql(ctx context.Context, url, class, query string) ([]map[string]any, error) {
	var out []map[string]any
	err := stack.QueryGet(ctx, url, class, query, &out)
	return out, err
}

// serverPoolOf is the plain search's top-50 with vectors and distances, as
// library candidates (relevance 1 - distance, text as the module joins it).
func serverPoolOf(ctx context.Context, url string, rt serverRoute, question string, counter tokens.Counter) ([]selectors.Candidate, error) {
	objs, err := gql(ctx, url, rt.class, fmt.Sprintf(`{ Get { %s(%s, limit: %d) {
		title text _additional { id distance vector } } } }`, rt.class, rt.search(question), serverPool))
	if err != nil {
		return nil, err
	}
	out := make([]selectors.Candidate, len(objs))
	for i, o := range objs {
		add, _ := o["_additional"].(map[string]any)
		dist, _ := add["distance"].(float64)
		raw, _ := add["vector"].([]any)
		vec := make([]float32, len(raw))
		for j, x := range raw {
			f, _ := x.(float64)
			vec[j] = float32(f)
		}
		title, _ := o["title"].(string)
		text, _ := o["text"].(string)
		full := title + "\n" + text
		id, _ := add["id"].(string)
		out[i] = selectors.Candidate{ID: id, Relevance: 1 - dist, Tokens: counter.Count(full), Vector: vec, Text: full}
	}
	return out, nil
}

// serverSelect runs the search with diverseSelect and returns the selected titles.
func serverSelect(ctx context.Context, url string, rt serverRoute, question string, c config, budget int) ([]string, error) {
	args := fmt.Sprintf(`strategy: %q, tokenBudget: %d, candidates: %d`, c.Strategy, budget, serverPool) + rt.selectArgs(question)
	keys := make([]string, 0, len(c.Params))
	for k := range c.Params {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		switch v := c.Params[k].(type) {
		case string:
			args += fmt.Sprintf(", %s: %q", k, v)
		default:
			args += fmt.Sprintf(", %s: %v", k, v)
		}
	}
	objs, err := gql(ctx, url, rt.class, fmt.Sprintf(`{ Get { %s(%s, limit: %d, diverseSelect: {%s}) {
		title _additional { diverseSelect { rank } } } } }`, rt.class, rt.search(question), serverPool, args))
	if err != nil {
		return nil, err
	}
	out := make([]string, len(objs))
	for i, o := range objs {
		out[i], _ = o["title"].(string)
	}
	return out, nil
}

func runtimeCPUs() int { return runtime.NumCPU() }
