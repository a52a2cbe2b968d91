// Package demo ships a small, hand-written retrieval corpus for showing what
// diverse selection does: 200 chunks on five topics (statin side effects,
// solar panel maintenance, Kubernetes pod eviction, sourdough baking, the
// history of the printing press) and one query per topic with its facets.
//
// The corpus is deliberately redundant, as real crawled corpora are: in
// every topic three paragraphs were copied with tiny edits (a word swapped,
// a typo, a boilerplate line added, a different URL), 2 to 4 times each,
// and five paragraphs were paraphrased by hand. Plain top-k retrieval
// therefore returns several copies of the same paragraph, while a diverse
// selection should cover more facets of the query. Every planted copy is
// marked: Chunk.DupGroup names its group and Chunk.Kind says whether it is
// the original, a near-duplicate or a paraphrase.
//
// The text was written for this project; it is general information, not
// medical or engineering advice. Sources are fictitious example.* URLs.
package corpus

import (
	"bufio"
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"sync"
)

// Kinds of chunk.
const (
	KindOriginal      = "original"
	KindNearDuplicate = "near-duplicate"
	KindParaphrase    = "paraphrase"
)

// Chunk is one retrievable passage of the demo corpus.
type Chunk struct {
	ID     string `json:"id"`
	Topic  string `json:"topic"`
	Title  string `json:"title"`
	Body   string `json:"body"`
	Source string `json:"source"`
	// Facet is the subtopic the chunk covers, e.g. "liver" for statins.
	Facet string `json:"facet"`
	// DupGroup is shared by a planted original and its near-duplicate
	// copies ("topic/slug"); empty for chunks that are not in such a group.
	DupGroup string `json:"dupGroup"`
	// Kind is KindOriginal, KindNearDuplicate or KindParaphrase.
	Kind string `json:"kind"`
	// ParaphraseOf is the ID of the chunk a paraphrase rewords.
	ParaphraseOf string `json:"paraphraseOf"`
}

// Text is the title and body joined, the text a demo would embed.
func (c Chunk) Text() string { return c.Title + "\n\n" + c.Body }

// Query is a demo question with the facets a good answer should cover.
type Query struct {
	ID     string  `json:"id"`
	Topic  string  `json:"topic"`
	Text   string  `json:"text"`
	Facets []Facet `json:"facets"`
}

// Facet lists the chunks that cover one subtopic of a query.
type Facet struct {
	Facet    string   `json:"facet"`
	ChunkIDs []string `json:"chunkIds"`
}

//go:embed corpus.jsonl
var corpusJSONL []byte

//go:embed queries.json
var queriesJSON []byte

var load = sync.OnceValues(func() ([]Chunk, []Query) {
	chunks, err := parseChunks(corpusJSONL)
	if err != nil {
		panic(err) // the embedded file is checked by the tests
	}
	var queries []Query
	if err := json.Unmarshal(queriesJSON, &queries); err != nil {
		panic(fmt.Sprintf("demo: queries.json: %v", err))
	}
	return chunks, queries
})

func parseChunks(data []byte) ([]Chunk, error) {
	var chunks []Chunk
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for line := 1; sc.Scan(); line++ {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var c Chunk
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&c); err != nil {
			return nil, fmt.Errorf("demo: corpus.jsonl line %d: %w", line, err)
		}
		chunks = append(chunks, c)
	}
	return chunks, sc.Err()
}

// Chunks returns the corpus in file order. The caller owns the slice.
func Chunks() []Chunk {
	chunks, _ := load()
	return append([]Chunk(nil), chunks...)
}

// Queries returns the demo queries. The caller owns the slice, but the
// Facets and ChunkIDs inside are shared and must not be modified.
func Queries() []Query {
	_, queries := load()
	return append([]Query(nil), queries...)
}
