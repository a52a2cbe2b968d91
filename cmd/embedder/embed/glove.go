package embed

import (
	"bufio"
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"

	"github.com/x448/float16"
)

// SIFA is the smoothing constant a of the SIF weight a/(a+p(w))
// (Arora, Liang and Ma 2017, "A Simple but Tough-to-Beat Baseline for
// Sentence Embeddings").
const SIFA = 1e-3

// GloVe embeds a text as the SIF-weighted average of the vectors of its
// in-vocabulary words, post-processed and L2-normalised.
//
// The directory format (see shared/data/glove-6b-100d-top100k/SOURCE.md):
// words.txt has one word a line, most frequent first, line i naming row i;
// vectors.f16 holds rows x dims little-endian IEEE 754 half floats,
// row-major, no header. The dimension is derived from the file sizes.
//
// SIF weights: no word counts are shipped, so p(w) is the Zipf estimate
// from the 0-based frequency rank r over a vocabulary of N words,
// p(r) = 1 / ((r+1) * H_N) with H_N the N-th harmonic number, so that p
// sums to 1. Frequent words ("the": weight about 0.01) then contribute
// little and rare content words (rank 10,000: about 0.99) almost fully.
//
// Common-component removal: averaged GloVe vectors share a large common
// direction, so raw SIF averages of unrelated texts have cosines around
// 0.8 and near-duplicates barely stand out (0.99 vs 0.9 within a topic).
// SIF removes the first principal component of the corpus' sentence
// vectors, but the server sees one text at a time, so instead the
// vocabulary itself is post-processed as in "All-but-the-Top" (Mu and
// Viswanath 2018): the mean word vector and the top Components principal
// directions of the centred word vectors are removed. Both are linear, so
// they are applied to the weighted sum. On the demo corpus this spreads
// cosines to about 0.25 across topics and 0.65 within a topic, with
// near-duplicates still above 0.95.
//
// Out-of-vocabulary words are skipped. A text with no known word falls
// back to the Hash embedding of the same dimension, so it still gets a
// deterministic unit vector (one that is unrelated to the GloVe space).
type GloVe struct {
	dims     int
	index    map[string]int32 // word -> row
	halves   []uint16         // rows*dims half floats, decoded on use
	weights  []float32        // SIF weight per row
	fallback *Hash
	mean     []float64   // mean word vector, or nil
	dirs     [][]float64 // unit principal directions to project out
}

// GloVeOptions tunes LoadGloVeWith.
type GloVeOptions struct {
	// Components is the number of principal directions removed after
	// centring; 0 with RawSIF false still removes the mean.
	Components int
	// RawSIF disables the post-processing entirely (plain SIF average).
	RawSIF bool
}

// DefaultGloVeOptions removes the mean and one principal direction, the
// dims/100 rule of thumb of All-but-the-Top for 100-dimensional vectors.
var DefaultGloVeOptions = GloVeOptions{Components: 1}

// LoadGloVe reads words.txt and vectors.f16 from dir with
// DefaultGloVeOptions.
func LoadGloVe(dir string) (*GloVe, error) {
	return LoadGloVeWith(dir, DefaultGloVeOptions)
}

// LoadGloVeWith reads words.txt and vectors.f16 from dir.
func LoadGloVeWith(dir string, opts GloVeOptions) (*GloVe, error) {
	if dir == "" {
		return nil, fmt.Errorf("embed: glove mode needs a directory with words.txt and vectors.f16")
	}
	words, err := readWords(filepath.Join(dir, "words.txt"))
	if err != nil {
		return nil, err
	}
	raw, err := os.ReadFile(filepath.Join(dir, "vectors.f16"))
	if err != nil {
		return nil, fmt.Errorf("embed: %w", err)
	}
	rows := len(words)
	if rows == 0 {
		return nil, fmt.Errorf("embed: %s/words.txt is empty", dir)
	}
	if len(raw) == 0 || len(raw)%(2*rows) != 0 {
		return nil, fmt.Errorf("embed: vectors.f16 has %d bytes, not a multiple of 2 bytes x %d words", len(raw), rows)
	}
	dims := len(raw) / (2 * rows)
	halves := make([]uint16, len(raw)/2)
	for i := range halves {
		halves[i] = binary.LittleEndian.Uint16(raw[2*i:])
	}
	return newGloVe(words, halves, dims, opts)
}

// newGloVe builds the embedder from rank-ordered words and their halves.
func newGloVe(words []string, halves []uint16, dims int, opts GloVeOptions) (*GloVe, error) {
	if opts.Components < 0 || opts.Components > dims {
		return nil, fmt.Errorf("embed: glove components %d out of range 0..%d", opts.Components, dims)
	}
	fallback, err := NewHash(dims)
	if err != nil {
		return nil, err
	}
	g := &GloVe{
		dims:     dims,
		index:    make(map[string]int32, len(words)),
		halves:   halves,
		weights:  zipfSIFWeights(len(words)),
		fallback: fallback,
	}
	for i, w := range words {
		// Keep the first (most frequent) row if a word repeats.
		if _, dup := g.index[w]; !dup && w != "" {
			g.index[w] = int32(i)
		}
	}
	if !opts.RawSIF {
		g.mean, g.dirs = principalDirections(halves, dims, opts.Components)
	}
	return g, nil
}

// zipfSIFWeights returns a/(a+p(r)) for ranks 0..n-1 with the Zipf p(r).
func zipfSIFWeights(n int) []float32 {
	var harmonic float64
	for r := 1; r <= n; r++ {
		harmonic += 1 / float64(r)
	}
	w := make([]float32, n)
	for r := range w {
		p := 1 / (float64(r+1) * harmonic)
		w[r] = float32(SIFA / (SIFA + p))
	}
	return w
}

func readWords(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("embed: %w", err)
	}
	defer f.Close()
	var words []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		words = append(words, sc.Text())
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("embed: reading %s: %w", path, err)
	}
	return words, nil
}

// Dims implements Embedder.
func (g *GloVe) Dims() int { return g.dims }

// Mode implements Embedder.
func (g *GloVe) Mode() string { return ModeGloVe }

// Vocabulary reports the number of distinct words that have a vector.
func (g *GloVe) Vocabulary() int { return len(g.index) }

// Known reports whether word (already lower-cased) has a vector.
func (g *GloVe) Known(word string) bool {
	_, ok := g.index[word]
	return ok
}

// Encode implements Embedder.
func (g *GloVe) Encode(ctx context.Context, texts []string) ([][]float32, error) {
	return encodeEach(ctx, texts, g.Embed)
}

// Embed returns the unit vector of text.
func (g *GloVe) Embed(text string) []float32 {
	sum := make([]float64, g.dims)
	found := false
	var weights float64
	for _, w := range Tokenize(text) {
		row, ok := g.index[w]
		if !ok {
			continue
		}
		found = true
		weight := float64(g.weights[row])
		weights += weight
		vec := g.halves[int(row)*g.dims : (int(row)+1)*g.dims]
		for i, h := range vec {
			sum[i] += weight * float64(float16.Frombits(h).Float32())
		}
	}
	if !found {
		return g.fallback.Embed(text)
	}
	// Centre each word vector (sum of w*(x-mean)) and project out the
	// common directions. The mean and the sum differ only by a positive
	// factor, which normalisation removes.
	for i, m := range g.mean {
		sum[i] -= weights * m
	}
	projectOut(sum, g.dirs)
	out, ok := normalize(sum)
	if !ok {
		return g.fallback.Embed(text)
	}
	return out
}
