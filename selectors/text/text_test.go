package text

import (
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func collect(s string) []string {
	var out []string
	for tok := range Tokens(s) {
		out = append(out, tok)
	}
	return out
}

func TestTokens(t *testing.T) {
	tests := []struct {
		name, in string
		want     []string
	}{
		{"empty", "", nil},
		{"only punctuation", " ,.;!? -- ", nil},
		{"ascii", "Hello, World!", []string{"hello", "world"}},
		{"digits join letters", "42x 3.14", []string{"42x", "3", "14"}},
		{"apostrophe splits", "don't", []string{"don", "t"}},
		{"unicode upper", "Größe CAFÉ", []string{"größe", "café"}},
		{"combining mark stays in word", "cafe\u0301s", []string{"cafe\u0301s"}},
		{"cjk run", "東京タワー です", []string{"東京タワー", "です"}},
		{"invalid utf8 separates", "ab\xffcd", []string{"ab", "cd"}},
		{"trailing token", "end", []string{"end"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, collect(tc.in))
		})
	}
}

func TestTokensLowerCaseTextDoesNotAllocate(t *testing.T) {
	s := "a lower case text with several words and 123 numbers"
	allocs := testing.AllocsPerRun(100, func() {
		for range Tokens(s) {
		}
	})
	assert.Zero(t, allocs)
}

func TestTerms(t *testing.T) {
	tests := []struct {
		name, in string
		want     []string
	}{
		{"stopwords and stems", "The quick brown foxes are running", []string{"quick", "brown", "fox", "run"}},
		{"length rule in runes", "a I x 12 é éé", []string{"12", "éé"}},
		{"snowball", "generously connected connection lazy", []string{"generous", "connect", "connect", "lazi"}},
		{"all stopwords", "the of and to", nil},
	}
	an := NewAnalyzer()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, Terms(nil, tc.in))
			assert.Equal(t, tc.want, an.Terms(nil, tc.in), "cached analyzer agrees")
		})
	}
}

func TestStopwordList(t *testing.T) {
	assert.GreaterOrEqual(t, StopwordCount(), 160)
	for _, w := range []string{"the", "and", "of", "which", "yourselves"} {
		assert.True(t, IsStopword(w), w)
	}
	for _, w := range []string{"statin", "effect", "The"} {
		assert.False(t, IsStopword(w), w)
	}
}

func TestBigrams(t *testing.T) {
	assert.Equal(t, []string{"side effect", "effect statin"}, Bigrams(nil, []string{"side", "effect", "statin"}))
	assert.Empty(t, Bigrams(nil, []string{"one"}))
}

func TestNGrams(t *testing.T) {
	d := NewDict(0, 3)
	an := NewAnalyzer()
	ids := an.TermIDs(nil, d, "Side effects of statins: side effects!")
	require.Len(t, ids, 5) // side effect statin side effect
	names := func(set []int32) []string {
		var out []string
		for _, id := range set {
			out = append(out, d.String(id))
		}
		slices.Sort(out)
		return out
	}
	tests := []struct {
		maxN int
		want []string
	}{
		{1, []string{"effect", "side", "statin"}},
		{2, []string{"effect", "effect statin", "side", "side effect", "statin", "statin side"}},
		{3, []string{"effect", "effect statin", "effect statin side", "side", "side effect",
			"side effect statin", "statin", "statin side", "statin side effect"}},
	}
	for _, tc := range tests {
		set := d.NGrams(nil, ids, tc.maxN)
		assert.True(t, slices.IsSorted(set))
		assert.Equal(t, tc.want, names(set), "maxN %d", tc.maxN)
		for _, id := range set {
			assert.Equal(t, len(splitSpaces(d.String(id))), d.Order(id))
		}
	}
	// Interning is stable: the same text gives the same ids.
	again := an.TermIDs(nil, d, "side effects of statins side effects")
	assert.Equal(t, ids, again)
	_, ok := d.LookupTerm("unseen")
	assert.False(t, ok)
}

func splitSpaces(s string) []string {
	var out []string
	for tok := range Tokens(s) {
		out = append(out, tok)
	}
	return out
}

// tokensByRune is Tokens as first written, rune by rune: the reference the
// ASCII path must agree with.
func tokensByRune(s string) []string {
	var out []string
	start, lower := -1, true
	for i := 0; i <= len(s); {
		r, size := utf8.RuneError, 1
		if i < len(s) {
			r, size = utf8.DecodeRuneInString(s[i:])
		}
		inWord := i < len(s) && (unicode.IsLetter(r) || unicode.IsDigit(r) || (start >= 0 && unicode.Is(unicode.M, r)))
		switch {
		case inWord && start < 0:
			start, lower = i, true
			fallthrough
		case inWord:
			if unicode.ToLower(r) != r {
				lower = false
			}
		case start >= 0:
			tok := s[start:i]
			if !lower {
				tok = strings.ToLower(tok)
			}
			start = -1
			out = append(out, tok)
		}
		i += size
	}
	return out
}

// FuzzTerms: Tokens agrees with tokensByRune, an Analyzer's terms (from its
// cache too) with the package function's, and TermIDs with both.
func FuzzTerms(f *testing.F) {
	for _, s := range []string{"", "The quick brown fox", "ab\xffcd\u0301", "''''", "東京 タワー",
		"The QUICK brown fox's 42x", "cafe\u0301s CAFE\u0301 Ünïcode", "a\u0301 \u0301b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := collect(s), tokensByRune(s); !slices.Equal(got, want) {
			t.Fatalf("Tokens(%q) = %q, want %q", s, got, want)
		}
		a := NewAnalyzer()
		for range 2 { // the second pass reads the cache
			if got, want := a.Terms(nil, s), Terms(nil, s); !slices.Equal(got, want) {
				t.Fatalf("Analyzer.Terms(%q) = %q, want %q", s, got, want)
			}
		}
		d := NewDict(WordHint(len(s)), 3)
		ids := NewAnalyzer().TermIDs(nil, d, s)
		set := d.NGrams(nil, ids, 3)
		if !slices.IsSorted(set) {
			t.Fatal("n-gram set not sorted")
		}
		if len(Terms(nil, s)) != len(ids) {
			t.Fatal("Terms and TermIDs disagree")
		}
	})
}

// Trigrams of term ids below 2^21 use packed keys, larger ones the exact
// map; ids must stay distinct and stable across both paths.
func TestTrigramKeyPaths(t *testing.T) {
	d := NewDict(0, 3)
	big := int32(1 << triBits)
	keys := [][3]int32{{0, 1, 0}, {big, 0, 0}, {0, 0, big}, {1, 0, 0}, {0, big, 0}, {big - 1, big - 1, big - 1}}
	seen := map[int32]bool{}
	for _, k := range keys {
		id := d.Trigram(k[0], k[1], k[2])
		assert.False(t, seen[id], "%v", k)
		seen[id] = true
		assert.Equal(t, id, d.Trigram(k[0], k[1], k[2]), "stable %v", k)
		assert.Equal(t, 3, d.Order(id))
	}
	assert.Equal(t, len(keys), d.Len())
}

// TestCountTerms: CountTerms is len(Terms) on ASCII and non-ASCII texts,
// stopwords, short words, digits and words longer than the fast path's
// buffer included.
func TestCountTerms(t *testing.T) {
	for _, s := range []string{"", "a", "The Statins and YOU", "Mercury (planet)", "x1 of 42 is",
		"Antidisestablishmentarianismwordsarelong and the", "Café au lait", "naïve Ünïcode words", "it's don't",
		"  spaced\tout\nlines  "} {
		assert.Equal(t, len(Terms(nil, s)), CountTerms(s), "%q", s)
	}
}

// TestTermHash: the hash reads the length and the first, middle and last
// bytes only (terms that agree on them collide, which its filters allow
// for); TermHashes appends the hash of each term in order.
func TestTermHash(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		same bool
	}{
		{"statin", "statin", true},
		{"statin", "stbtin", true}, // only the second byte differs
		{"statin", "statins", false},
		{"statin", "ttatin", false},
		{"statin", "statim", false},
		{"statin", "staxin", false}, // the middle byte (index 3)
		{"ab", "ba", false},
		{"", "", true},
	} {
		assert.Equal(t, tc.same, TermHash(tc.a) == TermHash(tc.b), "%q and %q", tc.a, tc.b)
	}
	assert.Zero(t, TermHash(""))
	want := []uint32{7, TermHash("statin"), TermHash("muscl"), TermHash("pain"), TermHash("statin")}
	assert.Equal(t, want, TermHashes([]uint32{7}, []string{"statin", "muscl", "pain", "statin"}))
}
