package diverseselect

import (
	"bytes"
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"
)

// cases is clients/testdata/cases.json, the table the TypeScript and Python
// helpers' tests read too.
type cases struct {
	Encode []struct {
		Name, Property, Query string
		Options               json.RawMessage
		Rerank                *struct{ Property, Query string }
		Error                 string
	}
	Explain []struct {
		Name         string
		ExplainScore string
		Explanation  *Explanation
	}
}

func readCases(t *testing.T) cases {
	t.Helper()
	b, err := os.ReadFile("../testdata/cases.json")
	if err != nil {
		t.Fatal(err)
	}
	var c cases
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	return c
}

// TestEncodeCases: settings in, the rerank request's fields out. The
// options come as JSON with the wire names, Options' json tags; a value Go's
// types refuse (1.5 for an int, an unknown key) fails the decoding, as it
// fails to compile in user code.
func TestEncodeCases(t *testing.T) {
	for _, c := range readCases(t).Encode {
		t.Run(c.Name, func(t *testing.T) {
			dec := json.NewDecoder(bytes.NewReader(bytes.ReplaceAll(c.Options, []byte(`"LONG4096"`), []byte(`"`+strings.Repeat("x", 4096)+`"`))))
			dec.DisallowUnknownFields()
			var o Options
			err := dec.Decode(&o)
			var req struct{ property, query string }
			if err == nil {
				pr, rerr := Request(Query{Collection: "C", Limit: 10, Property: c.Property, Text: c.Query}, o)
				if err = rerr; err == nil {
					req.property, req.query = pr.GetRerank().GetProperty(), pr.GetRerank().GetQuery()
				}
			}
			if c.Error != "" {
				if err == nil || !strings.Contains(err.Error(), c.Error) {
					t.Fatalf("error %v, want one naming %s", err, c.Error)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if req.property != c.Rerank.Property || req.query != c.Rerank.Query {
				t.Errorf("rerank {%q, %q}\nwant   {%q, %q}", req.property, req.query, c.Rerank.Property, c.Rerank.Query)
			}
		})
	}
}

// TestExplainCases: explainScore in, the typed explanation out.
func TestExplainCases(t *testing.T) {
	for _, c := range readCases(t).Explain {
		t.Run(c.Name, func(t *testing.T) {
			if got := Explain(c.ExplainScore); !reflect.DeepEqual(got, c.Explanation) {
				t.Errorf("explanation %+v, want %+v", got, c.Explanation)
			}
		})
	}
}

// TestRequest: one search per query, the pool is the limit, the query text
// defaults to the search's.
func TestRequest(t *testing.T) {
	for _, tc := range []struct {
		name    string
		q       Query
		text    string
		wantErr string
	}{
		{"nearText", Query{Collection: "C", Limit: 40, NearText: "statins", Property: "body"}, "statins", ""},
		{"bm25 with a question", Query{Collection: "C", Limit: 40, BM25: "statins", Property: "body", Text: "why statins?"}, "why statins?", ""},
		{"two searches", Query{Collection: "C", Limit: 40, NearText: "a", BM25: "b", Property: "body"}, "", "one of NearText, BM25 and Hybrid"},
		{"no pool", Query{Collection: "C", NearText: "a", Property: "body"}, "", `"limit" is 0`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, err := Request(tc.q, Options{})
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if req.GetRerank().GetQuery() != tc.text || req.GetLimit() != uint32(tc.q.Limit) || !req.GetMetadata().GetExplainScore() {
				t.Errorf("request %v", req)
			}
		})
	}
}
