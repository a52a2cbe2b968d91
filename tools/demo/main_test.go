package main

import (
	"bytes"
	"context"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/diverse-select/diverse-select/internal/corpus"
)

// TestDemo runs `make run`'s program end to end (hash embedder, free ports)
// and checks what it shows: every demo query with top-k next to diverse
// selection, and no near-copy in the diverse column.
func TestDemo(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	var out bytes.Buffer
	err := run(ctx, &out, options{dataDir: t.TempDir() + "/data", budget: 600, candidates: 40, exit: true})
	if err != nil {
		t.Fatalf("demo: %v\n%s", err, out.String())
	}
	text := out.String()
	summary := regexp.MustCompile(`= (\d+) chunks, (\d+) tokens, \d+/\d+ facets, (\d+) near-copies\s+= (\d+) chunks, (\d+) tokens, \d+/\d+ facets, (\d+) near-copies`)
	rows := summary.FindAllStringSubmatch(text, -1)
	if len(rows) != len(corpus.Queries()) {
		t.Fatalf("%d summaries for %d queries:\n%s", len(rows), len(corpus.Queries()), text)
	}
	for _, r := range rows {
		if r[6] != "0" {
			t.Errorf("diverse selection kept %s near-copies: %q", r[6], r[0])
		}
		for _, tok := range []string{r[2], r[5]} {
			if n, _ := strconv.Atoi(tok); n > 600 {
				t.Errorf("budget of 600 tokens exceeded: %q", r[0])
			}
		}
	}
	if !strings.Contains(text, "stopping Weaviate and the embedder") {
		t.Errorf("the demo did not stop its servers:\n%s", text)
	}
}
