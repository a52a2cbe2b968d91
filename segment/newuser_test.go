package segment_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/diverse-select/diverse-select/cmd/embedder/embed"
	"github.com/diverse-select/diverse-select/segment"
	"github.com/diverse-select/diverse-select/selectors/tokens"
)

// glove embeds in process with the embedder's GloVe-SIF mode.
type glove struct{ e embed.Embedder }

func (g glove) Encode(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = g.e.Embed(t)
	}
	return out, nil
}

// TestNewUserTexts is issue 46's two short texts of a new user: a paragraph
// on one topic, then one on another. The default method, with the real
// GloVe-SIF vectors (the shared data folder beside the checkout, or
// GLOVE_DIR) and its trained scorer, must cut once, exactly between them,
// whether a blank line or a space joins them.
func TestNewUserTexts(t *testing.T) {
	dir := os.Getenv("GLOVE_DIR")
	if dir == "" {
		dir = filepath.Join("..", "..", "shared", "data", "glove-6b-100d-top100k")
	}
	g, err := embed.LoadGloVe(dir)
	if err != nil {
		t.Fatalf("GloVe vectors (the shared data folder, or GLOVE_DIR): %v", err)
	}
	scorer, err := segment.Weights("glove-sif")
	if err != nil {
		t.Fatal(err)
	}
	counter, err := tokens.New(tokens.CL100K)
	if err != nil {
		t.Fatal(err)
	}
	c := segment.ChangePoint{Encoder: glove{g}, Scorer: scorer, MaxTokens: 128, Counter: counter}
	for _, tc := range []struct{ name, first, second string }{
		{"harbour then tax",
			"The old harbour sits below the cliffs at the mouth of the river. Fishing boats leave before dawn and come back with cod and mackerel in the afternoon. In summer the quay fills with visitors who watch the catch being unloaded. A stone lighthouse at the end of the pier has guided ships into the bay since 1820.",
			"Income tax is charged on earnings above the personal allowance. The basic rate applies to the first band of taxable income, and higher rates apply above it. Self-employed people must file a return each year by the end of January. Late returns are fined, and interest is charged on tax paid late."},
		{"sourdough then a rocket launch",
			"Sourdough bread rises with a starter of wild yeast and lactic acid bacteria instead of baker's yeast. The starter is fed with flour and water every day to keep it active. A long, cool fermentation gives the loaf its sour taste and open crumb. Bake it in a hot covered pot so that the crust turns dark and crisp.",
			"The rocket lifted off from the launch pad at dawn on its first orbital flight. Nine engines burned for about two and a half minutes before the first stage separated. The upper stage then carried the satellite to an altitude of five hundred kilometres. Engineers in the control room cheered when the payload was released."},
	} {
		for _, join := range []string{"\n\n", " "} {
			text := tc.first + join + tc.second
			cs, err := c.Chunk(context.Background(), text)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, ch := range cs {
				got = append(got, text[ch.Start:ch.End])
			}
			if len(got) != 2 || got[0] != tc.first || got[1] != tc.second {
				t.Errorf("%s, joined by %q: chunks %q, want the two paragraphs", tc.name, join, got)
			}
		}
	}
}
