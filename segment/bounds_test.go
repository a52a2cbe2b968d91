package segment

import (
	"context"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode"

	"github.com/diverse-select/diverse-select/selectors/tokens"
)

// hashed embeds a sentence by its first word's hash: sentences that start
// alike are alike, so the semantic methods cut somewhere.
type hashed struct{}

func (hashed) Encode(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		h := fnv.New32a()
		h.Write([]byte(strings.Fields(t + " x")[0]))
		v := make([]float32, 4)
		v[h.Sum32()%4] = 1
		v[(h.Sum32()/4)%4] += 0.5
		out[i] = v
	}
	return out, nil
}

// randomText is a seeded text of sentences of 1-60 words, some words very
// long, some sentences ended by line breaks or without a full stop, with
// non-ASCII letters.
func randomText(r *rand.Rand) string {
	vocab := []string{"the", "harbour", "tax", "Rules", "cat", "über", "naïve", "日本語", "3.14", "e.g.", "Dr.", "x", "—", "a"}
	var b strings.Builder
	for s := r.IntN(12); s >= 0; s-- {
		n := 1 + r.IntN(60)
		for w := 0; w < n; w++ {
			if w > 0 {
				b.WriteByte(' ')
			}
			switch r.IntN(40) {
			case 0:
				b.WriteString(strings.Repeat("long", 5+r.IntN(30))) // one word over any small maximum
			case 1:
				b.WriteString(strings.Repeat("ş", 3+r.IntN(20)))
			default:
				word := vocab[r.IntN(len(vocab))]
				if w == 0 {
					word = strings.Title(word) //nolint:staticcheck // ASCII and Latin words: enough here
				}
				b.WriteString(word)
			}
		}
		b.WriteString([]string{". ", "! ", "\n\n", " ", ".\n- "}[r.IntN(5)])
	}
	return b.String()
}

// checkBounds asserts what every chunker promises: chunks in order that
// cover every word of the text, each at most hi tokens by its own count,
// whole sentences unless flagged Cut (sentence methods), and under lo only
// when the whole text is, or when no cut of its units (sentences and the
// pieces of over-long ones; words for fixed) keeps every chunk within
// [lo, hi] - a merge over the maximum is no excuse while a neighbour can be
// re-split so both fit.
func checkBounds(t *testing.T, name, text string, cs []Chunk, lo, hi int, c tokens.Counter, sentences bool) {
	t.Helper()
	fail := func(format string, args ...any) {
		t.Helper()
		t.Fatalf("%s, bounds [%d, %d], text %q: %s", name, lo, hi, text, fmt.Sprintf(format, args...))
	}
	feasible := sync.OnceValue(func() bool { return partitionable(text, sentences, c, lo, hi) })
	in := make([]bool, len(text)) // bytes inside a chunk
	prev := 0
	for k, ch := range cs {
		if ch.Start < prev || ch.End <= ch.Start || ch.End > len(text) {
			fail("chunk %d [%d, %d) out of order", k, ch.Start, ch.End)
		}
		prev = ch.End
		for i := ch.Start; i < ch.End; i++ {
			in[i] = true
		}
		if got := c.Count(text[ch.Start:ch.End]); got != ch.Tokens || got > hi {
			fail("chunk %d %q: %d tokens (says %d), maximum %d", k, text[ch.Start:ch.End], got, ch.Tokens, hi)
		}
		if ch.Tokens < lo && c.Count(text) >= lo && feasible() {
			fail("chunk %d %q has %d tokens, under %d, though whole units can be cut within the bounds", k, text[ch.Start:ch.End], ch.Tokens, lo)
		}
		if sentences && !ch.Cut {
			sents := Sentences(text)
			starts, ends := map[int]bool{}, map[int]bool{}
			for _, s := range sents {
				starts[s.Start], ends[s.End] = true, true
			}
			if !starts[ch.Start] || !ends[ch.End] || ch.Sentences == 0 {
				fail("chunk %d %q is not whole sentences (%d)", k, text[ch.Start:ch.End], ch.Sentences)
			}
		}
	}
	// every word of every sentence (of the text, for fixed) is in a chunk;
	// what the splitter drops between sentences (list markers) need not be
	parts := words(text)
	if sentences {
		parts = Sentences(text)
	}
	for _, p := range parts {
		for i := p.Start; i < p.End; i++ {
			if !in[i] && !unicode.IsSpace(rune(text[i])) {
				fail("%q of %q is in no chunk", text[i:p.End], text[p.Start:p.End])
			}
		}
	}
}

// partitionable reports whether the text's units can be cut into runs each
// within [lo, hi] by its own count: the test's oracle, by exhaustive dynamic
// programming over the run ends.
func partitionable(text string, sentences bool, c tokens.Counter, lo, hi int) bool {
	spans := words(text)
	if sentences {
		spans = Sentences(text)
	}
	us := units(text, spans, c, hi)
	ok := make([]bool, len(us)+1)
	ok[0] = true
	for b := 1; b <= len(us); b++ {
		sum := 0
		for a := b - 1; a >= 0 && !ok[b]; a-- {
			sum += us[a].tokens
			if sum > 2*hi+16 { // far over: a longer run cannot come back under hi
				break
			}
			n := c.Count(text[us[a].Start:us[b-1].End])
			ok[b] = ok[a] && n >= lo && n <= hi
		}
	}
	return ok[len(us)]
}

// boundedChunkers are every method with the bounds lo and hi.
func boundedChunkers(lo, hi int, c tokens.Counter) map[string]Chunker {
	return map[string]Chunker{
		"fixed":       Fixed{Tokens: hi, MinTokens: lo, Counter: c},
		"packed":      Packed{Tokens: hi, MinTokens: lo, Counter: c},
		"sage":        SAGE{Encoder: hashed{}, Scorer: sameScorer(), Threshold: 0.5, MinTokens: lo, MaxTokens: hi, Counter: c},
		"percentile":  Percentile{Encoder: hashed{}, Percentile: 50, MinTokens: lo, MaxTokens: hi, Counter: c},
		"changepoint": ChangePoint{Encoder: hashed{}, Penalty: 0.5, MinTokens: lo, MaxTokens: hi, Counter: c},
	}
}

// TestBoundsProperty holds the bounds over 300 seeded random texts for
// every method, with the real cl100k_base tokenizer and the word counter.
func TestBoundsProperty(t *testing.T) {
	cl, err := tokens.New(tokens.CL100K)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(46, 2))
	ctx := context.Background()
	for i := 0; i < 300; i++ {
		text := randomText(r)
		hi := 8 + r.IntN(120)
		lo := r.IntN(hi/2 + 1)
		c := []tokens.Counter{cl, words4()}[i%2]
		for name, ch := range boundedChunkers(lo, hi, c) {
			cs, err := ch.Chunk(ctx, text)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			checkBounds(t, name, text, cs, lo, hi, c, name != "fixed")
		}
	}
}

// FuzzBounds holds the bounds over any text, with the word counter.
func FuzzBounds(f *testing.F) {
	f.Add("One two three. Four five six seven. Eight nine.", 2, 8)
	f.Add(strings.Repeat("long", 100)+" short. Tail.", 3, 10)
	f.Fuzz(func(t *testing.T, text string, lo, hi int) {
		hi = 4 + abs(hi)%200 // a rune can count several tokens (the word counter: 2), and the server's least is 16
		lo = abs(lo) % (hi/2 + 1)
		for name, ch := range boundedChunkers(lo, hi, words4()) {
			cs, err := ch.Chunk(context.Background(), text)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			checkBounds(t, name, text, cs, lo, hi, words4(), name != "fixed")
		}
	})
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func TestCheckBounds(t *testing.T) {
	for _, tc := range []struct {
		lo, hi int
		want   string
	}{
		{0, 1, ""},
		{64, 128, ""},
		{65, 128, "minTokens is 65; want 0..64 (at most half of maxTokens 128)"},
		{-1, 128, "minTokens is -1"},
		{0, 0, "maxTokens is 0; want at least 1"},
	} {
		err := CheckBounds(tc.lo, tc.hi)
		if (tc.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("CheckBounds(%d, %d) = %v, want %q", tc.lo, tc.hi, err, tc.want)
		}
	}
}

// TestBoundRepair: a run under the minimum whose merge on either side goes
// over the maximum takes units from a re-split neighbour so both fit; it
// stays under only when no cut of whole units keeps the bounds.
func TestBoundRepair(t *testing.T) {
	for _, tc := range []struct {
		name         string
		toks, starts []int
		lo, hi       int
		want         []int
	}{
		{"within the bounds: kept", []int{20, 20, 20}, []int{0, 1, 2}, 10, 60, []int{0, 1, 2}},
		{"the text under the minimum: one run", []int{3, 3}, []int{0, 1}, 10, 60, []int{0}},
		{"a small tail merges", []int{40, 5}, []int{0, 1}, 10, 60, []int{0}},
		{"a small first run, no run before it: the next one re-split", []int{4, 40, 20}, []int{0, 1}, 10, 60, []int{0, 2}},
		{"the run before cannot lend: the next one re-split", []int{58, 4, 20, 40}, []int{0, 1, 2}, 10, 60, []int{0, 1, 3}},
		{"no cut of whole units fits: left as it is", []int{58, 4, 58}, []int{0, 1, 2}, 10, 60, []int{0, 1, 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			count := func(a, b int) int {
				n := 0
				for _, x := range tc.toks[a:b] {
					n += x
				}
				return n
			}
			if got := bound(tc.toks, tc.starts, tc.lo, tc.hi, count, nil); !slices.Equal(got, tc.want) {
				t.Errorf("bound(%v, %v, %d, %d) = %v, want %v", tc.toks, tc.starts, tc.lo, tc.hi, got, tc.want)
			}
		})
	}
}

// TestJoinAndCut: a short sentence beside one of nearly the maximum has no
// cut of whole sentences within the bounds; the two are joined and cut once
// at a word boundary, both pieces within [lo, hi] and flagged Cut.
func TestJoinAndCut(t *testing.T) {
	long := strings.TrimSpace(strings.Repeat("word ", 94)) + "." // 95 words: 127 tokens
	for _, tc := range []struct {
		name, text string
	}{
		{"the short one first", "Cats purr softly. " + long},
		{"the short one last", long + " Cats purr softly."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := words4()
			cs, err := Packed{Tokens: 128, MinTokens: 32, Counter: c}.Chunk(context.Background(), tc.text)
			if err != nil {
				t.Fatal(err)
			}
			if len(cs) != 2 {
				t.Fatalf("chunks %q, want 2", texts(tc.text, cs))
			}
			for _, ch := range cs {
				if ch.Tokens < 32 || ch.Tokens > 128 || !ch.Cut {
					t.Errorf("chunk %q: %d tokens, cut %v; want [32, 128] and cut", tc.text[ch.Start:ch.End], ch.Tokens, ch.Cut)
				}
			}
			checkBounds(t, "packed", tc.text, cs, 32, 128, c, true)
		})
	}
}
