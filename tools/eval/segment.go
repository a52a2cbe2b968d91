package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/diverse-select/diverse-select/cmd/embedder/embed"
	"github.com/diverse-select/diverse-select/internal/vecmath"
	"github.com/diverse-select/diverse-select/segment"
	"github.com/diverse-select/diverse-select/segment/boundary"
	"github.com/diverse-select/diverse-select/selectors"
	"github.com/diverse-select/diverse-select/selectors/tokens"
	"github.com/diverse-select/diverse-select/tools/internal/wikiseg"
)

// The segmentation measurement (make eval-segment, -mode segment): the
// chunkers of package segment on held-out Wikipedia articles (boundary
// quality), on the HotpotQA and MuSiQue contexts re-chunked (what the
// selection then gives an LLM), and their speed. It writes the generated
// blocks of docs/segmentation.md.

const (
	// segSize is every chunker's chunk length: fixed and packed chunks,
	// SAGE's coarse chunks, the percentile splitter's cap.
	segSize = 128
	// segMin is every chunker's least chunk length (MinTokens).
	segMin = 32
	// segFree is the cap of the table where only semantic cuts count: no
	// held-out paragraph is that long.
	segFree = 4096
	// segPerDoc is the held-out paragraphs joined into one test document.
	segPerDoc = 5
	// segCover is the share of a supporting paragraph the selected chunks
	// must hold for it to count as selected.
	segCover = 0.5
	// segSpeedDocs is the held-out documents the speed table times.
	segSpeedDocs = 60
	// segConcurrency is the requests in flight to the neural encoder.
	segConcurrency = 16
	segBegin       = "<!-- BEGIN make eval-segment -->"
	segEnd         = "<!-- END make eval-segment -->"
)

var segBudgets = []int{150, 300, 450}

// segEncoder is one sentence encoder of the measurement, cached by text.
type segEncoder struct {
	name string
	base segment.Encoder
	mu   sync.Mutex
	vecs map[string][]float32
}

func (e *segEncoder) Encode(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	var todo []string
	e.mu.Lock()
	for i, t := range texts {
		if v, ok := e.vecs[t]; ok {
			out[i] = v
		} else {
			todo = append(todo, t)
		}
	}
	e.mu.Unlock()
	if len(todo) > 0 {
		vs, err := e.base.Encode(ctx, todo)
		if err != nil {
			return nil, err
		}
		e.mu.Lock()
		for i, t := range todo {
			e.vecs[t] = vs[i]
		}
		e.mu.Unlock()
		return e.Encode(ctx, texts)
	}
	return out, nil
}

// gloveEncoder embeds in process with the embedder's glove mode, on every
// core or (sequential, for the speed table) on one goroutine.
type gloveEncoder struct {
	g          *embed.GloVe
	sequential bool
}

func (l gloveEncoder) Encode(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	if l.sequential {
		for i, t := range texts {
			out[i] = l.g.Embed(t)
		}
		return out, nil
	}
	parallel(len(texts), func(i int) { out[i] = l.g.Embed(texts[i]) })
	return out, nil
}

// cachedNeural is all-MiniLM-L6-v2 through the evaluation's vector cache:
// a text is embedded once per machine by the neural worker, so a stopped or
// repeated run (the neural encoder is slow on a shared CPU) only reads.
type cachedNeural struct{ c *vectorCache }

func (n cachedNeural) Encode(_ context.Context, texts []string) ([][]float32, error) {
	if err := n.c.ensure(texts); err != nil {
		return nil, err
	}
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v, err := n.c.vector(t)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// segEncoders are GloVe-SIF and the neural encoder: at neuralURL when set,
// else from the vector cache with minilm.
func segEncoders(o options, neuralURL string, minilm bool) ([]*segEncoder, error) {
	g, err := embed.LoadGloVe(o.gloveDir)
	if err != nil {
		return nil, err
	}
	out := []*segEncoder{{name: "glove-sif", base: gloveEncoder{g: g}, vecs: map[string][]float32{}}}
	switch {
	case neuralURL != "":
		out = append(out, &segEncoder{name: "minilm-l6", base: segment.Remote{URL: neuralURL, Concurrency: segConcurrency}, vecs: map[string][]float32{}})
	case minilm:
		c, err := openVectorCache(o.vectorCache, o.python)
		if err != nil {
			return nil, err
		}
		out = append(out, &segEncoder{name: "minilm-l6", base: cachedNeural{c}, vecs: map[string][]float32{}})
	}
	return out, nil
}

// prefill embeds every sentence the chunkers will ask for in one call, so
// the cached neural encoder batches them instead of one document at a time.
func prefill(ctx context.Context, e *segEncoder, texts []string) error {
	if _, ok := e.base.(cachedNeural); !ok {
		return nil
	}
	var all []string
	for _, t := range texts {
		for _, s := range segment.Sentences(t) {
			all = append(all, t[s.Start:s.End])
		}
	}
	_, err := e.Encode(ctx, all)
	return err
}

// namedChunker is one row of the tables.
type namedChunker struct {
	label string
	c     segment.Chunker
}

// segChunkers are the rows of the tables, each cutting at most size and at
// least segMin tokens a chunk; Chonkie's semantic chunker with the
// threshold chosen on the validation articles.
func segChunkers(o options, e *segEncoder, counter tokens.Counter, size int, chonkieThreshold float64) ([]namedChunker, error) {
	scorer, err := segment.Weights(e.name)
	if err != nil {
		return nil, err
	}
	return []namedChunker{
		{fmt.Sprintf("Chonkie SemanticChunker (threshold %.2f, chosen; same vectors)", chonkieThreshold), chonkieSemantic(o, e, counter, size, chonkieThreshold)},
		{fmt.Sprintf("Chonkie RecursiveChunker %d", size), &peerChunker{python: o.python, enc: e, counter: counter,
			job: map[string]any{"job": "chonkie-recursive", "chunk_size": size, "min_characters": segMinChars}}},
		{fmt.Sprintf("change point + SAGE scorer (penalty %.1f, weight %.1f; default)", segment.DefaultPenalty, segment.DefaultWeight),
			segment.ChangePoint{Encoder: e, Scorer: scorer, MinTokens: segMin, MaxTokens: size, Counter: counter}},
		{fmt.Sprintf("change point alone (penalty %.1f)", segment.DefaultPenalty), segment.ChangePoint{Encoder: e, MinTokens: segMin, MaxTokens: size, Counter: counter}},
		{fmt.Sprintf("SAGE scorer (threshold %.2f, chosen)", scorer.Threshold), segment.SAGE{Encoder: e, Scorer: scorer, Threshold: scorer.Threshold, MinTokens: segMin, MaxTokens: size, Counter: counter}},
		{"SAGE scorer (threshold 0.50, the paper's)", segment.SAGE{Encoder: e, Scorer: scorer, Threshold: 0.5, MinTokens: segMin, MaxTokens: size, Counter: counter}},
		{fmt.Sprintf("similarity percentile %d", segment.DefaultPercentile), segment.Percentile{Encoder: e, Percentile: segment.DefaultPercentile, MinTokens: segMin, MaxTokens: size, Counter: counter}},
		{fmt.Sprintf("sentence-packed %d", size), segment.Packed{Tokens: size, MinTokens: segMin, Counter: counter}},
		{fmt.Sprintf("fixed length %d", size), segment.Fixed{Tokens: size, MinTokens: segMin, Counter: counter}},
	}, nil
}

// segMinChars is Chonkie's recursive chunker's least chunk, in characters
// (its own unit): about segMin tokens.
const segMinChars = 4 * segMin

func chonkieSemantic(o options, e *segEncoder, counter tokens.Counter, size int, threshold float64) *peerChunker {
	return &peerChunker{python: o.python, enc: e, counter: counter,
		job: map[string]any{"job": "chonkie-semantic", "chunk_size": size, "threshold": threshold}}
}

// chonkieThresholds is the grid Chonkie's semantic threshold is chosen from
// on the validation articles (its default is 0.8).
var chonkieThresholds = []float64{0.5, 0.6, 0.7, 0.8, 0.9}

// oracle knows the true boundaries: it cuts there, then packs each
// paragraph into chunks of at most size tokens - the best a chunker of whole
// sentences within the cap can do, as a reference row.
type oracle struct {
	bounds  map[string][]int
	size    int
	counter tokens.Counter
}

func (o oracle) Chunk(ctx context.Context, text string) ([]segment.Chunk, error) {
	var out []segment.Chunk
	b := append(append([]int{0}, o.bounds[text]...), len(text)+1) // a boundary is one byte after its join's space
	for i := 0; i+1 < len(b); i++ {
		cs, err := segment.Packed{Tokens: o.size, MinTokens: segMin, Counter: o.counter}.Chunk(ctx, text[b[i]:b[i+1]-1])
		if err != nil {
			return nil, err
		}
		for _, c := range cs {
			c.Start, c.End = c.Start+b[i], c.End+b[i]
			out = append(out, c)
		}
	}
	return out, nil
}

// segTuning is the grid the change point's penalty and the SAGE scorer's
// weight are chosen from: each pair's Pk on the validation articles'
// documents with only semantic cuts (cap segFree).
func segTuning(ctx context.Context, b *bytes.Buffer, o options, e *segEncoder, docs []wikiseg.Document, counter tokens.Counter) (float64, error) {
	scorer, err := segment.Weights(e.name)
	if err != nil {
		return 0, err
	}
	var cs []namedChunker
	for _, w := range []float64{0, 0.5, 1, 2} {
		for _, pen := range []float64{1, 1.5, 2, 3} {
			c := segment.ChangePoint{Encoder: e, Scorer: scorer, Penalty: pen, Weight: w, MaxTokens: segFree, Counter: counter}
			if w == 0 {
				c.Scorer = nil // the change point alone
			}
			cs = append(cs, namedChunker{fmt.Sprintf("penalty %.1f, weight %.1f", pen, w), c})
		}
	}
	for _, th := range chonkieThresholds {
		cs = append(cs, namedChunker{fmt.Sprintf("Chonkie SemanticChunker, threshold %.2f", th), chonkieSemantic(o, e, counter, segFree, th)})
	}
	rows, err := boundaryRows(ctx, cs, docs, counter, segFree)
	if err != nil {
		return 0, err
	}
	table(b, []string{"chunker", "Pk", "WindowDiff", "boundary precision", "boundary recall", "boundary F1", "chunks per document", "mean chunk tokens", "chunks out of bounds"}, rows)
	best, bestPk := chonkieThresholds[0], 2.0
	for k, th := range chonkieThresholds {
		if pk, _ := strconv.ParseFloat(rows[len(rows)-len(chonkieThresholds)+k][1], 64); pk < bestPk {
			best, bestPk = th, pk
		}
	}
	return best, nil
}

// loadHeldOutSegments reads what both segmentation measurements (runSegment,
// runSegmentLean) start from: the token counter, the articles' paragraphs,
// the held-out documents and each one's true boundaries by text.
func loadHeldOutSegments(dataDir string) (tokens.Counter, []wikiseg.Paragraph, []wikiseg.Document, map[string][]int, error) {
	counter, err := tokens.New(tokens.CL100K)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	paras, err := wikiseg.Load(dataDir)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	docs := wikiseg.Documents(wikiseg.Of(paras, wikiseg.HeldOut), segPerDoc)
	truth := map[string][]int{}
	for _, d := range docs {
		truth[d.Text] = d.Boundaries
	}
	return counter, paras, docs, truth, nil
}

// runSegment measures every chunker with every encoder and writes the
// report into the document's generated block.
func runSegment(ctx context.Context, o options, w io.Writer, neuralURL string, minilm bool) error {
	counter, paras, docs, truth, err := loadHeldOutSegments(o.dataDir)
	if err != nil {
		return err
	}
	valDocs := wikiseg.Documents(wikiseg.Of(paras, wikiseg.Validation), segPerDoc)
	encs, err := segEncoders(o, neuralURL, minilm)
	if err != nil {
		return err
	}
	for _, e := range encs {
		var texts []string
		for _, d := range append(append([]wikiseg.Document{}, valDocs...), docs...) {
			texts = append(texts, d.Text)
		}
		for _, set := range multiHopSets[:2] {
			qs, err := loadMultiHop(o.dataDir + "/" + set.File)
			if err != nil {
				return err
			}
			for _, q := range qs {
				texts = append(texts, contextDoc(q).text)
			}
		}
		if err := prefill(ctx, e, texts); err != nil {
			return err
		}
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "Every chunker cuts at most %d and at least %d tokens (cl100k_base) a chunk, unless said otherwise. Held-out documents: %d, each %d consecutive "+
		"paragraphs of held-out articles joined by a space (%d paragraphs of articles whose titles the scorer never saw). "+
		"Chunks out of bounds: over the maximum, or under the minimum in a document that is not itself shorter, by the chunk's own count.\n\n",
		segSize, segMin, len(docs), segPerDoc, len(docs)*segPerDoc)
	b.WriteString("### The trained scorers\n\n")
	var scorers [][]string
	for _, e := range encs {
		sc, err := segment.Weights(e.name)
		if err != nil {
			return err
		}
		scorers = append(scorers, []string{encoderLabel(e.name), strconv.Itoa(sc.Dims), strconv.Itoa(sc.Hidden), fmt.Sprintf("%.2f", sc.Threshold),
			fmt.Sprint(sc.Trained["pairs"]), fmt.Sprint(sc.Trained["threshold"])})
	}
	table(&b, []string{"encoder", "dimensions", "hidden units", "threshold", "pairs", "threshold chosen by"}, scorers)
	sets := []multiHopSet{multiHopSets[0], multiHopSets[1]}
	var speed [][]string
	var paraTexts []string
	for _, p := range wikiseg.Of(paras, wikiseg.HeldOut) {
		paraTexts = append(paraTexts, p.Text)
	}
	agree, err := splitterAgreement(ctx, o.python, paraTexts)
	if err != nil {
		return err
	}
	b.WriteString("### The sentence splitter beside pysbd\n\n" +
		"Where a sentence starts (after a paragraph's first), by the project's splitter (selectors/sentences) and by pysbd " +
		"(rule-based, Punkt-style; requirements/segment-eval.txt), over the held-out paragraphs; agreeing: both at the same byte.\n\n")
	table(&b, []string{"paragraphs", "sentence starts, ours", "sentence starts, pysbd", "agreeing", "precision (ours against pysbd)", "recall", "F1"}, [][]string{agree})
	head := []string{"chunker", "Pk (lower is better)", "WindowDiff (lower is better)", "boundary precision", "boundary recall", "boundary F1", "chunks per document", "mean chunk tokens", "chunks out of bounds"}
	for _, e := range encs {
		fmt.Fprintf(&b, "### Choosing the change point's penalty and the scorer's weight, %s\n\n"+
			"On the %d documents of the validation articles (never the held-out ones), only semantic cuts (at most %d tokens a chunk); "+
			"the default (penalty 2.0, weight 1.0) was chosen as the lowest Pk of GloVe-SIF's grid (tied with 1.5, 0.5); the same constants serve every encoder.\n\n", encoderLabel(e.name), len(valDocs), segFree)
		chonkieTh, err := segTuning(ctx, &b, o, e, valDocs, counter)
		if err != nil {
			return err
		}
		for _, size := range []int{segFree, segSize} {
			chunkers, err := segChunkers(o, e, counter, size, chonkieTh)
			if err != nil {
				return err
			}
			what := fmt.Sprintf("at most %d tokens a chunk", size)
			if size == segFree {
				what = fmt.Sprintf("only semantic cuts (at most %d tokens a chunk: no paragraph is that long)", size)
			}
			fmt.Fprintf(&b, "### Boundary quality, %s, %s\n\n", encoderLabel(e.name), what)
			rows, err := boundaryRows(ctx, append(chunkers, namedChunker{"the true boundaries, each paragraph packed (reference)", oracle{truth, size, counter}}), docs, counter, size)
			if err != nil {
				return err
			}
			table(&b, head, rows)
		}
		chunkers, err := segChunkers(o, e, counter, segSize, chonkieTh)
		if err != nil {
			return err
		}
		for _, set := range sets {
			fmt.Fprintf(&b, "### Downstream, %s, %s\n\n", set.Name, encoderLabel(e.name))
			if err := downstream(ctx, &b, o, set, e, chunkers, counter); err != nil {
				return err
			}
		}
		if _, ok := e.base.(cachedNeural); ok {
			continue // cached vectors time the cache, not the encoder
		}
		sp, err := speedRows(ctx, e, chunkers, docs[:min(segSpeedDocs, len(docs))])
		if err != nil {
			return err
		}
		speed = append(speed, sp...)
	}
	fmt.Fprintf(&b, "### Speed\n\nSentences per second over the first %d held-out documents, one document at a time, median of 3 interleaved runs on %s "+
		"(%d cores, shared with other work); the encoder's time included: GloVe-SIF in process on one goroutine, the neural encoder "+
		"over the text2vec-transformers protocol (the embedder's neural mode), %d requests at a time, no cache.\n\n", min(segSpeedDocs, len(docs)), cpuName(), runtime.NumCPU(), segConcurrency)
	table(&b, []string{"encoder", "chunker", "sentences/s"}, speed)
	fmt.Fprint(w, b.String())
	if o.print {
		return nil
	}
	return splice(o.doc, segBegin, segEnd, b.String())
}

func encoderLabel(name string) string {
	switch name {
	case "glove-sif":
		return "GloVe-SIF"
	case "minilm-l6":
		return "all-MiniLM-L6-v2"
	}
	return name
}

// boundaryRows scores each chunker's cuts against the paragraph joins, in
// words: Pk and WindowDiff (k = half the document's mean paragraph length)
// averaged over documents, F1 over all boundaries (a cut counts when it is
// exactly at a join).
func boundaryRows(ctx context.Context, chunkers []namedChunker, docs []wikiseg.Document, counter tokens.Counter, size int) ([][]string, error) {
	var rows [][]string
	texts := make([]string, len(docs))
	for i, d := range docs {
		texts[i] = d.Text
	}
	for _, nc := range chunkers {
		if err := prepareAll(ctx, nc.c, texts); err != nil {
			return nil, fmt.Errorf("%s: %w", nc.label, err)
		}
		var pk, wd float64
		tp, nh, nr, chunks, toks, out := 0, 0, 0, 0, 0, 0
		for _, d := range docs {
			cs, err := nc.c.Chunk(ctx, d.Text)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", nc.label, err)
			}
			var cuts []int
			for _, c := range cs[1:] {
				cuts = append(cuts, c.Start)
			}
			short := counter.Count(d.Text) < segMin
			for _, c := range cs {
				toks += c.Tokens
				if n := counter.Count(d.Text[c.Start:c.End]); n > size || (n < segMin && !short) {
					out++
				}
			}
			chunks += len(cs)
			hyp, n := wikiseg.Words(d.Text, cuts)
			ref, _ := wikiseg.Words(d.Text, d.Boundaries)
			pk += boundary.Pk(ref, hyp, n, 0)
			wd += boundary.WindowDiff(ref, hyp, n, 0)
			_, r, _ := boundary.F1(ref, hyp, 0)
			hit := int(r*float64(len(ref)) + 0.5)
			tp, nh, nr = tp+hit, nh+len(hyp), nr+len(ref)
		}
		p, r := float64(tp)/float64(max(1, nh)), float64(tp)/float64(max(1, nr))
		f := 0.0
		if p+r > 0 {
			f = 2 * p * r / (p + r)
		}
		n := float64(len(docs))
		rows = append(rows, []string{nc.label, fmt.Sprintf("%.3f", pk/n), fmt.Sprintf("%.3f", wd/n), pct(p), pct(r), pct(f),
			fmt.Sprintf("%.1f", float64(chunks)/n), fmt.Sprintf("%.1f", float64(toks)/float64(max(1, chunks))), strconv.Itoa(out)})
	}
	return rows, nil
}

// segDoc is one question's context as one text: its paragraphs ("title\n
// text") joined by blank lines, with each paragraph's byte span.
type segDoc struct {
	text  string
	spans []segment.Span
	gold  []bool
}

func contextDoc(q hotpotQuestion) segDoc {
	var b strings.Builder
	var d segDoc
	for i, p := range q.Paras {
		if i > 0 {
			b.WriteString("\n\n")
		}
		s := b.Len()
		b.WriteString(hotpotText(p))
		d.spans = append(d.spans, segment.Span{Start: s, End: b.Len()})
		d.gold = append(d.gold, p.Gold)
	}
	d.text = b.String()
	return d
}

// downstream re-chunks each question's context with each chunker (and keeps
// the original paragraphs as the reference row), selects with the default
// strategy and top-k at each budget, and tables answer-in-context, all-gold
// and tokens used.
func downstream(ctx context.Context, b *bytes.Buffer, o options, set multiHopSet, e *segEncoder, chunkers []namedChunker, counter tokens.Counter) error {
	qs, err := loadMultiHop(o.dataDir + "/" + set.File)
	if err != nil {
		return err
	}
	answers := textAnswers(qs)
	cfgs := []config{{Label: "coverage (default)", Strategy: "coverage"}, {Label: "topk", Strategy: "topk"}}
	type row struct {
		label string
		c     segment.Chunker
	}
	rows := []row{{"paragraphs as given (reference)", nil}}
	for _, nc := range chunkers {
		rows = append(rows, row{nc.label, nc.c})
	}
	head := []string{"chunker", "strategy"}
	for _, bud := range segBudgets {
		head = append(head, fmt.Sprintf("answer in context B=%d", bud), fmt.Sprintf("all-gold B=%d", bud), fmt.Sprintf("tokens B=%d", bud))
	}
	var out [][]string
	for _, r := range rows {
		s, err := chunkSuite(ctx, set.Name, qs, answers, r.c, e, counter)
		if err != nil {
			return fmt.Errorf("%s %s: %w", set.Name, r.label, err)
		}
		res, err := runSuite(ctx, s, cfgs)
		if err != nil {
			return err
		}
		for _, c := range cfgs {
			line := []string{r.label, c.Label}
			for ci := range s.Constraints {
				o := res[c.Label]
				line = append(line, pct(o.mean(s, ci, 0, nil)), pct(o.mean(s, ci, 1, nil)), fmt.Sprintf("%.0f", o.mean(s, ci, 2, nil)))
			}
			out = append(out, line)
		}
	}
	table(b, head, out)
	return nil
}

// chunkSuite builds a suite whose candidates are each question's context cut
// by c (nil: the paragraphs as given). A supporting paragraph counts as
// selected when the selected chunks hold at least segCover of its bytes;
// all-gold wants every supporting paragraph.
func chunkSuite(ctx context.Context, name string, qs []hotpotQuestion, answers map[string][]string, c segment.Chunker, e *segEncoder, counter tokens.Counter) (*suite, error) {
	s := &suite{Name: name, Metrics: []string{mAnswer, mAll, "tokens"}}
	for _, bud := range segBudgets {
		s.Constraints = append(s.Constraints, constraint{Budget: bud})
	}
	spans := map[string][][2]int{} // per instance: each candidate's byte span
	docs := map[string]segDoc{}
	if c != nil {
		var all []string
		for _, q := range qs {
			all = append(all, contextDoc(q).text)
		}
		if err := prepareAll(ctx, c, all); err != nil {
			return nil, err
		}
	}
	for _, q := range qs {
		d := contextDoc(q)
		var chunks []segment.Chunk
		if c == nil {
			for _, sp := range d.spans {
				chunks = append(chunks, segment.Chunk{Start: sp.Start, End: sp.End, Tokens: counter.Count(d.text[sp.Start:sp.End])})
			}
		} else {
			var err error
			if chunks, err = c.Chunk(ctx, d.text); err != nil {
				return nil, err
			}
		}
		texts := []string{q.Question}
		for _, ch := range chunks {
			texts = append(texts, d.text[ch.Start:ch.End])
		}
		vecs, err := e.Encode(ctx, texts)
		if err != nil {
			return nil, err
		}
		in := &instance{ID: q.ID, Query: q.Question, Answers: answers[q.ID]}
		var sp [][2]int
		for i, ch := range chunks {
			in.Cands = append(in.Cands, selectors.Candidate{ID: strconv.Itoa(i), Text: texts[i+1], Vector: vecs[i+1], Tokens: ch.Tokens, Relevance: vecmath.Cosine(vecs[0], vecs[i+1])})
			in.Labels = append(in.Labels, nil)
			sp = append(sp, [2]int{ch.Start, ch.End})
		}
		// finish sorts the candidates by relevance: keep the spans aligned
		// through the candidate ids.
		finish(in)
		ordered := make([][2]int, len(sp))
		for k, cand := range in.Cands {
			i, _ := strconv.Atoi(cand.ID)
			ordered[k] = sp[i]
		}
		spans[q.ID], docs[q.ID] = ordered, d
		s.Insts = append(s.Insts, in)
	}
	s.Score = func(in *instance, sel []int, _ constraint) []float64 {
		d, sp := docs[in.ID], spans[in.ID]
		all, used := 1.0, 0
		for pi, g := range d.gold {
			if !g {
				continue
			}
			p := d.spans[pi]
			covered := 0
			for _, i := range sel {
				covered += max(0, min(p.End, sp[i][1])-max(p.Start, sp[i][0]))
			}
			if float64(covered) < segCover*float64(p.End-p.Start) {
				all = 0
			}
		}
		for _, i := range sel {
			used += in.Cands[i].Tokens
		}
		return []float64{answerIn(sel, in), all, float64(used)}
	}
	return s, nil
}

// speedRows times each chunker over the documents, the encoder's cache off.
func speedRows(ctx context.Context, e *segEncoder, chunkers []namedChunker, docs []wikiseg.Document) ([][]string, error) {
	sentences := 0
	for _, d := range docs {
		sentences += len(segment.Sentences(d.Text))
	}
	times := make([][]time.Duration, len(chunkers))
	texts := make([]string, len(docs))
	for i, d := range docs {
		texts[i] = d.Text
	}
	for run := 0; run < 3; run++ {
		for ci, nc := range chunkers {
			c := uncached(nc.c, e)
			if p, ok := c.(*peerChunker); ok {
				// the time Python spent chunking, its interpreter's start left out
				if err := p.prepare(ctx, texts); err != nil {
					return nil, err
				}
				times[ci] = append(times[ci], time.Duration(p.seconds*float64(time.Second)))
				continue
			}
			start := time.Now()
			for _, d := range docs {
				if _, err := c.Chunk(ctx, d.Text); err != nil {
					return nil, err
				}
			}
			times[ci] = append(times[ci], time.Since(start))
		}
	}
	var rows [][]string
	for ci, nc := range chunkers {
		slices.Sort(times[ci])
		rows = append(rows, []string{encoderLabel(e.name), nc.label, fmt.Sprintf("%.0f", float64(sentences)/times[ci][1].Seconds())})
	}
	return rows, nil
}

// uncached is the chunker with the encoder's own, uncached embedding (GloVe
// on one goroutine).
func uncached(c segment.Chunker, e *segEncoder) segment.Chunker {
	base := e.base
	if g, ok := base.(gloveEncoder); ok {
		g.sequential = true
		base = g
	}
	switch x := c.(type) {
	case segment.SAGE:
		x.Encoder = base
		return x
	case segment.Percentile:
		x.Encoder = base
		return x
	case segment.ChangePoint:
		x.Encoder = base
		return x
	case *peerChunker:
		return &peerChunker{python: x.python, job: x.job, enc: base, counter: x.counter}
	}
	return c
}

// cpuName is the CPU's model name from /proc/cpuinfo.
func cpuName() string {
	raw, _ := os.ReadFile("/proc/cpuinfo")
	for _, l := range strings.Split(string(raw), "\n") {
		if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return runtime.GOARCH
}
