package embed

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"
)

// Hash is the data-free embedder: signed feature hashing (the "hashing
// trick") of word unigrams and bigrams.
//
// Each feature is hashed with 64-bit FNV-1a plus a mixing step; the low 32
// bits pick the coordinate and the top bit picks the sign. The random sign
// makes colliding features cancel on average instead of piling up, which
// keeps unrelated texts near cosine 0. A feature's weight is 1+ln(count)
// so a repeated word does not swamp the rest.
type Hash struct {
	dims int
}

// NewHash returns a hash embedder producing vectors of length dims.
func NewHash(dims int) (*Hash, error) {
	if dims <= 0 {
		return nil, fmt.Errorf("embed: hash dims must be positive, got %d", dims)
	}
	return &Hash{dims: dims}, nil
}

// Dims implements Embedder.
func (h *Hash) Dims() int { return h.dims }

// Mode implements Embedder.
func (h *Hash) Mode() string { return ModeHash }

// Encode implements Embedder.
func (h *Hash) Encode(ctx context.Context, texts []string) ([][]float32, error) {
	return encodeEach(ctx, texts, h.Embed)
}

// Embed returns the unit vector of text. Stopwords are dropped before unigrams and
// bigrams are formed (see contentWords). A text without any word, such as
// "" or "!!!", is hashed as one raw-string feature so that it still gets a
// deterministic unit vector rather than a zero vector, which cosine-based
// indexes cannot handle.
func (h *Hash) Embed(text string) []float32 {
	words := contentWords(Tokenize(text))
	counts := make(map[string]int, 2*len(words))
	for i, w := range words {
		counts[w]++
		if i > 0 {
			// A space never occurs inside a token, so a bigram key
			// cannot collide with a unigram key.
			counts[words[i-1]+" "+w]++
		}
	}
	if len(counts) == 0 {
		counts["\x00raw:"+text] = 1
	}
	v := make([]float64, h.dims)
	for feature, n := range counts {
		idx, sign := h.slot(feature)
		v[idx] += sign * (1 + math.Log(float64(n)))
	}
	out, ok := normalize(v)
	if !ok {
		// Unreachable with a positive weight per feature unless every
		// feature cancelled exactly; fall back to one deterministic axis.
		out = make([]float32, h.dims)
		idx, _ := h.slot("\x00zero")
		out[idx] = 1
	}
	return out
}

// slot maps a feature to its coordinate and sign.
func (h *Hash) slot(feature string) (int, float64) {
	f := fnv.New64a()
	f.Write([]byte(feature))
	x := mix64(f.Sum64())
	idx := int(uint32(x) % uint32(h.dims))
	if x>>63 == 1 {
		return idx, -1
	}
	return idx, 1
}

// mix64 is the splitmix64 finaliser; FNV's low bits are weak on short,
// similar keys, and the coordinate is taken from them.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}
