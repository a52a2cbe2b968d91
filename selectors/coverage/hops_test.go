package coverage

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/diverse-select/diverse-select/selectors"
)

// titleWhole is the title rule read over the whole first line, as title
// read it before it stopped at the title's longest reach.
func titleWhole(text string) (string, bool) {
	head, ok := firstLine(text)
	if !ok || moreFields(head, maxTitleWords) {
		return "", false
	}
	return head, true
}

// TestTitle: title finds exactly the titles the whole-line rule finds.
func TestTitle(t *testing.T) {
	texts := []string{
		"", "\n", "Title\n", "Title\n   \n\t", "Title\nbody", "Mercury (planet)\nThe smallest planet.",
		"one two three four five six seven eight nine ten eleven twelve\nbody",
		"one two three four five six seven eight nine ten eleven twelve thirteen\nbody",
		"  leading   spaces  \nbody", "no newline at all, only a long sentence that goes on and on",
		"Zürich\nA city.", "a\u00a0b c d e f g h i j k l m\nbody", "\nbody after an empty first line",
		"tab\tseparated\tfields\nbody", "crlf title\r\nbody",
	}
	rng := rand.New(rand.NewPCG(1, 2))
	words := []string{"a", "bb", "ccc", "é", "\n", " ", "\t", "\u2003", "title", "x"}
	for range 2000 {
		var b strings.Builder
		for range rng.IntN(40) {
			b.WriteString(words[rng.IntN(len(words))])
			if rng.IntN(2) == 0 {
				b.WriteByte(' ')
			}
		}
		texts = append(texts, b.String())
	}
	for _, text := range texts {
		wantHead, wantOK := titleWhole(text)
		head, ok := title(selectors.Candidate{Text: text})
		assert.Equal(t, wantOK, ok, "%q", text)
		assert.Equal(t, wantHead, head, "%q", text)
	}
}
