package text

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/kljensen/snowball/english"
)

// TestStem: the cached stem is the stemmer's, the first time and after,
// for words of every length; the cache stays within its bound however many
// distinct words pass; concurrent callers agree (run with -race).
func TestStem(t *testing.T) {
	words := []string{"running", "runs", "ran", "generalizations", "happiness", "a", "ab",
		"caféteria", "東京", "x" + string(make([]byte, maxCachedWord)), "abcdefghijklmnopqrstuvwxyzabcdefghijkling"}
	for range 3 {
		for _, w := range words {
			if got, want := Stem(w), english.Stem(w, true); got != want {
				t.Fatalf("Stem(%q) = %q, want %q", w, got, want)
			}
		}
	}

	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 3 * stemShards * stemsPerShard {
				w := fmt.Sprintf("word%dings", (i*7+g)%(5*stemShards*stemsPerShard))
				if got, want := Stem(w), english.Stem(w, true); got != want {
					t.Errorf("Stem(%q) = %q, want %q", w, got, want)
					return
				}
			}
		}()
	}
	wg.Wait()
	for i := range stems {
		sh := &stems[i]
		sh.mu.Lock()
		n := len(sh.cur) + len(sh.old)
		sh.mu.Unlock()
		if n > 2*stemsPerShard {
			t.Errorf("shard %d holds %d words, more than %d", i, n, 2*stemsPerShard)
		}
	}
}

func BenchmarkStem(b *testing.B) {
	words := []string{"generalizations", "running", "happiness", "selection", "retrieval", "coverage"}
	b.Run("cached", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			Stem(words[i%len(words)])
		}
	})
	b.Run("stemmer", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			english.Stem(words[i%len(words)], true)
		}
	})
}

// TestStemKeepsNoText: the cache keeps no reference into the text a word
// was cut from, for a word the stemmer returns as it is ("ab") and one it
// changes.
func TestStemKeepsNoText(t *testing.T) {
	text := strings.Repeat("z", 1<<16) + " qj qjings"
	for _, w := range []string{text[len(text)-9 : len(text)-7], text[len(text)-6:]} {
		Stem(w)
		sh := &stems[TermHash(w)%stemShards]
		sh.mu.Lock()
		s, ok := sh.cur[w]
		sh.mu.Unlock()
		if !ok {
			t.Fatalf("%q not cached", w)
		}
		lo, hi := uintptr(unsafe.Pointer(unsafe.StringData(text))), uintptr(unsafe.Pointer(unsafe.StringData(text)))+uintptr(len(text))
		if p := uintptr(unsafe.Pointer(unsafe.StringData(s))); p >= lo && p < hi {
			t.Errorf("the stem of %q points into the text", w)
		}
	}
}
