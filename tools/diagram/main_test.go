package main

import (
	"os"
	"strings"
	"testing"
)

// TestStagesInOrder: the selection after the search, its thresholds and the
// rerankers, and before generate.
func TestStagesInOrder(t *testing.T) {
	var titles []string
	for _, s := range stages() {
		titles = append(titles, s.title)
	}
	want := "search, thresholds, rerankers, diverse selection, generate, response"
	if got := strings.Join(titles, ", "); got != want {
		t.Errorf("stages %q, want %q", got, want)
	}
}

// TestCommittedDiagram: docs/query-path.svg is this command's output (run
// make diagrams after changing the picture).
func TestCommittedDiagram(t *testing.T) {
	got, err := os.ReadFile("../../docs/query-path.svg")
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != svg(stages()) {
		t.Error("docs/query-path.svg is not what tools/diagram draws: run make diagrams")
	}
}
