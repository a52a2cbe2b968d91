package diverseselect

import (
	"context"
	"strings"
	"testing"

	"github.com/weaviate/weaviate/entities/filters"
	"github.com/weaviate/weaviate/entities/models"

	"github.com/diverse-select/diverse-select/config"
)

func TestPageOffset(t *testing.T) {
	m := New(func(string) *models.Class { return nil })
	parse := func(raw map[string]any) *config.Overrides {
		o, err := config.Parse(raw, m.defaults.Limits)
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	tests := []struct {
		name       string
		query      map[string]any
		facts      searchFacts
		wantOffset int
		wantPaged  bool
		wantErr    string
	}{
		{"no offset", nil, searchFacts{}, 0, false, ""},
		{"the query's offset", nil, searchFacts{offset: 6, paged: true}, 6, true, ""},
		{"offset 0 given: paged", nil, searchFacts{paged: true}, 0, true, ""},
		{"the setting", map[string]any{"offset": 4}, searchFacts{}, 4, true, ""},
		{"both, the same", map[string]any{"offset": 4}, searchFacts{offset: 4, paged: true}, 4, true, ""},
		{"both, different", map[string]any{"offset": 4}, searchFacts{offset: 5, paged: true}, 0, false, "twice"},
		{"negative", nil, searchFacts{offset: -1, paged: true}, 0, false, ">= 0"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var q *config.Overrides
			if tc.query != nil {
				q = parse(tc.query)
			}
			off, paged, err := pageOffset(q, tc.facts)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !strings.Contains(err.Error(), `"offset"`) {
					t.Fatalf("error %v, want one naming offset and %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || off != tc.wantOffset || paged != tc.wantPaged {
				t.Errorf("pageOffset = %d, %v, %v; want %d, %v", off, paged, err, tc.wantOffset, tc.wantPaged)
			}
		})
	}
}

// The GraphQL forms take the offset out of the search: the pool is always
// retrieved from its first result.
func TestPreparePostProcessMovesOffset(t *testing.T) {
	class := &models.Class{Class: "Doc", Properties: []*models.Property{{Name: "body", DataType: []string{"text"}}}}
	m := New(func(string) *models.Class { return class })
	for _, form := range []form{formArgument, formField} {
		r := &Request{m: m, form: form}
		r.query, r.err = config.Parse(map[string]any{"strategy": "topk"}, m.defaults.Limits)
		args := map[string]any{"offset": 7}
		out, err := r.preparePostProcess("Doc", "", args, &filters.Pagination{Limit: 20, Offset: 7}, nil)
		if err != nil {
			t.Fatalf("form %d: %v", form, err)
		}
		if out.Offset != 0 || r.plan.offset != 7 || !r.plan.paged {
			t.Errorf("form %d: search offset %d, plan offset %d paged %v; want 0, 7, true", form, out.Offset, r.plan.offset, r.plan.paged)
		}
	}
}

func TestMoveRerankOffset(t *testing.T) {
	withRR := &models.Class{Class: "R", ModuleConfig: map[string]any{RerankerName: map[string]any{}}}
	plain := &models.Class{Class: "P"}
	m := New(func(name string) *models.Class {
		switch name {
		case "R":
			return withRR
		case "P":
			return plain
		}
		return nil
	})
	NewReranker(m, false, Weaviate{})
	tests := []struct {
		collection string
		reranks    bool
		want       uint32 // the search's offset after the move
		moved      int
	}{
		{"R", true, 0, 5},
		{"R", false, 5, 0},
		{"P", true, 5, 0},
		{"missing", true, 5, 0},
	}
	for _, tc := range tests {
		ctx, off := MoveRerankOffset(context.Background(), tc.collection, 5, tc.reranks)
		if off != tc.want || rerankOffset(ctx) != tc.moved {
			t.Errorf("%s reranks=%v: search offset %d, moved %d; want %d, %d", tc.collection, tc.reranks, off, rerankOffset(ctx), tc.want, tc.moved)
		}
	}
}
