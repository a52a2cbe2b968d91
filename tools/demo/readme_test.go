package main

import "testing"

func TestSpliceDemoText(t *testing.T) {
	doc := "intro\n<!-- BEGIN demo -->\n```\nold\n```\n<!-- END demo -->\nafter\n"
	got, err := spliceDemoText(doc, "\nQ: new\n  = 3 chunks\n\n")
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
