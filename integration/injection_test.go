package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/weaviate/weaviate/entities/models"
	pb "github.com/weaviate/weaviate/grpc/generated/protocol/v1"

	dsclient "github.com/diverse-select/diverse-select/clients/go"
)

// The rerank query is an end user's question (issue 28): whatever it
// holds, it is plain text - never settings, never a crash - unless the
// collection opts in to the in-text form (rerankQuerySyntax), where the
// settings are parsed under a size limit. Settings ride in the rerank
// property (the helpers), and a collection can refuse or cap them.

// megaBrackets is 1 MB of brackets after the settings' opening.
var megaBrackets = "diverseSelect(" + strings.Repeat("[", 1<<20) + ")"

// injectionCases are questions that imitate settings, with their outcome on
// a collection without and with rerankQuerySyntax: "text" (the collection's
// settings, the question as text), "settings" (the question's settings), or
// the error a refusal holds.
var injectionCases = []struct {
	name, question string
	plain, optIn   string
}{
	{"settings syntax at the start", `diverseSelect(strategy: "topk", tokenBudget: 0, maxResults: 2): ` + healthQuery, "text", "settings"},
	{"settings syntax in the middle", healthQuery + ` diverseSelect(strategy: "topk", maxResults: 2)`, "text", "text"},
	{"unbalanced parenthesis", `diverseSelect(strategy: "topk"`, "text", `has no closing parenthesis`},
	// Text longer than DIVERSE_SELECT_MAX_QUERY_BYTES is refused by size; opted-in settings by their depth.
	{"1 MB of brackets", megaBrackets, "DIVERSE_SELECT_MAX_QUERY_BYTES", `"rerank query" has settings nested deeper than 2 brackets`},
	{"1 MB of open parentheses", strings.Repeat("(", 1<<20), "DIVERSE_SELECT_MAX_QUERY_BYTES", "DIVERSE_SELECT_MAX_QUERY_BYTES"},
	{"16 KiB of open parentheses", strings.Repeat("(", 1<<14), "text", "text"},
}

// TestRerankQueryInjection sends each question as the rerank query through
// the Go helper (the settings, none, ride in the property) to a collection
// configured with adagres under a budget of 100, and to its copy with
// rerankQuerySyntax: true.
func TestRerankQueryInjection(t *testing.T) {
	articleClass(t)
	optIn := articleInText(t)
	run := func(class, question string) ([]dsclient.Object, error) {
		return dsclient.Select(context.Background(), grpcc(t), dsclient.Query{Collection: class, Limit: 19,
			NearText: healthQuery, Text: question, Property: "body"}, dsclient.Options{})
	}
	outcome := func(objs []dsclient.Object, err error) string {
		if err != nil {
			return "refused: " + cause(err)
		}
		for _, o := range objs {
			if ex := o.Explanation; ex == nil || ex.Strategy != "adagres" || ex.Budget != 100 {
				return fmt.Sprintf("settings (%d objects, %s, budget %d)", len(objs), ex.Strategy, ex.Budget)
			}
		}
		return fmt.Sprintf("text (%d objects, adagres, budget 100)", len(objs))
	}
	for _, tc := range injectionCases {
		t.Run(tc.name, func(t *testing.T) {
			for _, side := range []struct{ class, want string }{{"Article", tc.plain}, {optIn, tc.optIn}} {
				got := outcome(run(side.class, tc.question))
				t.Logf("%-14s %-30s -> %.160s", side.class, tc.name, got)
				switch side.want {
				case "text", "settings":
					if !strings.HasPrefix(got, side.want+" ") {
						t.Errorf("%s: %s, want %s", side.class, got, side.want)
					}
				default:
					if !strings.Contains(got, side.want) {
						t.Errorf("%s: %s, want a refusal holding %q", side.class, got, side.want)
					}
				}
			}
			assertAlive(t)
		})
	}
	// The property form under its size limit, sent raw (the helper refuses
	// it before sending): 1 MB of brackets as settings.
	q := healthQuery
	prop := "body|" + dsclient.Version + "|" + strings.Repeat("[", 1<<20)
	_, err := grpcc(t).Search(ctx(t), &pb.SearchRequest{Collection: "Article", Limit: 19,
		NearText:    &pb.NearTextSearch{Query: []string{healthQuery}},
		Rerank:      &pb.Rerank{Property: prop, Query: &q},
		Uses_123Api: true, Uses_125Api: true, Uses_127Api: true})
	t.Logf("%-14s %-30s -> refused: %s", "Article", "1 MB of brackets as settings", cause(err))
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf(`"rerank property" is %d bytes; allowed: at most 4096 bytes`, len(prop))) {
		t.Errorf("1 MB rerank property: error %v, want the size refusal", err)
	}
	assertAlive(t)
}

// articleInText is the Health corpus in a collection configured as Article
// with rerankQuerySyntax: true.
func articleInText(t testing.TB) string {
	t.Helper()
	const class = "ArticleInText"
	ensure(t, class, func(t testing.TB) {
		createHealthReranked(t, class, map[string]any{"strategy": "adagres", "tokenBudget": 100, "rerankQuerySyntax": true})
	})
	return class
}

// The collections of the policy tests: per-query settings capped, and off.
const (
	policyClass = "ArticlePolicy"
	lockedClass = "ArticleLocked"
)

// policyClasses creates policyClass and lockedClass with the Health corpus.
func policyClasses(t testing.TB) {
	t.Helper()
	caps := map[string]any{"strategy": "adagres", "tokenBudget": 100, "maxQueryTokenBudget": 80, "maxQueryCandidates": 30, "maxQueryWidenTo": 50}
	ensure(t, policyClass, func(t testing.TB) {
		mc := withReranker(caps)
		mc["diverse-select"] = caps
		createClass(t, &models.Class{Class: policyClass, Vectorizer: "text2vec-transformers", ModuleConfig: mc, Properties: bodyProps()})
		importDocs(t, policyClass, healthDocs)
	})
	ensure(t, lockedClass, func(t testing.TB) {
		createHealthReranked(t, lockedClass, map[string]any{"strategy": "adagres", "tokenBudget": 100, "querySettings": "off"})
	})
}

// policyRerankCases are the policy cases of the rerank route, which the Go
// and Python helpers send: settings (wire names) with the query's limit (the
// pool) on a policy collection, and the refusal's words ("" = allowed).
var policyRerankCases = []struct {
	Name    string          `json:"name"`
	Class   string          `json:"class"`
	Limit   int             `json:"limit"`
	Options json.RawMessage `json:"options"`
	WantErr string          `json:"wantErr"`
}{
	{"budget under the cap", policyClass, 19, json.RawMessage(`{"tokenBudget": 80}`), ""},
	{"budget above the cap", policyClass, 19, json.RawMessage(`{"tokenBudget": 200}`),
		`"tokenBudget" is 200, above this collection's cap of 80 (moduleConfig["reranker-diverse-select"].maxQueryTokenBudget)`},
	{"pool above the cap", policyClass, 40, json.RawMessage(`{}`),
		`"limit" is 40, above this collection's cap of 30 candidates (moduleConfig["reranker-diverse-select"].maxQueryCandidates)`},
	{"widenTo above the cap", policyClass, 19, json.RawMessage(`{"widenTo": 100}`), `"widenTo" is 100, above this collection's cap of 50`},
	{"settings off: a setting", lockedClass, 19, json.RawMessage(`{"maxResults": 2}`),
		`"maxResults" is a per-query setting, and this collection refuses them (moduleConfig["reranker-diverse-select"].querySettings: "off")`},
	{"settings off: none", lockedClass, 19, json.RawMessage(`{}`), ""},
}

// TestQueryPolicyOnTheServer: a collection that turns per-query settings off
// or caps them refuses what exceeds them on the rerank route (the Go
// helper) and the GraphQL argument, naming the key, the cap and the setting.
func TestQueryPolicyOnTheServer(t *testing.T) {
	policyClasses(t)
	type policyCase struct {
		name    string
		err     func() error
		wantErr string // "" = allowed
	}
	var cases []policyCase
	for _, c := range policyRerankCases {
		cases = append(cases, policyCase{c.Name, func() error {
			_, err := dsclient.Select(context.Background(), grpcc(t), dsclient.Query{Collection: c.Class, Limit: c.Limit,
				NearText: healthQuery, Property: "body"}, options(t, string(c.Options)))
			return err
		}, c.WantErr})
	}
	cases = append(cases, []policyCase{
		{"GraphQL argument: candidates above the cap", func() error {
			return gqlErr(t, fmt.Sprintf(`{ Get { %s(%s, diverseSelect: {candidates: 40}) { body } } }`, policyClass, healthNear(8)))
		}, `"candidates" is 40, above this collection's cap of 30 candidates (moduleConfig["diverse-select"].maxQueryCandidates)`},
		{"GraphQL argument: budget above the cap", func() error {
			return gqlErr(t, fmt.Sprintf(`{ Get { %s(%s, diverseSelect: {tokenBudget: 500}) { body } } }`, policyClass, healthNear(8)))
		}, `"tokenBudget" is 500, above this collection's cap of 80`},
	}...)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.err()
			t.Logf("%-45s -> %s", tc.name, cause(err))
			if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Errorf("error %v, want %q", err, tc.wantErr)
			}
		})
	}
}

// gqlErr is a GraphQL query's first error (nil: none).
func gqlErr(t testing.TB, query string) error {
	t.Helper()
	res := graphql(t, query, nil)
	if len(res.Errors) == 0 {
		return nil
	}
	return fmt.Errorf("%s", res.errText())
}

// cause is an error from the module without the handlers' prefixes (for
// the logs), "allowed" for nil.
func cause(err error) string {
	if err == nil {
		return "allowed"
	}
	s := err.Error()
	if i := strings.Index(s, "reranker-diverse-select: "); i >= 0 {
		return s[i:]
	}
	return s
}
