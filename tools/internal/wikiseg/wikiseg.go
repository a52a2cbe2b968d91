// Package wikiseg is the Wikipedia data of the segmentation scorer's
// training and evaluation: the paragraphs of the HotpotQA, MuSiQue and 2Wiki
// contexts in ../shared/data (read in place), split by article title into
// training, validation and held-out articles, and made into sentence pairs
// (consecutive sentences of one paragraph: positive; the last sentence of a
// paragraph and the first of the next paragraph: negative) and into test
// documents (paragraphs joined, the joins the true boundaries).
package wikiseg

import (
	"bufio"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"strings"

	"github.com/diverse-select/diverse-select/segment"
)

// Files are the context files read, in order, under the shared data folder.
var Files = []string{
	filepath.Join("hotpotqa-dev300", "dev_subsampled.jsonl"),
	filepath.Join("musique-train100", "train.jsonl"),
	filepath.Join("2wikimultihopqa-train500", "train.jsonl"),
}

// Split names which articles a paragraph belongs to, by a hash of its title:
// an article is in one split only, so held-out pairs and documents come from
// articles the scorer never saw.
type Split int

const (
	Train      Split = iota // 3 of 5 titles: the scorer's weights
	Validation              // 1 of 5: the threshold
	HeldOut                 // 1 of 5: every reported boundary figure
)

func (s Split) String() string { return [...]string{"train", "validation", "held-out"}[s] }

// SplitOf is the split of an article title.
func SplitOf(title string) Split {
	h := fnv.New32a()
	h.Write([]byte(title))
	switch h.Sum32() % 5 {
	case 0:
		return HeldOut
	case 1:
		return Validation
	}
	return Train
}

// Paragraph is one distinct Wikipedia paragraph and its sentences.
type Paragraph struct {
	Title, Text string
	Sentences   []string
}

// Load reads every distinct paragraph of Files under dataDir, in file order,
// with its sentences (segment.Sentences); paragraphs of one sentence are
// kept (they still give a negative pair on each side).
func Load(dataDir string) ([]Paragraph, error) {
	var out []Paragraph
	seen := map[[2]string]bool{}
	for _, f := range Files {
		path := filepath.Join(dataDir, f)
		fh, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		sc := bufio.NewScanner(fh)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			var q struct {
				Contexts []struct {
					Title string `json:"title"`
					Text  string `json:"paragraph_text"`
				} `json:"contexts"`
			}
			if err := json.Unmarshal(sc.Bytes(), &q); err != nil {
				fh.Close()
				return nil, fmt.Errorf("%s: %w", path, err)
			}
			for _, c := range q.Contexts {
				text := strings.TrimSpace(c.Text)
				if k := [2]string{c.Title, text}; text != "" && !seen[k] {
					seen[k] = true
					p := Paragraph{Title: c.Title, Text: text}
					for _, s := range segment.Sentences(text) {
						p.Sentences = append(p.Sentences, text[s.Start:s.End])
					}
					out = append(out, p)
				}
			}
		}
		fh.Close()
		if err := sc.Err(); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	return out, nil
}

// Of keeps the paragraphs of one split, in order.
func Of(ps []Paragraph, s Split) []Paragraph {
	var out []Paragraph
	for _, p := range ps {
		if SplitOf(p.Title) == s {
			out = append(out, p)
		}
	}
	return out
}

// Pair is two neighbour sentences and whether the second continues the
// first's paragraph.
type Pair struct {
	A, B     string
	Continue bool
}

// Pairs makes the pairs of paragraphs (one split's, in order): every two
// consecutive sentences of a paragraph, and the last sentence of each
// paragraph with the first of the next one.
func Pairs(ps []Paragraph) []Pair {
	var out []Pair
	for i, p := range ps {
		for j := 1; j < len(p.Sentences); j++ {
			out = append(out, Pair{A: p.Sentences[j-1], B: p.Sentences[j], Continue: true})
		}
		if i+1 < len(ps) && len(p.Sentences) > 0 && len(ps[i+1].Sentences) > 0 {
			out = append(out, Pair{A: p.Sentences[len(p.Sentences)-1], B: ps[i+1].Sentences[0]})
		}
	}
	return out
}

// Document is a test text: paragraphs joined by one space (no line break
// gives the boundary away) and the byte offsets where each paragraph after
// the first starts.
type Document struct {
	Text       string
	Boundaries []int
}

// Documents joins consecutive runs of per paragraphs into documents.
func Documents(ps []Paragraph, per int) []Document {
	var out []Document
	for i := 0; i+per <= len(ps); i += per {
		var b strings.Builder
		var d Document
		for k, p := range ps[i : i+per] {
			if k > 0 {
				b.WriteByte(' ')
				d.Boundaries = append(d.Boundaries, b.Len())
			}
			b.WriteString(p.Text)
		}
		d.Text = b.String()
		out = append(out, d)
	}
	return out
}

// Words converts byte offsets of text into word positions: for each offset,
// the number of white-space separated words that start before it; n is the
// text's word count. Boundary metrics count in words, so chunkers that cut
// inside sentences and those that do not are measured alike.
func Words(text string, offsets []int) (pos []int, n int) {
	var starts []int
	in := false
	for i, r := range text {
		space := r == ' ' || r == '\n' || r == '\t' || r == '\r'
		if !space && !in {
			starts = append(starts, i)
		}
		in = !space
	}
	for _, o := range offsets {
		k := 0
		for k < len(starts) && starts[k] < o {
			k++
		}
		pos = append(pos, k)
	}
	return pos, len(starts)
}
