package engine

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"

	"github.com/weaviate/weaviate/entities/models"
)

// TestBudgetTooSmall: a first page that comes back empty because no
// candidate fits the token budget is refused with tokenBudget, the smallest
// candidate's tokens and the fix, on every route; a budget of exactly that
// many tokens selects, and later pages, no budget and an empty pool keep
// their empty answers.
func TestBudgetTooSmall(t *testing.T) {
	class := docClass()
	m := New(func(string) *models.Class { return class })
	run := func(t *testing.T, route string, budget, offset, pool, maxResults int) ([]models.AdditionalProperties, error) {
		t.Helper()
		settings := map[string]any{"strategy": "coverage", "tokenBudget": budget, "maxResults": maxResults}
		class.ModuleConfig = map[string]any{RerankerName: settings}
		p := rerankParams(pool, offset, "body", "statins")
		switch route {
		case "argument":
			settings["offset"] = offset
			p = argumentParams(t, m, settings)
		case "field":
			settings["offset"] = offset
			p = fieldParams(t, m, pool, settings)
		}
		out, _, err := runStage(m, p, results(pool, 1))
		ap := make([]models.AdditionalProperties, len(out))
		for i := range out {
			ap[i] = out[i].AdditionalProperties
		}
		return ap, err
	}
	reSmallest := regexp.MustCompile(`the smallest of the 30 candidates holds (\d+) tokens`)
	for _, route := range []string{"rerank", "argument", "field"} {
		t.Run(route, func(t *testing.T) {
			_, err := run(t, route, 5, 0, 30, 0)
			if err == nil {
				t.Fatal("a budget below every candidate selected nothing, silently")
			}
			for _, want := range []string{`"tokenBudget" is 5, below every candidate`, "raise tokenBudget to at least",
				"segment the texts into smaller chunks"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("the refusal does not say %q:\n%v", want, err)
				}
			}
			if Code(err) != codes.InvalidArgument {
				t.Errorf("code %v, want InvalidArgument", Code(err))
			}
			t.Logf("%s: %v", route, err)
			m := reSmallest.FindStringSubmatch(err.Error())
			if m == nil {
				t.Fatalf("the refusal does not give the smallest candidate's tokens: %v", err)
			}
			smallest, _ := strconv.Atoi(m[1])
			if !strings.Contains(err.Error(), "at least "+m[1]) {
				t.Errorf("the fix does not name %d tokens: %v", smallest, err)
			}
			for _, tc := range []struct {
				name                             string
				budget, offset, pool, maxResults int
				wantErr                          bool
				wantPicks                        bool
			}{
				{"one token short", smallest - 1, 0, 30, 0, true, false},
				{"one token short, whatever maxResults", smallest - 1, 0, 30, 1, true, false},
				{"exactly the smallest: it fits", smallest, 0, 30, 0, false, true},
				{"no budget", 0, 0, 30, 0, false, true},
				{"no budget, maxResults 1", 0, 0, 30, 1, false, true},
				{"a later page, the pool spent", smallest, 5, 30, 0, false, false},
				{"a later page under a budget nothing fits", 5, 5, 30, 0, false, false},
				{"an empty pool", 5, 0, 0, 0, false, false},
			} {
				t.Run(tc.name, func(t *testing.T) {
					out, err := run(t, route, tc.budget, tc.offset, tc.pool, tc.maxResults)
					if (err != nil) != tc.wantErr {
						t.Fatalf("error %v, want one: %v", err, tc.wantErr)
					}
					if (len(out) > 0) != tc.wantPicks {
						t.Errorf("%d picks, want some: %v", len(out), tc.wantPicks)
					}
				})
			}
		})
	}
}
