package selectors

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestCopyGuardPairs(t *testing.T) {
	const para = "Coffee beans keep their flavour longest in an airtight container away from light and heat. " +
		"Storing coffee beans in the fridge lets them absorb moisture and the smell of other food."
	tests := []struct {
		name   string
		a, b   string
		va, vb []float32
		copy   bool
	}{
		{"same text, orthogonal vectors", para, para, []float32{1, 0}, []float32{0, 1}, true},
		{"case and punctuation only", para, "COFFEE beans keep their flavour longest, in an airtight container; away from light and heat! " +
			"Storing coffee beans in the fridge lets them absorb moisture and the smell of other food", []float32{1, 0}, []float32{0, 1}, true},
		{"sentences reordered", para, "Storing coffee beans in the fridge lets them absorb moisture and the smell of other food. " +
			"Coffee beans keep their flavour longest in an airtight container away from light and heat.", []float32{1, 0}, []float32{0, 1}, true},
		{"one added word", para, "Coffee beans also keep their flavour longest in an airtight container away from light and heat. " +
			"Storing coffee beans in the fridge lets them absorb moisture and the smell of other food.", []float32{1, 0}, []float32{0, 1}, true},
		{"an added clause", para, para[:len(para)-1] + ", as most guides point out.", []float32{1, 0}, []float32{0, 1}, true},
		{"cosine 0.95 with different texts", "alpha beta gamma", "delta epsilon zeta", []float32{1, 0}, []float32{0.95, 0.3122}, true},
		{"cosine 0.94", "alpha beta gamma", "delta epsilon zeta", []float32{1, 0}, []float32{0.94, 0.3412}, false},
		{"one word negated in a short text", "School uniforms should be banned", "School uniforms should not be banned",
			[]float32{1, 0}, []float32{0, 1}, false},
		{"a short text extended by a reason", "Animals should have rights", "Animals should have rights because they feel pain",
			[]float32{1, 0}, []float32{0, 1}, false},
		{"no text", "", "", []float32{1, 0}, []float32{0, 1}, false},
		{"the same text without words", "?! --", "?! --", []float32{1, 0}, []float32{0, 1}, false},
		{"one-word texts", "Yes.", "yes", []float32{1, 0}, []float32{0, 1}, true},
	}
	for _, tc := range tests {
		for _, given := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/word pairs given %v", tc.name, given), func(t *testing.T) {
				p := &Problem{Candidates: []Candidate{{Text: tc.a, Vector: tc.va}, {Text: tc.b, Vector: tc.vb}}}
				if given { // as a caller's cache gives them
					p.Candidates[0].WordPairs, p.Candidates[1].WordPairs = WordPairs(tc.a), WordPairs(tc.b)
				}
				g := NewCopyGuard(p)
				assert.Equal(t, tc.copy, g.CopyOf([]int{0}, 1))
				assert.Equal(t, tc.copy, g.CopyOf([]int{1}, 0), "symmetric")
				assert.False(t, g.CopyOf([]int{1}, 1), "an item is not its own copy")
			})
		}
	}
}

// TestCopyGuardReadsGivenWordPairs: the guard compares the word pairs a
// candidate comes with instead of its text's.
func TestCopyGuardReadsGivenWordPairs(t *testing.T) {
	pairs := WordPairs("coffee beans keep their flavour longest in an airtight container")
	p := &Problem{Candidates: []Candidate{{Text: "alpha beta gamma delta", WordPairs: pairs}, {Text: "epsilon zeta eta theta", WordPairs: pairs}}}
	assert.True(t, NewCopyGuard(p).CopyOf([]int{0}, 1))
	p.Candidates[1].WordPairs = nil
	assert.False(t, NewCopyGuard(p).CopyOf([]int{0}, 1), "the second text's own pairs")
}

func TestCopyGuardWithoutVectors(t *testing.T) {
	p := &Problem{Candidates: []Candidate{{Text: "a b c d"}, {Text: "a b c d"}, {Text: "e f g h"}}}
	g := NewCopyGuard(p)
	assert.True(t, g.CopyOf([]int{2, 0}, 1))
	assert.False(t, g.CopyOf([]int{0, 1}, 2))
}

func TestSingleLine(t *testing.T) {
	for _, tc := range []struct {
		text string
		one  bool
	}{
		{"", true}, {"one line", true}, {"one line\n", true}, {"one line\n \t\n", true},
		{"Title\nbody", false}, {"\nbody", false}, {"a\n\nb", false},
	} {
		assert.Equal(t, tc.one, SingleLine(tc.text), "%q", tc.text)
	}
}

func TestNormalizedTextHash(t *testing.T) {
	assert.Equal(t, NormalizedTextHash("Hello, World!"), NormalizedTextHash("  hello world "))
	assert.NotEqual(t, NormalizedTextHash("hello world"), NormalizedTextHash("helloworld"))
}

func TestWordPairs(t *testing.T) {
	assert.Equal(t, WordPairs("Größe STRASSE, 42!"), WordPairs("größe strasse 42"))
	assert.NotEqual(t, WordPairs("a b c"), WordPairs("c b a"), "word order counts within a pair")
	assert.Len(t, WordPairs("a b a b"), 2, "distinct pairs: (a b), (b a)")
	assert.Len(t, WordPairs("word"), 1)
	assert.Empty(t, WordPairs(" ,;"))
}

func TestSpentOnCopies(t *testing.T) {
	v := func(x, y float32) []float32 { return []float32{x, y} }
	p := &Problem{Candidates: []Candidate{
		{Relevance: 0.9, Tokens: 10, Vector: v(1, 0)},
		{Relevance: 0.8, Tokens: 10, Vector: v(1, 0.01)}, // a copy of 0
		{Relevance: 0.7, Tokens: 10, Vector: v(0, 1)},
		{Relevance: 0.6, Tokens: 10, Vector: v(0.01, 1)}, // a copy of 2
	}}
	sel := func(idx ...int) *Result {
		r := &Result{}
		for _, i := range idx {
			r.Items = append(r.Items, Item{Index: i, Tokens: 10})
		}
		return r
	}
	tests := []struct {
		name   string
		budget int
		k      int
		res    *Result
		want   bool
	}{
		{"only copies left", 0, 0, sel(0, 2), true},
		{"something new left", 0, 0, sel(0), false},
		{"K reached", 0, 2, sel(0, 2), false},
		{"no room in the budget", 20, 0, sel(0, 2), false},
		{"everything selected", 0, 0, sel(0, 1, 2, 3), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			q := *p
			q.Budget, q.MaxResults = tc.budget, tc.k
			if got := SpentOnCopies(&q, tc.res); got != tc.want {
				t.Errorf("SpentOnCopies = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestSharesAtLeast: the merge that stops early decides as the full count
// of common elements would, at the threshold and around it.
func TestSharesAtLeast(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	set := func(n, universe int) []uint64 {
		s := make([]uint64, 0, n)
		for range n {
			s = append(s, uint64(rng.IntN(universe)))
		}
		slices.Sort(s)
		return slices.Compact(s)
	}
	for range 5000 {
		universe := 5 + rng.IntN(200)
		a, b := set(1+rng.IntN(60), universe), set(1+rng.IntN(60), universe)
		both := 0
		for _, x := range a {
			if _, ok := slices.BinarySearch(b, x); ok {
				both++
			}
		}
		for _, share := range []float64{0, 0.3, NearCopyOverlap, 0.9, 1} {
			want := float64(both)/float64(max(len(a), len(b))) >= share
			assert.Equal(t, want, sharesAtLeast(a, b, share), "a=%v b=%v share=%v", a, b, share)
		}
	}
}

// TestSortHashes: the bucketed sort of up to 256 hashes, and slices.Sort
// above, give the sorted order, repeats included.
func TestSortHashes(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{0, 1, 2, 3, 17, 100, 255, 256, 257, 1000} {
		for _, narrow := range []bool{false, true} {
			h := make([]uint64, n)
			for i := range h {
				if h[i] = rng.Uint64(); narrow {
					h[i] >>= 60 // many repeats, all in one bucket
				}
			}
			want := slices.Clone(h)
			slices.Sort(want)
			sortHashes(h)
			assert.Equal(t, want, h, "n=%d narrow=%v", n, narrow)
		}
	}
}
