package sdk

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/diverse-select/diverse-select/plugin/proto"
	"github.com/diverse-select/diverse-select/selectors"
)

// TestProblemRoundTrip: what the module encodes is what the plugin decodes.
func TestProblemRoundTrip(t *testing.T) {
	p := &selectors.Problem{Budget: 50, MaxResults: 2, Query: "q", Candidates: []selectors.Candidate{
		{ID: "00000000-0000-0000-0000-000000000001", Relevance: 0.9, Tokens: 10, Vector: []float32{1, 0, 0},
			Text: "a", Source: "s1", Properties: map[string]any{"date": "2026-01-02T00:00:00Z"}},
		{ID: "00000000-0000-0000-0000-000000000002", Relevance: 0.5, Tokens: 20, Vector: []float32{0, 1, 0},
			Text: "b", Source: "s2", Properties: map[string]any{"date": nil}},
		{ID: "00000000-0000-0000-0000-000000000003", Relevance: 0.1, Tokens: 30, Vector: []float32{0, 0, 1},
			Text: "c", Source: "s3", Properties: map[string]any{"date": "2025-12-31T00:00:00Z"}},
	}}
	params := selectors.Params{"lambda": 0.25, "k": 3, "on": true}
	req, err := EncodeProblem(p, params, true, true, []string{"date"})
	if err != nil {
		t.Fatal(err)
	}
	if req.Dim != 3 || len(req.Vectors) != 4*9 {
		t.Errorf("vectors packed as dim %d, %d bytes", req.Dim, len(req.Vectors))
	}
	got, raw, err := DecodeProblem(req)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Candidates, p.Candidates) || got.Budget != 50 || got.MaxResults != 2 || got.Query != "q" {
		t.Errorf("decoded %+v, want %+v", got, p)
	}
	if raw["lambda"] != 0.25 || raw["k"] != 3.0 || raw["on"] != true {
		t.Errorf("parameters %v", raw)
	}

	// Without vectors, texts and properties, none is sent.
	req, _ = EncodeProblem(p, nil, false, false, nil)
	if len(req.Vectors) != 0 || len(req.Texts) != 0 || len(req.PropertiesJson) != 0 {
		t.Errorf("sent what the strategy does not need: %v", req)
	}
}

func TestDecodeProblemRefusesRaggedColumns(t *testing.T) {
	for _, tc := range []struct {
		name string
		req  *proto.SelectRequest
		want string
	}{
		{"relevance", &proto.SelectRequest{Ids: []string{"a", "b"}, Relevance: []float64{1}, Tokens: []int32{1, 1}}, "relevance has 1 entries"},
		{"vectors", &proto.SelectRequest{Ids: []string{"a"}, Relevance: []float64{1}, Tokens: []int32{1}, Dim: 2, Vectors: []byte{0, 0, 128, 63}}, "vectors hold 4 bytes"},
		{"properties", &proto.SelectRequest{Ids: []string{"a"}, Relevance: []float64{1}, Tokens: []int32{1}, PropertiesJson: []byte(`[{},{}]`)}, "properties has 2 entries"},
	} {
		if _, _, err := DecodeProblem(tc.req); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}

func TestDescriptionRoundTrip(t *testing.T) {
	d := Description{Doc: "doc", NeedsVectors: true, Params: []selectors.ParamSpec{
		{Name: "w", Kind: selectors.KindFloat, Default: 0.5, Min: 0, Max: math.Inf(1), MaxOpen: true, Doc: "w"},
		{Name: "n", Kind: selectors.KindInt, Default: 3, Min: 1, Max: 10, Doc: "n"},
		{Name: "m", Kind: selectors.KindString, Default: "x", Enum: []string{"x", "y"}, Doc: "m"},
		{Name: "p", Kind: selectors.KindProperty, Default: "date", Doc: "p"},
		{Name: "u", Kind: selectors.KindBool, Doc: "no default"},
	}}
	pd, err := DescriptionToProto(d)
	if err != nil {
		t.Fatal(err)
	}
	got, err := DescriptionFromProto(pd)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, d) {
		t.Errorf("got %+v\nwant %+v", got, d)
	}
}

// TestGetFloatsUnaligned: an unaligned buffer is copied, not cast.
func TestGetFloatsUnaligned(t *testing.T) {
	want := []float32{1.5, -2, 3.25}
	b := make([]byte, 1+4*len(want))
	putFloats(b[1:], want)
	if got := getFloats(b[1:]); !reflect.DeepEqual(got, want) {
		t.Errorf("unaligned: %v, want %v", got, want)
	}
	putFloats(b[:12], want)
	if got := getFloats(b[:12]); !reflect.DeepEqual(got, want) {
		t.Errorf("aligned: %v, want %v", got, want)
	}
}
