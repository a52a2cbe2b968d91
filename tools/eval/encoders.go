package main

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/x448/float16"
)

// The evaluation runs on three encoders, since a result that holds on one
// only is not a result: the embedder's glove mode (GloVe-SIF, computed
// here); Universal Sentence Encoder Lite, whose vectors for every text the
// evaluation embeds are stored in <data>/use-lite-512 (SOURCE.md there:
// rows of float16, looked up by the SHA-256 of the exact text); and
// all-MiniLM-L6-v2, the embedder's neural mode, whose vectors are computed
// once per machine into a cache outside the repository (vectorcache.go).
const (
	encGloVe  = "glove"
	encUSE    = "use-lite"
	encMiniLM = "minilm"
)

var encoderNames = []string{encGloVe, encUSE, encMiniLM}

// encoderTitle is how the documents name an encoder.
func encoderTitle(enc string) string {
	switch enc {
	case encUSE:
		return "USE-Lite (neural, 512-d)"
	case encMiniLM:
		return "all-MiniLM-L6-v2 (neural, 384-d)"
	}
	return "GloVe-SIF (100-d)"
}

// parseEncoders reads the -encoders flag: a comma-separated subset of encoderNames.
func parseEncoders(s string) ([]string, error) {
	var out []string
	for _, e := range strings.Split(s, ",") {
		e = strings.TrimSpace(e)
		if !slices.Contains(encoderNames, e) {
			return nil, fmt.Errorf("-encoders: unknown encoder %q (allowed: %s)", e, strings.Join(encoderNames, ", "))
		}
		out = append(out, e)
	}
	return out, nil
}

// storedVectors is a table of precomputed sentence vectors keyed by the
// SHA-256 of the text. A text without a row is an error, never a fallback
// to another encoder: the tables would silently mix two geometries.
type storedVectors struct {
	dir  string
	dim  int
	row  map[[32]byte]int
	data []float32 // rows x dim, re-normalised to unit length
}

// useLiteDim is the width of the USE-Lite vectors.
const useLiteDim = 512

func loadStoredVectors(dir string, dim int) (*storedVectors, error) {
	f, err := os.Open(filepath.Join(dir, "keys.txt"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	s := &storedVectors{dir: dir, dim: dim, row: map[[32]byte]int{}}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var k [32]byte
		if n, err := hex.Decode(k[:], []byte(strings.TrimSpace(sc.Text()))); err != nil || n != 32 {
			return nil, fmt.Errorf("%s/keys.txt line %d: not a SHA-256 in hex", dir, len(s.row)+1)
		}
		s.row[k] = len(s.row)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	raw, err := os.ReadFile(filepath.Join(dir, "vectors.f16"))
	if err != nil {
		return nil, err
	}
	if len(raw) != 2*dim*len(s.row) {
		return nil, fmt.Errorf("%s/vectors.f16: %d bytes, want %d rows x %d float16 = %d", dir, len(raw), len(s.row), dim, 2*dim*len(s.row))
	}
	s.data = make([]float32, dim*len(s.row))
	for i := range s.data {
		s.data[i] = float16.Frombits(binary.LittleEndian.Uint16(raw[2*i:])).Float32()
	}
	for r := range len(s.row) {
		v := s.data[r*dim : (r+1)*dim]
		var n float64
		for _, x := range v {
			n += float64(x) * float64(x)
		}
		if n == 0 {
			return nil, fmt.Errorf("%s: row %d is zero", dir, r)
		}
		inv := float32(1 / math.Sqrt(n))
		for j := range v {
			v[j] *= inv
		}
	}
	return s, nil
}

// vector returns the stored vector of text, or an error naming the text.
func (s *storedVectors) vector(text string) ([]float32, error) {
	r, ok := s.row[sha256.Sum256([]byte(text))]
	if !ok {
		return nil, fmt.Errorf("%s has no vector for the text %q (sha256 %x): the evaluation embeds a text the stored vectors "+
			"do not cover; regenerate them (see SOURCE.md there)", s.dir, clipText(text, 60), sha256.Sum256([]byte(text)))
	}
	return s.data[r*s.dim : (r+1)*s.dim], nil
}

func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
