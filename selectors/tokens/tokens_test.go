package tokens

import (
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCounts(t *testing.T) {
	// BPE values checked against OpenAI's published examples: "tiktoken is
	// great!" is [83, 1609, 5963, 374, 2294, 0] in cl100k_base, the pangram
	// is 10 tokens in both encodings. The rest were run through the encoder.
	tests := []struct {
		counter, text string
		want          int
	}{
		{CL100K, "", 1},
		{CL100K, "hello world", 2},
		{CL100K, "Hello, world!", 4},
		{CL100K, "tiktoken is great!", 6},
		{CL100K, "The quick brown fox jumps over the lazy dog.", 10},
		{CL100K, "<|endoftext|>", 7}, // counted as ordinary text
		{CL100K, "東京タワー", 7},
		{O200K, "", 1},
		{O200K, "hello world", 2},
		{O200K, "tiktoken is great!", 6},
		{O200K, "東京タワー", 4},
		{Words, "", 1},
		{Words, "one", 2},                     // ceil(4/3)
		{Words, "one two three", 4},           // 3 * 4/3
		{Words, "  one\ttwo\nthree four ", 6}, // ceil(16/3)
		{Chars, "", 1},
		{Chars, "abc", 1},
		{Chars, "abcde", 2},
		{Chars, "größe€", 2}, // 6 characters, 10 bytes: ceil(6/4)
	}
	for _, tc := range tests {
		t.Run(tc.counter+"/"+tc.text, func(t *testing.T) {
			c, err := New(tc.counter)
			require.NoError(t, err)
			assert.Equal(t, tc.want, c.Count(tc.text))
		})
	}
}

func TestNew(t *testing.T) {
	c, err := New("")
	require.NoError(t, err)
	def, _ := New(Default)
	assert.Same(t, def, c, "empty name is the default, and encoders are loaded once")
	assert.Equal(t, []string{"cl100k_base", "o200k_base", "words", "chars"}, Names())

	_, err = New("gpt2")
	require.Error(t, err)
	for _, n := range Names() {
		assert.Contains(t, err.Error(), n, "the error names every allowed value")
	}
}

// Segmenting must not change the count of natural text: compare with one
// unsegmented encoding of the whole text.
func TestSegmentedCountIsExact(t *testing.T) {
	texts := map[string]string{
		"english": strings.Repeat("The patient's statins (40 mg/day) didn't cause side-effects; don't   worry.\n\n", 200),
		"cjk":     strings.Repeat("東京タワーは東京都港区にある電波塔です。高さは333メートル、", 150),
		"code":    strings.Repeat("func f(x int) int {\n\treturn x*2 // double\n}\n", 200),
		"mixed":   strings.Repeat("HTTPServer v2.0 — naïve café; URLs like https://example.com/a/b?x=1 ", 150),
	}
	for _, name := range []string{CL100K, O200K} {
		c, err := New(name)
		require.NoError(t, err)
		enc := c.(*bpeCounter).enc
		for kind, text := range texts {
			require.Greater(t, len(text), 3*maxSegment, "texts must span several segments")
			assert.Equal(t, len(enc.EncodeOrdinary(text)), c.Count(text), "%s %s", name, kind)
		}
	}
}

func TestSegmentsCoverText(t *testing.T) {
	for _, text := range []string{"", "a", strings.Repeat("ab ", 5000), strings.Repeat("x", 9000)} {
		var b strings.Builder
		for seg := range segments(text) {
			assert.LessOrEqual(t, len(seg), maxSegment+4)
			b.WriteString(seg)
		}
		assert.Equal(t, text, b.String())
	}
}

// A long run without boundaries is cut into 8-byte segments, so it costs
// linear time (a quadratic merge would run past the test timeout; no timed
// assertion: the machine may be loaded).
func TestPathologicalRunsAreSegmented(t *testing.T) {
	c, err := New(CL100K)
	require.NoError(t, err)
	for _, text := range []string{strings.Repeat("a", 200_000), strings.Repeat(" ", 200_000)} {
		assert.Greater(t, c.Count(text), 0)
	}
	// "aaaaaaaa" is one cl100k token and segments are multiples of 8 bytes.
	assert.Equal(t, 200_000/8, c.Count(strings.Repeat("a", 200_000)))
}

// Run with -race: the shared encoders are used from many goroutines.
func TestBPEConcurrent(t *testing.T) {
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, name := range []string{CL100K, O200K} {
				c, err := New(name)
				if !assert.NoError(t, err) {
					return
				}
				for i := 0; i < 20; i++ {
					assert.Equal(t, 2, c.Count("hello world"))
				}
			}
		}()
	}
	wg.Wait()
}

func BenchmarkCount(b *testing.B) {
	text := strings.Repeat("The quick brown fox jumps over the lazy dog. ", 50)
	for _, name := range Names() {
		c, _ := New(name)
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for i := 0; i < b.N; i++ {
				c.Count(text)
			}
		})
	}
}
