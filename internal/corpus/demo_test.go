package corpus

import (
	"net/url"
	"sort"
	"strings"
	"testing"

	"github.com/diverse-select/diverse-select/cmd/embedder/embed"
	"github.com/diverse-select/diverse-select/internal/vecmath"
)

func byID(t *testing.T) map[string]Chunk {
	t.Helper()
	m := map[string]Chunk{}
	for _, c := range Chunks() {
		if _, dup := m[c.ID]; dup {
			t.Fatalf("duplicate id %q", c.ID)
		}
		m[c.ID] = c
	}
	return m
}

func TestChunkFields(t *testing.T) {
	chunks := Chunks()
	if len(chunks) < 180 || len(chunks) > 220 {
		t.Errorf("%d chunks, want about 200", len(chunks))
	}
	perTopic := map[string]int{}
	for _, c := range chunks {
		perTopic[c.Topic]++
		words := len(embed.Tokenize(c.Body))
		if words < 40 || words > 120 {
			t.Errorf("%s: %d words, want 40..120", c.ID, words)
		}
		if c.Title == "" || c.Facet == "" || c.Topic == "" || !strings.HasPrefix(c.ID, c.Topic+"-") {
			t.Errorf("%s: missing title, facet or topic", c.ID)
		}
		if u, err := url.Parse(c.Source); err != nil || u.Scheme != "https" || !strings.HasPrefix(u.Host, "example-") {
			t.Errorf("%s: source %q is not an https://example-... URL", c.ID, c.Source)
		}
		switch c.Kind {
		case KindOriginal, KindNearDuplicate:
			if c.ParaphraseOf != "" {
				t.Errorf("%s: %s with paraphraseOf", c.ID, c.Kind)
			}
		case KindParaphrase:
			if c.ParaphraseOf == "" || c.DupGroup != "" {
				t.Errorf("%s: paraphrase needs paraphraseOf and no dupGroup", c.ID)
			}
		default:
			t.Errorf("%s: kind %q", c.ID, c.Kind)
		}
		if c.Kind == KindNearDuplicate && c.DupGroup == "" {
			t.Errorf("%s: near-duplicate without dupGroup", c.ID)
		}
	}
	if len(perTopic) != 5 {
		t.Errorf("topics %v, want 5", perTopic)
	}
	for topic, n := range perTopic {
		if n < 30 {
			t.Errorf("topic %s has only %d chunks", topic, n)
		}
	}
}

// TestPlantedDuplicateGroups checks that each topic has 2-3 planted groups,
// each an original plus 2 or more copies of the same facet whose text is
// nearly identical (word-set Jaccard >= 0.75, hash-embedding cosine >=
// 0.8), and that paraphrases point at an original of the same facet.
func TestPlantedDuplicateGroups(t *testing.T) {
	ids := byID(t)
	groups := map[string][]Chunk{}
	for _, c := range Chunks() {
		if c.DupGroup != "" {
			groups[c.DupGroup] = append(groups[c.DupGroup], c)
		}
	}
	perTopic := map[string]int{}
	h, _ := embed.NewHash(embed.DefaultHashDims)
	for name, members := range groups {
		var originals []Chunk
		for _, m := range members {
			if m.Kind == KindOriginal {
				originals = append(originals, m)
			}
		}
		if len(originals) != 1 || len(members) < 3 {
			t.Errorf("group %s: %d originals, %d members; want 1 original and >= 2 copies", name, len(originals), len(members))
			continue
		}
		orig := originals[0]
		perTopic[orig.Topic]++
		if !strings.HasPrefix(name, orig.Topic+"/") {
			t.Errorf("group %s: name does not start with topic %s", name, orig.Topic)
		}
		for _, m := range members {
			if m.Topic != orig.Topic || m.Facet != orig.Facet {
				t.Errorf("group %s: %s has topic/facet %s/%s, original %s/%s", name, m.ID, m.Topic, m.Facet, orig.Topic, orig.Facet)
			}
			if m.ID == orig.ID {
				continue
			}
			if m.Body == orig.Body {
				t.Errorf("group %s: %s is an exact copy, want tiny edits", name, m.ID)
			}
			if j := jaccard(orig.Body, m.Body); j < 0.75 {
				t.Errorf("group %s: %s word Jaccard %.2f < 0.75", name, m.ID, j)
			}
			if c := vecmath.Cosine(h.Embed(orig.Body), h.Embed(m.Body)); c < 0.8 {
				t.Errorf("group %s: %s hash cosine %.2f < 0.8", name, m.ID, c)
			}
		}
	}
	for topic, n := range perTopic {
		if n < 2 || n > 3 {
			t.Errorf("topic %s: %d duplicate groups, want 2-3", topic, n)
		}
	}
	if len(perTopic) != 5 {
		t.Errorf("duplicate groups in %d topics, want 5", len(perTopic))
	}
	for _, c := range ids {
		if c.Kind != KindParaphrase {
			continue
		}
		of, ok := ids[c.ParaphraseOf]
		if !ok || of.Kind != KindOriginal || of.Facet != c.Facet {
			t.Errorf("%s: paraphraseOf %q is not an original of facet %s", c.ID, c.ParaphraseOf, c.Facet)
		}
		// A paraphrase is reworded, not copied.
		if j := jaccard(of.Body, c.Body); j > 0.5 {
			t.Errorf("%s: Jaccard %.2f with %s, too close for a paraphrase", c.ID, j, of.ID)
		}
	}
}

func TestQueries(t *testing.T) {
	ids := byID(t)
	queries := Queries()
	if len(queries) < 3 || len(queries) > 5 {
		t.Errorf("%d queries, want 3-5", len(queries))
	}
	for _, q := range queries {
		if q.ID == "" || q.Text == "" || len(q.Facets) < 3 {
			t.Errorf("query %q: needs id, text and >= 3 facets", q.ID)
		}
		seen := map[string]bool{}
		for _, f := range q.Facets {
			if seen[f.Facet] {
				t.Errorf("%s: facet %s listed twice", q.ID, f.Facet)
			}
			seen[f.Facet] = true
			if len(f.ChunkIDs) == 0 {
				t.Errorf("%s: facet %s has no chunks", q.ID, f.Facet)
			}
			for _, id := range f.ChunkIDs {
				c, ok := ids[id]
				if !ok {
					t.Errorf("%s: unknown chunk %s", q.ID, id)
				} else if c.Topic != q.Topic || c.Facet != f.Facet {
					t.Errorf("%s: chunk %s is %s/%s, listed under %s/%s", q.ID, id, c.Topic, c.Facet, q.Topic, f.Facet)
				}
			}
			// The list is complete: every chunk of that topic and facet.
			var want []string
			for id, c := range ids {
				if c.Topic == q.Topic && c.Facet == f.Facet {
					want = append(want, id)
				}
			}
			sort.Strings(want)
			if strings.Join(want, ",") != strings.Join(f.ChunkIDs, ",") {
				t.Errorf("%s: facet %s lists %v, want %v", q.ID, f.Facet, f.ChunkIDs, want)
			}
		}
	}
}

func TestParseChunksErrors(t *testing.T) {
	tests := []struct {
		name, in string
		wantErr  bool
	}{
		{"blank lines skipped", "\n{\"id\":\"a\"}\n\n", false},
		{"unknown field", `{"id":"a","bogus":1}`, true},
		{"broken json", `{"id":`, true},
	}
	for _, tt := range tests {
		if _, err := parseChunks([]byte(tt.in)); (err != nil) != tt.wantErr {
			t.Errorf("%s: err = %v, wantErr %v", tt.name, err, tt.wantErr)
		}
	}
}

func jaccard(a, b string) float64 {
	set := func(s string) map[string]bool {
		m := map[string]bool{}
		for _, w := range embed.Tokenize(s) {
			m[w] = true
		}
		return m
	}
	sa, sb := set(a), set(b)
	inter := 0
	for w := range sa {
		if sb[w] {
			inter++
		}
	}
	return float64(inter) / float64(len(sa)+len(sb)-inter)
}
