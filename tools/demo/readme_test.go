package main

import "testing"

func TestSpliceDemoText(t *testing.T) {
	doc := "intro\n<!-- BEGIN demo -->\n```\nold\n```\n<!-- END demo -->\nafter\n"
	got, err := spliceDemoText(doc, "\nQ: new   \n  = 3 chunks\n\n")
	if err != nil {
		t.Fatal(err)
	}
	want := "intro\n<!-- BEGIN demo -->\n```\nQ: new\n  = 3 chunks\n```\n<!-- END demo -->\nafter\n"
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if _, err := spliceDemoText("no block", "x"); err == nil {
		t.Error("a file without the block is not an error")
	}
}

func TestReadmeComparison(t *testing.T) {
	a := "Q: a\n  = 6 chunks, 537 tokens, 1/8 facets, 0 near-copies     = 7 chunks, 562 tokens, 5/8 facets, 0 near-copies\n"
	b := "Q: b\n  = 6 chunks, 537 tokens, 1/8 facets, 4 near-copies     = 7 chunks, 562 tokens, 5/8 facets, 0 near-copies\n"
	c := "Q: c\n  = 6 chunks, 537 tokens, 1/8 facets, 4 near-copies     = 7 chunks, 562 tokens, 5/8 facets, 0 near-copies\n"
	if got := readmeComparison([]string{a, b, c}); got != b {
		t.Errorf("picked %q, want the first with the most top-k near-copies", got)
	}
}
