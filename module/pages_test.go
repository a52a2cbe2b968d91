package diverseselect

import (
	"context"
	"github.com/diverse-select/diverse-select/selectors"
	logtest "github.com/sirupsen/logrus/hooks/test"
	pb "github.com/weaviate/weaviate/grpc/generated/protocol/v1"
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

// TestPrepareGRPCSearchMovesOffset: a gRPC search that reranks a class
// configuring reranker-diverse-select hands its offset to the selection;
// every other search keeps it.
func TestPrepareGRPCSearchMovesOffset(t *testing.T) {
	withRR := &models.Class{Class: "R", ModuleConfig: map[string]any{RerankerName: map[string]any{"strategy": "topk"}},
		Properties: []*models.Property{{Name: "body", DataType: []string{"text"}}}}
	plain := &models.Class{Class: "P"}
	m := New(func(string) *models.Class { return nil })
	useServerReranker(t, NewReranker(m, false, Weaviate{}))
	prop := "body"
	tests := []struct {
		class   *models.Class
		reranks bool
		want    uint32 // the search's offset after the move
		moved   int
	}{
		{withRR, true, 0, 5},
		{withRR, false, 5, 0},
		{plain, true, 5, 0},
		{nil, true, 5, 0}, // not authorized, or no such collection
	}
	for _, tc := range tests {
		req := &pb.SearchRequest{Collection: "R", Offset: 5}
		if tc.reranks {
			req.Rerank = &pb.Rerank{Property: prop}
		}
		ctx := PrepareGRPCSearch(context.Background(), req, tc.class)
		if req.Offset != tc.want || rerankOffset(ctx) != tc.moved {
			t.Errorf("%v reranks=%v: search offset %d, moved %d; want %d, %d", tc.class, tc.reranks, req.Offset, rerankOffset(ctx), tc.want, tc.moved)
		}
	}
}

// useServerReranker makes rr the process's reranker for one test.
func useServerReranker(t *testing.T, rr *Reranker) {
	old := serverReranker.Swap(rr)
	t.Cleanup(func() { serverReranker.Store(old) })
}

// panicNew is a strategy that panics while it is built from its parameters.
const panicNew = "test-panic-new"

func init() {
	selectors.Register(selectors.Definition{Name: panicNew, Doc: "test: panics while built",
		New: func(selectors.Params) (selectors.Strategy, error) { panic("injected panic in New") }})
}

// TestPrepareGRPCSearchPanic: a panic while the gRPC search is prepared is
// logged and leaves the request as it was; the process lives on.
func TestPrepareGRPCSearchPanic(t *testing.T) {
	class := &models.Class{Class: "R", ModuleConfig: map[string]any{RerankerName: map[string]any{"strategy": panicNew}},
		Properties: []*models.Property{{Name: "body", DataType: []string{"text"}}}}
	m := New(func(string) *models.Class { return nil })
	logger, hook := logtest.NewNullLogger()
	m.logger = logger
	useServerReranker(t, NewReranker(m, false, Weaviate{}))
	md := &pb.MetadataRequest{Vectors: []string{"a"}}
	req := &pb.SearchRequest{Collection: "R", Offset: 5, Rerank: &pb.Rerank{Property: "body"}, Metadata: md}
	ctx := PrepareGRPCSearch(context.Background(), req, class)
	if req.Offset != 5 || req.Metadata != md || md.Vector || len(md.Vectors) != 1 || rerankOffset(ctx) != 0 {
		t.Errorf("after a panic: offset %d, metadata %+v, moved %d; want the request as it was", req.Offset, req.Metadata, rerankOffset(ctx))
	}
	if e := hook.LastEntry(); e == nil || e.Message != "diverse-select: panic recovered" {
		t.Errorf("the panic was not logged: %+v", e)
	}
}
