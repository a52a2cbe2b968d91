package sentences

import (
	"slices"
	"testing"
)

func sentenceTexts(text string) []string {
	var out []string
	for _, s := range Sentences(text) {
		out = append(out, text[s.Start:s.End])
	}
	return out
}

func TestSentences(t *testing.T) {
	tests := []struct {
		name string
		text string
		want []string
	}{
		{"empty", "", nil},
		{"blank", "  \n ", nil},
		{"one without stop", "No final stop here", []string{"No final stop here"}},
		{"two", "Statins lower cholesterol. They can cause muscle pain.",
			[]string{"Statins lower cholesterol.", "They can cause muscle pain."}},
		{"question and exclamation", "Is it safe? Yes! Mostly.", []string{"Is it safe?", "Yes!", "Mostly."}},
		{"decimal", "The dose rose to 2.5 mg. Pain fell by 3.1%.", []string{"The dose rose to 2.5 mg.", "Pain fell by 3.1%."}},
		{"title abbreviation", "Dr. Smith met Mr. Jones. They talked.", []string{"Dr. Smith met Mr. Jones.", "They talked."}},
		{"latin abbreviation", "Use a soft tool, e.g. a brush. Then rinse.", []string{"Use a soft tool, e.g. a brush.", "Then rinse."}},
		{"dotted acronym", "He moved to the U.S. Army base. It was cold.", []string{"He moved to the U.S. Army base.", "It was cold."}},
		{"initials", "J. R. R. Tolkien wrote it. It sold well.", []string{"J. R. R. Tolkien wrote it.", "It sold well."}},
		{"lower case after stop", "The value was approx. ten units. Fine.", []string{"The value was approx. ten units.", "Fine."}},
		{"quoted question", `"Why now?" she asked. Nobody knew.`, []string{`"Why now?" she asked.`, "Nobody knew."}},
		{"closing quote after stop", `He said "stop." Then he left.`, []string{`He said "stop."`, "Then he left."}},
		{"bracket after stop", "It works (mostly.) Next it fails.", []string{"It works (mostly.)", "Next it fails."}},
		{"sentence starting with a number", "It ended in 1999. 2000 began well.", []string{"It ended in 1999.", "2000 began well."}},
		{"ellipsis", "Wait… Then go.", []string{"Wait…", "Then go."}},
		{"dash list", "Steps:\n- rinse the panel\n- dry it", []string{"Steps:", "rinse the panel", "dry it"}},
		{"numbered list", "Do this:\n1. Rinse.\n2) Dry", []string{"Do this:", "Rinse.", "Dry"}},
		{"paragraphs", "First line without stop\n\nSecond paragraph", []string{"First line without stop", "Second paragraph"}},
		{"wrapped line", "A sentence wrapped\nover two lines. Next.", []string{"A sentence wrapped\nover two lines.", "Next."}},
		{"title line", "Solar panels\nThey need cleaning.", []string{"Solar panels\nThey need cleaning."}},
		{"non-ASCII", "Ärzte raten ab. Über 40% stimmen zu.", []string{"Ärzte raten ab.", "Über 40% stimmen zu."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := sentenceTexts(tt.text); !slices.Equal(got, tt.want) {
				t.Errorf("Sentences(%q)\n got %q\nwant %q", tt.text, got, tt.want)
			}
		})
	}
}

// FuzzSentences checks the spans' invariants on any input: in order, not
// overlapping, within the text, non-empty and trimmed.
func FuzzSentences(f *testing.F) {
	for _, s := range []string{"A. B.", "e.g. x\n- y", "“Hi?” he said.", "1. 2. 3.", "\n\n", "…"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		prev := 0
		for _, s := range Sentences(text) {
			if s.Start < prev || s.End <= s.Start || s.End > len(text) {
				t.Fatalf("bad span %v after %d in %q", s, prev, text)
			}
			if a, b := trim(text, s.Start, s.End); a != s.Start || b != s.End {
				t.Fatalf("span %v not trimmed in %q", s, text)
			}
			prev = s.End
		}
	})
}
