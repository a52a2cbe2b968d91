// Package embed turns text into fixed-length, L2-normalised float32 vectors
// on the CPU, with no GPU and no model download, so that diverse-select can
// be demonstrated and evaluated anywhere.
//
// Three embedders are provided:
//
//   - Hash: signed feature hashing of lower-cased word unigrams and bigrams.
//     Needs no data files; near-duplicate texts get near-identical vectors,
//     which is exactly what a diversity selector has to cope with.
//   - GloVe: a SIF-weighted average of pre-trained word vectors read from a
//     words.txt + vectors.f16 directory, which also captures paraphrases.
//   - Neural: all-MiniLM-L6-v2, the model of Weaviate's own
//     text2vec-transformers image, run by a Python worker process from the
//     project's virtual environment (StartNeural).
//
// All are deterministic and safe for concurrent use. NewHandler serves any
// Embedder over the HTTP inference protocol of Weaviate's
// text2vec-transformers module (see docs/embedder.md).
package embed

import (
	"context"
	"fmt"
	"math"
)

// Embedder maps texts to unit-length vectors of Dims() values. Its Encode
// has segment.Encoder's shape, so an Embedder serves segmentation as it is.
// Implementations must be safe for concurrent use.
type Embedder interface {
	// Encode returns, in order, one new slice of length Dims() with L2 norm
	// 1 per text, or the error that stopped it (the neural worker's).
	Encode(ctx context.Context, texts []string) ([][]float32, error)
	// Dims is the length of every vector Encode returns.
	Dims() int
	// Mode names the embedding method ("hash", "glove" or "neural").
	Mode() string
}

// encodeEach is Encode for an embedder whose one-text Embed cannot fail.
func encodeEach(ctx context.Context, texts []string, embed func(string) []float32) ([][]float32, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = embed(t)
	}
	return out, nil
}

// Mode names accepted by New.
const (
	ModeHash  = "hash"
	ModeGloVe = "glove"
)

// DefaultHashDims is the default vector length of the hash embedder.
const DefaultHashDims = 256

// New builds the embedder for mode. dims is used by the hash mode only;
// gloveDir is used by the glove mode only, whose dimension comes from the
// files.
func New(mode string, dims int, gloveDir string) (Embedder, error) {
	switch mode {
	case ModeHash:
		return NewHash(dims)
	case ModeGloVe:
		return LoadGloVe(gloveDir)
	case ModeNeural:
		return nil, fmt.Errorf("embed: mode %q runs a worker process: use StartNeural", mode)
	default:
		return nil, fmt.Errorf("embed: unknown mode %q (want %q, %q or %q)", mode, ModeHash, ModeGloVe, ModeNeural)
	}
}

// normalize scales v to unit L2 norm and converts it to float32. It reports
// false when v is zero (or not finite) and cannot be normalised.
func normalize(v []float64) ([]float32, bool) {
	var ss float64
	for _, x := range v {
		ss += x * x
	}
	norm := math.Sqrt(ss)
	if norm == 0 || math.IsInf(norm, 0) || math.IsNaN(norm) {
		return nil, false
	}
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(x / norm)
	}
	return out, true
}
