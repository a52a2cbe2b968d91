package main

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/diverse-select/diverse-select/integration/stack"
	"github.com/diverse-select/diverse-select/internal/corpus"
	"github.com/diverse-select/diverse-select/selectors/tokens"
)

// hit is one returned chunk with its diverse-select explanation and, on the
// first chunk, generative-dummy's grouped answer (the prompt an LLM would get).
type hit struct {
	Title    string `json:"title"`
	Facet    string `json:"facet"`
	DupGroup string `json:"dupGroup"`
	ChunkID  string `json:"chunkId"`
	Add      struct {
		DS struct {
			Rank     int    `json:"rank"`
			Tokens   int    `json:"tokens"`
			Strategy string `json:"strategy"`
		} `json:"diverseSelect"`
		Generate *struct {
			GroupedResult *string `json:"groupedResult"`
			Error         *string `json:"error"`
		} `json:"generate"`
	} `json:"_additional"`
}

// compare prints top-k and diverse selection for one query, side by side,
// and returns the figures of both columns.
func compare(ctx context.Context, sel selector, w io.Writer, q corpus.Query, budget, candidates int, strategy string) (pair, error) {
	topk, err := sel(ctx, q.Text, settings{strategy: "topk", budget: budget, candidates: candidates})
	if err != nil {
		return pair{}, fmt.Errorf("query %q: %w", q.Text, err)
	}
	diverse, err := sel(ctx, q.Text, settings{strategy: strategy, budget: budget, candidates: candidates})
	if err != nil {
		return pair{}, fmt.Errorf("query %q: %w", q.Text, err)
	}
	name := "diverse-select"
	if len(diverse) > 0 {
		name += " (" + diverse[0].Add.DS.Strategy + ")"
	}
	fmt.Fprintf(w, "Q: %s   [budget %d tokens, pool %d]\n", q.Text, budget, candidates)
	left, right := column(topk, "top-k"), column(diverse, name)
	for i := 0; i < len(left) || i < len(right); i++ {
		fmt.Fprintf(w, "  %-66s %s\n", at(left, i), at(right, i))
	}
	p := pair{query: q.Text, topk: figuresOf(topk, q), diverse: figuresOf(diverse, q)}
	fmt.Fprintf(w, "  %-66s %s\n", p.topk, p.diverse)
	topkPrompt, err := llmPrompt(topk)
	if err != nil {
		return pair{}, fmt.Errorf("query %q, top-k: %w", q.Text, err)
	}
	diversePrompt, err := llmPrompt(diverse)
	if err != nil {
		return pair{}, fmt.Errorf("query %q, diverse selection: %w", q.Text, err)
	}
	fmt.Fprintf(w, "  %-66s %s\n\n", topkPrompt, diversePrompt)
	return p, nil
}

// llmTask is the grouped task the demo asks generate for: the prompt an LLM
// gets is this task followed by the selected chunks' title and body.
const llmTask = "Answer the question from these chunks"

// llmPrompt describes what generate sent the LLM for a selection:
// generative-dummy answers with the prompt it was given, whose tokens are
// counted as the module counts (cl100k_base), with the tokens spent on
// near-copies of chunks already in the prompt.
func llmPrompt(hits []hit) (string, error) {
	if len(hits) == 0 || hits[0].Add.Generate == nil || hits[0].Add.Generate.GroupedResult == nil {
		if len(hits) > 0 && hits[0].Add.Generate != nil && hits[0].Add.Generate.Error != nil {
			return "", fmt.Errorf("generate: %s", *hits[0].Add.Generate.Error)
		}
		return "", fmt.Errorf("no grouped answer from generate on the first chunk")
	}
	prompt, ok := stack.DummyPrompt(*hits[0].Add.Generate.GroupedResult)
	if !ok {
		return "", fmt.Errorf("generate's answer is not generative-dummy's echo: %.80q", *hits[0].Add.Generate.GroupedResult)
	}
	var chunks []json.RawMessage
	if err := json.Unmarshal([]byte(strings.TrimPrefix(prompt, llmTask+": ")), &chunks); err != nil {
		return "", fmt.Errorf("prompt %.80q: %w", prompt, err)
	}
	_, wasted := nearCopies(hits)
	return fmt.Sprintf("> LLM prompt: %d chunks, %d tokens, %d on near-copies", len(chunks), promptTokens.Count(prompt), wasted), nil
}

// promptTokens counts prompt tokens as the module does by default.
var promptTokens = func() tokens.Counter {
	c, err := tokens.New("cl100k_base")
	if err != nil {
		panic(err) // embedded encoding: cannot fail at run time
	}
	return c
}()

// The marks of a chunk that repeats one earlier in the same list.
const (
	markNearCopy   = "≈ " // a planted near-copy (same DupGroup)
	markParaphrase = "~ " // a hand-written paraphrase of it, or the paragraph it paraphrases
)

func column(hits []hit, name string) []string {
	out := []string{name, strings.Repeat("-", len(name))}
	for i, m := range marks(hits) {
		h := hits[i]
		out = append(out, fmt.Sprintf("%s%-46s %4d tok", cmp.Or(m, "  "), clip(h.Title, 46), h.Add.DS.Tokens))
	}
	return out
}

// chunksByID is the demo corpus by chunk id: a paraphrase names what it rewords.
var chunksByID = sync.OnceValue(func() map[string]corpus.Chunk {
	m := map[string]corpus.Chunk{}
	for _, c := range corpus.Chunks() {
		m[c.ID] = c
	}
	return m
})

// paragraph names the paragraph a chunk says, whoever wrote it: its
// near-copy group, or for a paraphrase the group (or id) of what it rewords.
func paragraph(h hit) string {
	c, ok := chunksByID()[h.ChunkID]
	if !ok { // a segmented import: the pieces are new chunks
		return cmp.Or(h.DupGroup, h.ChunkID)
	}
	if c.Kind == corpus.KindParaphrase {
		if orig, ok := chunksByID()[c.ParaphraseOf]; ok {
			return cmp.Or(orig.DupGroup, orig.ID)
		}
	}
	return cmp.Or(c.DupGroup, c.ID)
}

// marks gives each hit its mark: a near-copy of a chunk earlier in the list,
// a paraphrase pair with one earlier, or "".
func marks(hits []hit) []string {
	out := make([]string, len(hits))
	groups, paragraphs := map[string]bool{}, map[string]bool{}
	for i, h := range hits {
		p := paragraph(h)
		switch {
		case h.DupGroup != "" && groups[h.DupGroup]:
			out[i] = markNearCopy
		case p != "" && paragraphs[p]:
			out[i] = markParaphrase
		}
		if h.DupGroup != "" {
			groups[h.DupGroup] = true
		}
		paragraphs[p] = true
	}
	return out
}

// nearCopies counts the chunks that copy one earlier in the list, and their tokens.
func nearCopies(hits []hit) (n, tokens int) {
	for i, m := range marks(hits) {
		if m == markNearCopy {
			n++
			tokens += hits[i].Add.DS.Tokens
		}
	}
	return n, tokens
}

// figures are what a column's summary line says of it.
type figures struct {
	chunks, tokens, facets, allFacets, nearCopies, paraphrases int
}

func (f figures) String() string {
	return fmt.Sprintf("= %d chunks, %d tokens, %d/%d facets, %d near-copies, %d paraphrases", f.chunks, f.tokens, f.facets, f.allFacets, f.nearCopies, f.paraphrases)
}

// pair is one query's two columns.
type pair struct {
	query         string
	topk, diverse figures
}

func figuresOf(hits []hit, q corpus.Query) figures {
	f := figures{chunks: len(hits), allFacets: len(q.Facets)}
	f.nearCopies, _ = nearCopies(hits)
	for _, m := range marks(hits) {
		if m == markParaphrase {
			f.paraphrases++
		}
	}
	facets := map[string]bool{}
	for _, h := range hits {
		f.tokens += h.Add.DS.Tokens
		for _, qf := range q.Facets {
			if qf.Facet == h.Facet {
				facets[h.Facet] = true
			}
		}
	}
	f.facets = len(facets)
	return f
}

func at(col []string, i int) string {
	if i < len(col) {
		return col[i]
	}
	return ""
}

func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// settings are one selection's: the strategy ("" = the collection's), the
// token budget and the candidate pool.
type settings struct {
	strategy           string
	budget, candidates int
}

// selector runs one nearText query with a selection's settings, and
// generate's grouped task over what it selects.
type selector func(ctx context.Context, text string, s settings) ([]hit, error)

// graphqlSelector selects through the module's GraphQL argument.
func graphqlSelector(url string) selector {
	return func(ctx context.Context, text string, s settings) ([]hit, error) {
		args := fmt.Sprintf(`tokenBudget: %d, candidates: %d`, s.budget, s.candidates)
		if s.strategy != "" {
			args += fmt.Sprintf(`, strategy: %q`, s.strategy)
		}
		query := fmt.Sprintf(`{ Get { %s(nearText: {concepts: [%q]}, diverseSelect: {%s}) {
		title facet dupGroup chunkId _additional { diverseSelect { rank tokens strategy }
		generate(groupedResult: {task: %q, properties: ["title", "body"]}) { groupedResult error } } } } }`,
			Class, text, args, llmTask)
		var hits []hit
		if err := stack.QueryGet(ctx, url, Class, query, &hits); err != nil {
			return nil, err
		}
		return hits, nil
	}
}
