package text

import (
	"strings"
	"sync"

	"github.com/kljensen/snowball/english"
)

// Stem returns the Snowball (Porter2) English stem of a lower-case word,
// from a cache the whole process shares: the stemmer takes about 2 us a
// word and the cache 50 ns (BenchmarkStem), and the chunks of one corpus,
// selected query after query, repeat the same words (on the evaluation's
// pools stemming took 60% of a selection before the cache).
func Stem(w string) string {
	if len(w) > maxCachedWord {
		return english.Stem(w, true)
	}
	sh := &stems[TermHash(w)%stemShards]
	if s, ok := sh.get(w); ok {
		return s
	}
	// Both cloned: w may be a substring of a large text, and the stemmer
	// returns a short word as it is, so s may be one too.
	s := strings.Clone(english.Stem(w, true))
	sh.put(strings.Clone(w), s)
	return s
}

// The cache's bounds: at most 2 x stemShards x stemsPerShard words (two
// generations of 32768, a few MiB) of at most maxCachedWord bytes, whatever
// the texts hold. Longer words are rare and are stemmed each time.
const (
	stemShards    = 16
	stemsPerShard = 2048
	maxCachedWord = 32
)

var stems [stemShards]stemShard

// stemShard holds two generations: a word is looked up in the current one,
// then in the previous one (and brought back); when the current one is full
// it becomes the previous one and the oldest words are dropped. Words in
// use stay, and memory stays bounded.
type stemShard struct {
	mu       sync.Mutex
	cur, old map[string]string
}

func (sh *stemShard) get(w string) (string, bool) {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if s, ok := sh.cur[w]; ok {
		return s, true
	}
	s, ok := sh.old[w]
	if ok {
		sh.add(strings.Clone(w), s) // w may be a substring of a large text
	}
	return s, ok
}

func (sh *stemShard) put(w, s string) {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	sh.add(w, s)
}

// add inserts under the lock, turning a full generation over first.
func (sh *stemShard) add(w, s string) {
	if len(sh.cur) >= stemsPerShard {
		sh.old, sh.cur = sh.cur, nil
	}
	if sh.cur == nil {
		sh.cur = make(map[string]string)
	}
	sh.cur[w] = s
}
