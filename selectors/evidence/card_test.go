package evidence

import (
	"slices"
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
	terms := make([][]string, len(pool))
	for i, p := range pool {
		terms[i] = a.Terms(nil, p)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := NewQuery(a.Terms(nil, tt.query), terms)
			c := q.Card(Analyse(pool[tt.chunk], a), tt.opts)
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
	q := NewQuery(a.Terms(nil, "Where was the singer born?"), [][]string{a.Terms(nil, chunk)})
	if got := q.Card(Analyse(chunk, a), Options{Sentences: 1}).Text; got != "Its singer, Ann Lowe, was born in Oslo." {
		t.Fatalf("before expansion: %q", got)
	}
	q2 := NewQuery(a.Terms(nil, "When did Ann Lowe record her album?"), [][]string{a.Terms(nil, chunk)})
	q2.Expand(a.Terms(nil, "band formed 1998"), 1)
	if got := q2.Card(Analyse(chunk, a), Options{Sentences: 1}).Text; got != "The band formed in Leeds in 1998." {
		t.Fatalf("after expansion with bridge terms: %q", got)
	}
}

func TestEmptyChunk(t *testing.T) {
	q := NewQuery([]string{"x"}, nil)
	if c := q.Card(Analyse("  ", nil), Defaults); c.Text != "" || len(c.Sentences) != 0 {
		t.Fatalf("card of blank chunk = %+v", c)
	}
}
