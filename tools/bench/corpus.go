package main

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/diverse-select/diverse-select/internal/corpus"
)

// benchDoc is one object of the bench corpus.
type benchDoc struct {
	Title, Body, Source string
}

// benchCorpus builds n chunks deterministically from the demo corpus's
// sentences: each chunk takes one topic's title and 4 to 14 of that topic's
// sentences (drawn with a fixed seed), so chunks are English, on topic,
// 100 to 350 tokens long, and overlap as crawled chunks do.
func benchCorpus(n int) []benchDoc {
	type topic struct {
		titles, sentences []string
	}
	topics := map[string]*topic{}
	var order []string
	for _, c := range corpus.Chunks() {
		t := topics[c.Topic]
		if t == nil {
			t = &topic{}
			topics[c.Topic] = t
			order = append(order, c.Topic)
		}
		t.titles = append(t.titles, c.Title)
		t.sentences = append(t.sentences, sentences(c.Body)...)
	}
	rng := rand.New(rand.NewPCG(0xbe7c4, 0xc0de))
	docs := make([]benchDoc, n)
	for i := range docs {
		t := topics[order[i%len(order)]]
		k := 4 + rng.IntN(11)
		parts := make([]string, k)
		for j := range parts {
			parts[j] = t.sentences[rng.IntN(len(t.sentences))]
		}
		docs[i] = benchDoc{
			Title:  t.titles[rng.IntN(len(t.titles))],
			Body:   strings.Join(parts, " "),
			Source: fmt.Sprintf("https://site%02d.example.org/%s/%d", rng.IntN(40), order[i%len(order)], i),
		}
	}
	return docs
}

// sentences splits a paragraph after ". ", "? " and "! ".
func sentences(s string) []string {
	var out []string
	start := 0
	for i := 0; i+1 < len(s); i++ {
		if (s[i] == '.' || s[i] == '?' || s[i] == '!') && s[i+1] == ' ' {
			out = append(out, strings.TrimSpace(s[start:i+1]))
			start = i + 2
		}
	}
	if rest := strings.TrimSpace(s[start:]); rest != "" {
		out = append(out, rest)
	}
	return out
}

// benchQueries are the query texts the bench cycles through: the demo
// queries and one narrower question per facet area.
var benchQueries = []string{
	"What side effects can statins cause, and how are they managed?",
	"How should I maintain and clean my rooftop solar panels?",
	"Why was my Kubernetes pod evicted and how can I prevent it?",
	"How do I bake a good sourdough loaf at home?",
	"How did the printing press change Europe?",
	"statin muscle pain and liver enzymes",
	"solar inverter monitoring and warranty",
	"node memory pressure eviction order",
	"sourdough starter feeding and fermentation",
	"Gutenberg Bible and the spread of printing",
	"do statins raise diabetes risk",
	"cleaning soiled solar panels safely",
	"pod preemption and priority classes",
	"shaping and baking a sourdough loaf",
	"printing and the Reformation",
	"statin drug interactions",
}
