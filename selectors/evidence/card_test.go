package evidence

import (
	"slices"
	"strings"
	"testing"

	"github.com/diverse-select/diverse-select/selectors/text"
)

func TestCard(t *testing.T) {
	pool := []string{
		"Statins lower LDL cholesterol. Muscle pain is the most common side effect. Doctors check liver enzymes.",
		"Exercise lowers blood pressure. Walking daily helps.",
		"Cholesterol is a lipid. The liver makes most of it.",
	}
	tests := []struct {
		name  string
		query string
		chunk int
		opts  Options
		want  string
		sents []int
		cut   bool
	}{
		{"best two in text order", "statin muscle pain", 0, Options{Sentences: 2},
			"Statins lower LDL cholesterol. Muscle pain is the most common side effect.", []int{0, 1}, false},
		{"one sentence", "muscle pain", 0, Options{Sentences: 1}, "Muscle pain is the most common side effect.", []int{1}, false},
		{"rare term outweighs common one", "enzymes cholesterol", 0, Options{Sentences: 1},
			"Doctors check liver enzymes.", []int{2}, false},
		{"word limit skips a long sentence", "muscle pain liver", 0, Options{Sentences: 2, MaxWords: 7},
			"Doctors check liver enzymes.", []int{2}, false},
		{"word limit keeps fewer sentences", "statin muscle pain", 0, Options{Sentences: 2, MaxWords: 9},
			"Muscle pain is the most common side effect.", []int{1}, false},
		{"best alone too long is cut", "muscle pain", 0, Options{Sentences: 2, MaxWords: 4},
			"Muscle pain is the …", []int{1}, true},
		{"lead kept with the best", "enzymes", 0, Options{Sentences: 2, Lead: true},
			"Statins lower LDL cholesterol. Doctors check liver enzymes.", []int{0, 2}, false},
		{"no overlap keeps the lead", "quantum chromodynamics", 1, Options{Sentences: 1},
			"Exercise lowers blood pressure.", []int{0}, false},
		{"sentences without a query term are left out", "walking", 1, Options{Sentences: 2},
			"Walking daily helps.", []int{1}, false},
	}
	a := text.NewAnalyzer()
	analysed := make([]*Analysed, len(pool))
	for i, p := range pool {
		analysed[i] = Analyse(p, a, func(s string) int { return len(s) })
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := NewQuery(a.Terms(nil, tt.query), analysed)
			c := q.Card(tt.chunk, tt.opts)
			if !tt.cut && c.Tokens != len(strings.ReplaceAll(c.Text, "…", ""))-len(c.Sentences)+1 {
				t.Errorf("card tokens %d: not the sum of its sentences' counts", c.Tokens)
			}
			if c.Text != tt.want || !slices.Equal(c.Sentences, tt.sents) || c.Cut != tt.cut {
				t.Errorf("card = %q %v cut=%v, want %q %v cut=%v", c.Text, c.Sentences, c.Cut, tt.want, tt.sents, tt.cut)
			}
			if tt.opts.MaxWords > 0 && c.Words > tt.opts.MaxWords {
				t.Errorf("card has %d words, limit %d", c.Words, tt.opts.MaxWords)
			}
		})
	}
}

func TestExpandReachesTheSecondHop(t *testing.T) {
	a := text.NewAnalyzer()
	chunk := "The band formed in Leeds in 1998. Its singer, Ann Lowe, was born in Oslo."
	x := Analyse(chunk, a, nil)
	q := NewQuery(a.Terms(nil, "Where was the singer born?"), []*Analysed{x})
	if got := q.Card(0, Options{Sentences: 1}).Text; got != "Its singer, Ann Lowe, was born in Oslo." {
		t.Fatalf("before expansion: %q", got)
	}
	q2 := NewQuery(a.Terms(nil, "When did Ann Lowe record her album?"), []*Analysed{x})
	q2.Expand(a.Terms(nil, "band formed 1998"), 1)
	if got := q2.Card(0, Options{Sentences: 1}).Text; got != "The band formed in Leeds in 1998." {
		t.Fatalf("after expansion with bridge terms: %q", got)
	}
}

func TestEmptyChunk(t *testing.T) {
	q := NewQuery([]string{"x"}, []*Analysed{Analyse("  ", nil, nil)})
	if c := q.Card(0, Defaults); c.Text != "" || len(c.Sentences) != 0 {
		t.Fatalf("card of blank chunk = %+v", c)
	}
}

func TestEntities(t *testing.T) {
	got := Entities("The band formed in Leeds. Its singer, Ann Lowe, was born in Oslo in 1970.", nil)
	if want := []string{"leed", "ann", "low", "oslo"}; !slices.Equal(got, want) {
		t.Fatalf("Entities = %q, want %q", got, want)
	}
}

// TestAnalysedTerms: a card's terms from the analysis are the terms of its
// text, so the module needs no second analysis.
func TestAnalysedTerms(t *testing.T) {
	chunk := "Dr. Smith measured 3.5 mg doses. Muscle pains were reported by runners. \"Nobody quit,\" she said.\n\n- Follow-up: none."
	a := text.NewAnalyzer()
	x := Analyse(chunk, a, nil)
	for _, sents := range [][]int{{0}, {1, 2}, {0, 3}, {0, 1, 2, 3}, {}} {
		var parts []string
		for _, i := range sents {
			parts = append(parts, chunk[x.Spans[i].Start:x.Spans[i].End])
		}
		want := a.Terms([]string{}, strings.Join(parts, " "))
		if got := x.Terms([]string{}, sents); !slices.Equal(got, want) {
			t.Errorf("sentences %v: terms %q, want %q", sents, got, want)
		}
	}
	if x.Bytes() < len(chunk) {
		t.Errorf("Bytes %d is less than the text's %d", x.Bytes(), len(chunk))
	}
}

// TestAuto: cards while the budget is under 3.5 median chunks, whole chunks
// from there and without a budget; the word limit is a third of the budget.
func TestAuto(t *testing.T) {
	pool := []int{90, 100, 400, 110, 20} // median 100
	for _, tc := range []struct {
		budget int
		want   Options
		ok     bool
	}{
		{0, Options{}, false},
		{150, Options{Sentences: 4, MaxWords: 50, Lead: true}, true},
		{300, Options{Sentences: 4, MaxWords: 100, Lead: true}, true},
		{349, Options{Sentences: 4, MaxWords: 116, Lead: true}, true},
		{350, Options{}, false},
		{600, Options{}, false},
		{2, Options{Sentences: 4, MaxWords: 1, Lead: true}, true},
	} {
		got, ok := Auto(tc.budget, pool)
		if ok != tc.ok || got != tc.want {
			t.Errorf("Auto(%d): %+v %v, want %+v %v", tc.budget, got, ok, tc.want, tc.ok)
		}
	}
	if _, ok := Auto(100, nil); ok {
		t.Error("Auto on an empty pool makes cards")
	}
	if !slices.Equal(pool, []int{90, 100, 400, 110, 20}) {
		t.Error("Auto reordered its input")
	}
}
