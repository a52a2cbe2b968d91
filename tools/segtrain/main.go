// Command segtrain trains SAGE's pair scorer (package segment) for one
// sentence encoder from the Wikipedia paragraphs of the HotpotQA, MuSiQue
// and 2Wiki contexts in the shared data folder (read in place;
// tools/internal/wikiseg): consecutive sentences of a paragraph are
// positives, the last sentence of a paragraph and the first of the next one
// negatives. Articles are split by title: the weights learn from the
// training articles, the threshold is chosen on the validation articles
// (the one with the best boundary F1 over their pairs), and the held-out
// articles are left to docs/segmentation.md (make eval-segment).
//
//	go run ./tools/segtrain -encoder glove-sif                         # in process, the embedder's glove mode
//	go run ./tools/segtrain -encoder minilm-l6 -url http://host:port  # any text2vec-transformers endpoint
//
// It writes segment/weights/<encoder>.json: the weights, the threshold and
// what made them. Training is deterministic for a given encoder and data.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"

	"github.com/diverse-select/diverse-select/cmd/embedder/embed"
	"github.com/diverse-select/diverse-select/segment"
	"github.com/diverse-select/diverse-select/tools/internal/wikiseg"
)

func main() {
	var (
		dataDir  = flag.String("data", "../shared/data", "the shared data folder")
		gloveDir = flag.String("glove-dir", "", "GloVe folder (default <data>/glove-6b-100d-top100k)")
		encoder  = flag.String("encoder", "glove-sif", "encoder name: glove-sif (in process) or any name with -url")
		url      = flag.String("url", "", "a text2vec-transformers endpoint that embeds for -encoder")
		conc     = flag.Int("concurrency", 8, "concurrent requests to -url")
		out      = flag.String("out", "", "weights file (default segment/weights/<encoder>.json)")
		hidden   = flag.Int("hidden", 32, "hidden units")
		epochs   = flag.Int("epochs", 12, "training epochs")
		seed     = flag.Uint64("seed", 2503, "seed of the initial weights and the shuffles")
	)
	flag.Parse()
	if *gloveDir == "" {
		*gloveDir = filepath.Join(*dataDir, "glove-6b-100d-top100k")
	}
	if *out == "" {
		*out = filepath.Join("segment", "weights", *encoder+".json")
	}
	enc, err := Encoder(*encoder, *url, *gloveDir, *conc)
	if err != nil {
		log.Fatal(err)
	}
	if err := run(context.Background(), enc, *encoder, *dataDir, *out, *hidden, *epochs, *seed); err != nil {
		log.Fatal(err)
	}
}

// Encoder is glove-sif in process, or a text2vec-transformers endpoint.
func Encoder(name, url, gloveDir string, conc int) (segment.Encoder, error) {
	if url != "" {
		return segment.Remote{URL: url, Concurrency: conc}, nil
	}
	if name != "glove-sif" {
		return nil, fmt.Errorf("encoder %q needs -url (only glove-sif runs in process)", name)
	}
	g, err := embed.LoadGloVe(gloveDir)
	if err != nil {
		return nil, err
	}
	return g, nil // every embedder is a segment.Encoder
}

// example is a pair's two vectors and label.
type example struct {
	a, b []float32
	y    float64
}

func run(ctx context.Context, enc segment.Encoder, name, dataDir, out string, hidden, epochs int, seed uint64) error {
	start := time.Now()
	paras, err := wikiseg.Load(dataDir)
	if err != nil {
		return err
	}
	train, err := examples(ctx, enc, wikiseg.Pairs(wikiseg.Of(paras, wikiseg.Train)))
	if err != nil {
		return err
	}
	val, err := examples(ctx, enc, wikiseg.Pairs(wikiseg.Of(paras, wikiseg.Validation)))
	if err != nil {
		return err
	}
	dims := len(train[0].a)
	s := fit(train, dims, hidden, epochs, seed)
	s.Encoder = name
	th, f1 := chooseThreshold(s, val)
	s.Threshold = th
	pos, neg := count(train)
	s.Trained = map[string]any{
		"data": "distinct paragraphs of the contexts of " + fmt.Sprint(wikiseg.Files) + " (shared data folder); " +
			"articles split by FNV-32a(title) mod 5: 2-4 train, 1 validation, 0 held out",
		"pairs":     fmt.Sprintf("train %d (%d consecutive in a paragraph, %d across a paragraph break), validation %d", len(train), pos, neg, len(val)),
		"command":   "go run ./tools/segtrain -encoder " + name + " (-url <endpoint> for an encoder other than glove-sif)",
		"optimiser": fmt.Sprintf("Adam lr 1e-3, batch 64, %d epochs, class-balanced logistic loss, seed %d", epochs, seed),
		"threshold": fmt.Sprintf("best boundary F1 over the validation pairs (%.3f; grid 0.05..0.95 by 0.01)", f1),
	}
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	if err := s.Write(f); err != nil {
		f.Close()
		return err
	}
	log.Printf("%s: %d train / %d validation pairs, threshold %.2f (validation boundary F1 %.3f), %s -> %s",
		name, len(train), len(val), th, f1, time.Since(start).Round(time.Second), out)
	return f.Close()
}

func count(ex []example) (pos, neg int) {
	for _, e := range ex {
		if e.y == 1 {
			pos++
		} else {
			neg++
		}
	}
	return pos, neg
}

// examples embeds every distinct sentence of the pairs once.
func examples(ctx context.Context, enc segment.Encoder, pairs []wikiseg.Pair) ([]example, error) {
	index := map[string]int{}
	var texts []string
	for _, p := range pairs {
		for _, t := range []string{p.A, p.B} {
			if _, ok := index[t]; !ok {
				index[t] = len(texts)
				texts = append(texts, t)
			}
		}
	}
	vecs, err := enc.Encode(ctx, texts)
	if err != nil {
		return nil, err
	}
	out := make([]example, len(pairs))
	for i, p := range pairs {
		out[i] = example{a: vecs[index[p.A]], b: vecs[index[p.B]]}
		if p.Continue {
			out[i].y = 1
		}
	}
	return out, nil
}

// chooseThreshold is the threshold whose cuts (score < threshold) have the
// best F1 against the true breaks of the validation pairs.
func chooseThreshold(s *segment.Scorer, val []example) (float64, float64) {
	scores := make([]float64, len(val))
	for i, e := range val {
		scores[i] = s.Score(e.a, e.b)
	}
	bestT, bestF := 0.5, -1.0
	for t := 0.05; t < 0.955; t += 0.01 {
		tp, fp, fn := 0, 0, 0
		for i, e := range val {
			cut := scores[i] < t
			switch {
			case cut && e.y == 0:
				tp++
			case cut:
				fp++
			case e.y == 0:
				fn++
			}
		}
		if f := 2 * float64(tp) / float64(max(1, 2*tp+fp+fn)); f > bestF {
			bestT, bestF = math.Round(t*100)/100, f
		}
	}
	return bestT, bestF
}

// fit trains the MLP with Adam on the class-balanced logistic loss.
func fit(ex []example, dims, hidden, epochs int, seed uint64) *segment.Scorer {
	rng := rand.New(rand.NewPCG(seed, 0x5a6e))
	in := 4 * dims
	p := newParams(in, hidden, rng)
	pos, neg := count(ex)
	wPos, wNeg := float64(len(ex))/(2*float64(pos)), float64(len(ex))/(2*float64(neg))
	order := make([]int, len(ex))
	for i := range order {
		order[i] = i
	}
	const batch = 64
	x := make([]float64, in)
	h := make([]float64, hidden)
	g := newParams(in, hidden, nil)
	opt := newAdam(p.size())
	for ep := 0; ep < epochs; ep++ {
		rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		loss := 0.0
		for b := 0; b < len(order); b += batch {
			g.zero()
			for _, i := range order[b:min(b+batch, len(order))] {
				e := ex[i]
				features(x, e.a, e.b)
				z := p.b2[0]
				for k := 0; k < hidden; k++ {
					acc := p.b1[k]
					w := p.w1[k*in : (k+1)*in]
					for j, v := range x {
						acc += w[j] * v
					}
					h[k] = math.Max(0, acc)
					z += p.w2[k] * h[k]
				}
				y := 1 / (1 + math.Exp(-z))
				w := wNeg
				if e.y == 1 {
					w = wPos
				}
				loss -= w * (e.y*math.Log(y+1e-12) + (1-e.y)*math.Log(1-y+1e-12))
				dz := w * (y - e.y)
				g.b2[0] += dz
				for k := 0; k < hidden; k++ {
					g.w2[k] += dz * h[k]
					if h[k] <= 0 {
						continue
					}
					dh := dz * p.w2[k]
					g.b1[k] += dh
					gw := g.w1[k*in : (k+1)*in]
					for j, v := range x {
						gw[j] += dh * v
					}
				}
			}
			opt.step(p, g, 1.0/float64(min(batch, len(order)-b)))
		}
		log.Printf("epoch %d: loss %.4f", ep+1, loss/float64(len(ex)))
	}
	return p.scorer(dims, hidden)
}

func features(x []float64, a, b []float32) {
	d := len(a)
	for j := range a {
		x[j], x[d+j], x[2*d+j], x[3*d+j] = float64(a[j]), float64(b[j]), float64(a[j]-b[j]), float64(a[j]*b[j])
	}
}

// params are the MLP's weights in float64 for training.
type params struct{ w1, b1, w2, b2 []float64 }

func newParams(in, hidden int, rng *rand.Rand) *params {
	p := &params{w1: make([]float64, in*hidden), b1: make([]float64, hidden), w2: make([]float64, hidden), b2: make([]float64, 1)}
	if rng != nil { // He initialisation
		for i := range p.w1 {
			p.w1[i] = rng.NormFloat64() * math.Sqrt(2/float64(in))
		}
		for i := range p.w2 {
			p.w2[i] = rng.NormFloat64() * math.Sqrt(2/float64(hidden))
		}
	}
	return p
}

func (p *params) all() [][]float64 { return [][]float64{p.w1, p.b1, p.w2, p.b2} }

func (p *params) size() int {
	n := 0
	for _, a := range p.all() {
		n += len(a)
	}
	return n
}

func (p *params) zero() {
	for _, a := range p.all() {
		clear(a)
	}
}

func (p *params) scorer(dims, hidden int) *segment.Scorer {
	f32 := func(v []float64) []float32 {
		out := make([]float32, len(v))
		for i, x := range v {
			out[i] = float32(x)
		}
		return out
	}
	return &segment.Scorer{Dims: dims, Hidden: hidden, W1: f32(p.w1), B1: f32(p.b1), W2: f32(p.w2), B2: float32(p.b2[0])}
}

// adam is the Adam optimiser (Kingma and Ba 2015) with its defaults.
type adam struct {
	m, v []float64
	t    int
}

func newAdam(n int) *adam { return &adam{m: make([]float64, n), v: make([]float64, n)} }

func (a *adam) step(p, g *params, scale float64) {
	const lr, b1, b2, eps = 1e-3, 0.9, 0.999, 1e-8
	a.t++
	c1, c2 := 1-math.Pow(b1, float64(a.t)), 1-math.Pow(b2, float64(a.t))
	k := 0
	gs := g.all()
	for ai, w := range p.all() {
		for i := range w {
			gi := gs[ai][i] * scale
			a.m[k] = b1*a.m[k] + (1-b1)*gi
			a.v[k] = b2*a.v[k] + (1-b2)*gi*gi
			w[i] -= lr * (a.m[k] / c1) / (math.Sqrt(a.v[k]/c2) + eps)
			k++
		}
	}
}
