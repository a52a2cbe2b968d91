package wikiseg

import (
	"reflect"
	"testing"
)

func TestPairsAndDocuments(t *testing.T) {
	ps := []Paragraph{
		{Title: "A", Text: "A one. A two.", Sentences: []string{"A one.", "A two."}},
		{Title: "B", Text: "B one.", Sentences: []string{"B one."}},
		{Title: "C", Text: "C one. C two.", Sentences: []string{"C one.", "C two."}},
	}
	want := []Pair{
		{"A one.", "A two.", true}, {"A two.", "B one.", false},
		{"B one.", "C one.", false},
		{"C one.", "C two.", true},
	}
	if got := Pairs(ps); !reflect.DeepEqual(got, want) {
		t.Errorf("Pairs = %v, want %v", got, want)
	}
	docs := Documents(ps, 2)
	if len(docs) != 1 || docs[0].Text != "A one. A two. B one." || !reflect.DeepEqual(docs[0].Boundaries, []int{14}) {
		t.Errorf("Documents = %+v", docs)
	}
	for _, tc := range []struct {
		text    string
		offsets []int
		pos     []int
		n       int
	}{
		{"A one. A two. B one.", []int{14}, []int{4}, 6},
		{"  a  b ", []int{0, 2, 3, 5, 7}, []int{0, 0, 1, 1, 2}, 2},
		{"", nil, nil, 0},
	} {
		if pos, n := Words(tc.text, tc.offsets); !reflect.DeepEqual(pos, tc.pos) || n != tc.n {
			t.Errorf("Words(%q, %v) = %v, %d; want %v, %d", tc.text, tc.offsets, pos, n, tc.pos, tc.n)
		}
	}
}

func TestSplitOf(t *testing.T) {
	counts := map[Split]int{}
	for i := 0; i < 1000; i++ {
		s := SplitOf(string(rune('a'+i%26)) + string(rune('A'+i/26)))
		if SplitOf(string(rune('a'+i%26))+string(rune('A'+i/26))) != s {
			t.Fatal("SplitOf is not deterministic")
		}
		counts[s]++
	}
	// 3/5, 1/5, 1/5 of the titles, within a loose margin
	if counts[Train] < 500 || counts[Validation] < 130 || counts[HeldOut] < 130 {
		t.Errorf("split sizes %v", counts)
	}
}
