package integration

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/diverse-select/diverse-select/selectors/tokens"
)

// wordsCount is the words estimate computed here: ceil(4/3 * whitespace words).
func wordsCount(s string) int {
	n := len(strings.Fields(s))
	return max(1, (4*n+2)/3)
}

// charsCount is the chars estimate computed here: ceil(UTF-8 characters / 4).
func charsCount(s string) int {
	return max(1, (utf8.RuneCountInString(s)+3)/4)
}

func bpeCount(t testing.TB, name string) func(string) int {
	c, err := tokens.New(name)
	if err != nil {
		t.Fatal(err)
	}
	return c.Count
}

// TestTokenBudgetPerTokenizer: under every tokenizer, and with a tokenProperty,
// each item's tokens equal an independent count of its body, the selection's
// tokens stay within the budget, and the budget actually binds.
func TestTokenBudgetPerTokenizer(t *testing.T) {
	c := health(t)
	const budget = 60
	for _, tc := range []struct {
		name  string
		arg   string
		count func(Hit) int
	}{
		{"cl100k_base", `tokenizer: "cl100k_base"`, func(h Hit) int { return bpeCount(t, tokens.CL100K)(h.Str("body")) }},
		{"o200k_base", `tokenizer: "o200k_base"`, func(h Hit) int { return bpeCount(t, tokens.O200K)(h.Str("body")) }},
		{"words", `tokenizer: "words"`, func(h Hit) int { return wordsCount(h.Str("body")) }},
		{"chars", `tokenizer: "chars"`, func(h Hit) int { return charsCount(h.Str("body")) }},
		{"default is cl100k_base", ``, func(h Hit) int { return bpeCount(t, tokens.CL100K)(h.Str("body")) }},
		{"tokenProperty", `tokenProperty: "ntok"`, func(h Hit) int { return healthIdx[h.ID].Props["ntok"].(int) }},
	} {
		for _, form := range []string{"argument", "field"} {
			t.Run(tc.name+"/"+form, func(t *testing.T) {
				args := fmt.Sprintf(`strategy: "topk", tokenBudget: %d, textProperty: "body"`, budget)
				if tc.arg != "" {
					args += ", " + tc.arg
				}
				var hits []Hit
				if form == "argument" {
					hits = get(t, c, sel(c, healthNear(len(healthDocs)), args+fmt.Sprintf(", candidates: %d", len(healthDocs)), "body ntok"), nil)
				} else {
					hits = get(t, c, field(c, healthNear(len(healthDocs)), args, "body ntok"), nil)
				}
				checkSelection(t, hits, budget, true)
				sum := 0
				for i, h := range hits {
					want := tc.count(h)
					if h.DS.Tokens != want {
						t.Errorf("hit %d %q: tokens %d, independent count %d", i, h.Str("body"), h.DS.Tokens, want)
					}
					sum += want
				}
				if sum > budget {
					t.Errorf("independently counted tokens %d exceed the budget %d", sum, budget)
				}
				if len(hits) >= len(healthDocs) {
					t.Errorf("all %d candidates fit in %d tokens: the budget does not bind", len(hits), budget)
				}
				if len(hits) < 2 {
					t.Errorf("only %d item(s) selected in %d tokens", len(hits), budget)
				}
			})
		}
	}
	t.Run("tokenProperty values are the stored ints", func(t *testing.T) {
		hits := get(t, c, sel(c, healthNear(10), `strategy: "mmr", tokenProperty: "ntok", candidates: 19`, "ntok"), nil)
		for _, h := range hits {
			if h.DS.Tokens != h.Int("ntok") {
				t.Errorf("tokens %d, stored ntok %d", h.DS.Tokens, h.Int("ntok"))
			}
		}
	})
}
