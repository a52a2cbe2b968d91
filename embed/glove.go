package embed

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
)

// SIFA is the smoothing constant a of the SIF weight a/(a+p(w))
// (Arora, Liang and Ma 2017, "A Simple but Tough-to-Beat Baseline for
// Sentence Embeddings").
const SIFA = 1e-3

// GloVe embeds a text as the SIF-weighted average of the vectors of its
// in-vocabulary words, L2-normalised.
//
// The directory format (see shared/data/glove-6b-100d-top100k/SOURCE.md):
// words.txt has one word a line, most frequent first, line i naming row i;
// vectors.f16 holds rows x dims little-endian IEEE 754 half floats,
// row-major, no header. The dimension is derived from the file sizes.
//
// No word counts are shipped, so p(w) is the Zipf estimate from the
// 0-based frequency rank r over a vocabulary of N words:
// p(r) = 1 / ((r+1) * H_N), H_N the N-th harmonic number, which sums to 1
// over the vocabulary. Frequent words ("the": weight about 0.01) then
// contribute little and rare content words (rank 10,000: about 0.99)
// almost fully. SIF's optional removal of the first principal component is
// not done: it needs statistics of the corpus being embedded, and the
// server embeds one text at a time.
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
}

// LoadGloVe reads words.txt and vectors.f16 from dir.
func LoadGloVe(dir string) (*GloVe, error) {
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
	return newGloVe(words, halves, dims)
}

// newGloVe builds the embedder from rank-ordered words and their halves.
func newGloVe(words []string, halves []uint16, dims int) (*GloVe, error) {
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

// Embed implements Embedder.
func (g *GloVe) Embed(text string) []float32 {
	sum := make([]float64, g.dims)
	found := false
	for _, w := range Tokenize(text) {
		row, ok := g.index[w]
		if !ok {
			continue
		}
		found = true
		weight := float64(g.weights[row])
		vec := g.halves[int(row)*g.dims : (int(row)+1)*g.dims]
		for i, h := range vec {
			sum[i] += weight * float64(Float16ToFloat32(h))
		}
	}
	if !found {
		return g.fallback.Embed(text)
	}
	// The mean and the sum differ only by a positive factor, which
	// normalisation removes.
	out, ok := normalize(sum)
	if !ok {
		return g.fallback.Embed(text)
	}
	return out
}
