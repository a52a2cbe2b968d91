package integration

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/weaviate/weaviate/entities/models"
	pb "github.com/weaviate/weaviate/grpc/generated/protocol/v1"

	dsclient "github.com/diverse-select/diverse-select/clients/go"
	"github.com/diverse-select/diverse-select/integration/stack"
	"github.com/diverse-select/diverse-select/selectors/sentences"
)

// Evidence cards (issue 16) against the real server: the class turns cards
// on, a query turns them off or resizes them; the card comes back in
// _additional.diverseSelect.evidence and in place of the body on both
// GraphQL forms and over gRPC (Go client), generate gets the cards and
// nothing else, and the stored objects are unchanged.

const cardsClass = "CardDocs"

const cardsQuery = "statins muscle pain"

// cardsDocs are chunks of four sentences: a lead naming the chunk, one on
// the query, two that are not.
var cardsDocs = func() []Doc {
	topics := []struct{ lead, fact, filler string }{
		{"The Helsinki cohort followed 4,000 adults for ten years.", "Statins caused muscle pain in 9% of its patients.", "Most participants lived in the capital region."},
		{"Dr. Ortega's review covers 31 trials of cholesterol drugs.", "Muscle pain on statins was rarely confirmed in blinded arms.", "The trials were published between 1994 and 2019."},
		{"A Danish registry study linked prescriptions to hospital records.", "Statin users reported muscle pain slightly more often than others.", "The registry started in 1977 and covers the whole country."},
		{"Coenzyme Q10 is a vitamin-like substance made by the body.", "Supplements were tried against statin muscle pain with mixed results.", "It is sold in health food shops in capsules."},
		{"Vitamin D levels fall in winter in northern countries.", "Low vitamin D may make statin muscle pain more likely.", "Sunlight on the skin produces most of it in summer."},
		{"Rhabdomyolysis is a rare breakdown of muscle tissue.", "Statins cause it in about one in 10,000 patients a year, with severe muscle pain.", "It was first described after earthquake injuries."},
		{"The nocebo effect is harm caused by expecting harm.", "Patients told about statin muscle pain report it more often.", "The word was coined in 1961 as the opposite of placebo."},
		{"Exercise physiologists measure strength with a dynamometer.", "Statin users who train hard report more muscle pain after exertion.", "The device was invented in the eighteenth century."},
		{"Grapefruit juice blocks an enzyme in the gut wall.", "It raises some statins' levels and with them the risk of muscle pain.", "Grapefruit was first bred in Barbados."},
		{"Pharmacists check drug interactions at every new prescription.", "They flag combinations that raise the risk of statin muscle pain.", "Most pharmacies now use software for it."},
		{"Genetic testing can find a variant of the SLCO1B1 gene.", "Carriers of it get statin muscle pain more often on simvastatin.", "The gene makes a transporter in the liver."},
		{"Switching to another statin is a common first step.", "Many patients with muscle pain tolerate a second statin well.", "Doctors also lower the dose or give it every other day."},
	}
	docs := make([]Doc, len(topics))
	for i, tp := range topics {
		body := fmt.Sprintf("%s %s %s The report ends with a list of references and thanks to the staff of the unit.", tp.lead, tp.fact, tp.filler)
		docs[i] = Doc{Key: fmt.Sprintf("c%d", i), Group: 10 + i, Body: body}
	}
	return docs
}()

// cardsSelection is the class's config: cards on, within 150 tokens.
var cardsSelection = map[string]any{"strategy": "coverage", "tokenBudget": 150, "textProperty": "body", "evidence": "cards"}

func cardsCorpus(t testing.TB) {
	cardsCorpusWith(t, cardsClass, map[string]any{"generative-dummy": map[string]any{}})
}

// cardsCorpusWith (re)creates the corpus in class with the given generative module.
func cardsCorpusWith(t testing.TB, class string, generative map[string]any) {
	t.Helper()
	ensure(t, class, func(t testing.TB) {
		createClass(t, &models.Class{Class: class, Vectorizer: "text2vec-transformers",
			ModuleConfig: selectionWith(cardsSelection, generative), Properties: bodyProps()})
		importDocs(t, class, cardsDocs)
	})
}

func cardsNear(limit int) string {
	return fmt.Sprintf("nearText: {concepts: [%q]}, limit: %d", cardsQuery, limit)
}

// storedBodies are the bodies as stored, by id.
func storedBodies(t testing.TB, class string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, h := range get(t, class, fmt.Sprintf("{ Get { %s(limit: 100) { body _additional { id } } } }", class), nil) {
		out[h.ID] = h.Str("body")
	}
	return out
}

// checkCards asserts that every hit is a card of its stored body: the
// returned body is the card of _additional, shorter than the body, made of
// its sentences (the lead first), within the budget in tokens.
func checkCards(t *testing.T, hits []Hit, stored map[string]string, budget, maxSentences int) {
	t.Helper()
	if len(hits) == 0 {
		t.Fatal("nothing selected")
	}
	used := 0
	for _, h := range hits {
		body, whole := h.Str("body"), stored[h.ID]
		if h.DS == nil || h.DS.Evidence == nil {
			t.Fatalf("%s: no evidence card", h.ID)
		}
		card := *h.DS.Evidence
		if body != card {
			t.Errorf("%s: the returned body %q is not the card %q", h.ID, body, card)
		}
		// The card is some of the body's sentences, in text order, the lead first.
		var kept []string
		for _, sp := range sentences.Sentences(whole) {
			if sentence := whole[sp.Start:sp.End]; strings.Contains(card, sentence) {
				kept = append(kept, sentence)
			}
		}
		if strings.Join(kept, " ") != card || len(kept) > maxSentences || !strings.HasPrefix(whole, card[:min(len(card), 20)]) {
			t.Errorf("%s: card %q is not the lead and at most %d more of the sentences of %q", h.ID, card, maxSentences-1, whole)
		}
		if got := cl100k(t, card); h.DS.Tokens < got-2 || h.DS.Tokens > got+2 {
			t.Errorf("%s: tokens %d, the card counts %d", h.ID, h.DS.Tokens, got)
		}
		used += h.DS.Tokens
	}
	if used > budget {
		t.Errorf("%d tokens selected, budget %d", used, budget)
	}
}

// TestEvidenceCards: per collection, per query in both GraphQL forms, and
// the whole chunks when a query turns cards off; more distinct chunks fit
// the budget with cards.
func TestEvidenceCards(t *testing.T) {
	cardsCorpus(t)
	stored := storedBodies(t, cardsClass)
	props := "body"
	ds := dsFields + " evidence"
	argQ := func(diverse string) string {
		return strings.Replace(sel(cardsClass, cardsNear(12), "candidates: 12"+diverse, props), "diverseSelect { "+dsFields, "diverseSelect { "+ds, 1)
	}
	fieldQ := func(diverse string) string {
		return strings.Replace(field(cardsClass, cardsNear(12), diverse, props), " { "+dsFields, " { "+ds, 1)
	}
	var withCards, whole int
	for _, tc := range []struct {
		name, query  string
		cards        bool
		maxSentences int
	}{
		{"argument, class config", argQ(""), true, 3},
		{"field, class config", fieldQ(""), true, 3},
		{"argument, one sentence", argQ(`, evidenceSentences: 1`), true, 1},
		{"field, one sentence", fieldQ(`evidenceSentences: 1`), true, 1},
		{"argument, off", argQ(`, evidence: "off"`), false, 0},
		{"field, off", fieldQ(`evidence: "off"`), false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hits := get(t, cardsClass, tc.query, nil)
			checkSelection(t, hits, 150, true)
			if !tc.cards {
				for _, h := range hits {
					if h.DS.Evidence != nil || h.Str("body") != stored[h.ID] {
						t.Errorf("%s: card %v or body %q with evidence off", h.ID, h.DS.Evidence, h.Str("body"))
					}
				}
				whole = len(hits)
				return
			}
			checkCards(t, hits, stored, 150, tc.maxSentences)
			if tc.maxSentences == 3 {
				withCards = len(hits)
			}
		})
	}
	if withCards <= whole {
		t.Errorf("%d chunks selected with cards, %d whole: cards should fit more in the budget", withCards, whole)
	}
	t.Logf("within 150 tokens: %d cards, %d whole chunks", withCards, whole)
	for _, bad := range []struct{ arg, want string }{
		{`evidence: "yes"`, `"evidence" is "yes"; allowed: off, auto, cards`},
		{`evidenceSentences: 0`, `"evidenceSentences" must be an integer in [1, 64]`},
		{`evidenceMaxWords: -3`, `"evidenceMaxWords" must be an integer in [0, 100000]`},
	} {
		for _, q := range []string{argQ(", " + bad.arg), fieldQ(bad.arg)} {
			if msg := gqlError(t, q, nil); !strings.Contains(msg, bad.want) {
				t.Errorf("%s: error %q, want %q", bad.arg, msg, bad.want)
			}
		}
	}
	if after := storedBodies(t, cardsClass); !mapsEqual(after, stored) || len(after) != len(cardsDocs) {
		t.Errorf("the stored objects changed")
	}
}

// TestEvidenceCardsGenerate: generate gets the cards, in selection order,
// and nothing else - the grouped task's prompt and each single prompt, on
// both GraphQL forms and over gRPC generative search with the rerank route,
// with generative-dummy (which answers with its prompt) and generative-openai
// on the local recorder (which keeps the exact messages).
func TestEvidenceCardsGenerate(t *testing.T) {
	rec, err := stack.StartOpenAIRecorder()
	if err != nil {
		t.Fatalf("OpenAI recorder: %v", err)
	}
	t.Cleanup(func() { rec.Close() })
	cardsCorpus(t)
	const openaiClass = "CardDocsOpenAI"
	cardsCorpusWith(t, openaiClass, map[string]any{"generative-openai": map[string]any{"baseURL": rec.URL, "model": stack.RecorderModel}})
	for _, b := range []struct {
		class string
		check ragCheck
	}{{cardsClass, ragCheck{backend: "dummy"}}, {openaiClass, ragCheck{backend: "openai", rec: rec}}} {
		t.Run(b.check.backend, func(t *testing.T) { cardsGenerate(t, b.class, b.check) })
	}
}

func cardsGenerate(t *testing.T, class string, check ragCheck) {
	stored := storedBodies(t, class)
	gen := func(tag string) string {
		return fmt.Sprintf(`generate(singleResult: {prompt: %q}, groupedResult: {task: %q, properties: ["body"]}) { singleResult groupedResult error }`,
			singlePrompt(tag), groupedTask(tag))
	}
	queries := map[string]func(gen string) string{
		"argument": func(gen string) string {
			return fmt.Sprintf(`{ Get { %s(%s, diverseSelect: {candidates: 12}) { body _additional { id diverseSelect { evidence } %s } } } }`, class, cardsNear(12), gen)
		},
		"field": func(gen string) string {
			return fmt.Sprintf(`{ Get { %s(%s) { body _additional { id diverseSelect { evidence } %s } } } }`, class, cardsNear(12), gen)
		},
	}
	cardsOf := func(t *testing.T, form string) []string {
		var cards []string
		for _, h := range get(t, class, queries[form](""), nil) {
			if h.DS == nil || h.DS.Evidence == nil {
				t.Fatalf("%s: no card", h.ID)
			}
			cards = append(cards, *h.DS.Evidence)
		}
		if len(cards) < 2 || len(cards) >= len(cardsDocs) {
			t.Fatalf("%d cards of %d chunks selected; the test needs a selection that drops some", len(cards), len(cardsDocs))
		}
		return cards
	}
	checkPrompts := func(t *testing.T, tag string, got ragReply, cards []string) {
		t.Helper()
		groupedWhy, singleWhy := check.check(tag, got, cards)
		if groupedWhy != "" || singleWhy != "" {
			t.Errorf("grouped task: %s; single prompts: %s", groupedWhy, singleWhy)
		}
	}
	for _, form := range []string{"argument", "field"} {
		t.Run(form, func(t *testing.T) {
			cards := cardsOf(t, form)
			tag := "cards-" + form
			got, err := graphqlRAG(t, class, queries[form](gen(tag)))
			if err != nil {
				t.Fatal(err)
			}
			checkPrompts(t, tag, got, cards)
		})
	}
	t.Run("gRPC", func(t *testing.T) {
		req := func(tag string, settings dsclient.Options) *pb.SearchRequest {
			q := cardsQuery
			r := &pb.SearchRequest{
				Collection: class, Limit: 12,
				NearText:    &pb.NearTextSearch{Query: []string{cardsQuery}},
				Rerank:      &pb.Rerank{Property: rerankProperty(t, "body", settings), Query: &q},
				Properties:  &pb.PropertiesRequest{NonRefProperties: []string{"body"}},
				Metadata:    &pb.MetadataRequest{Uuid: true},
				Uses_123Api: true, Uses_125Api: true, Uses_127Api: true,
			}
			if tag != "" {
				r.Generative = &pb.GenerativeSearch{
					Single:  &pb.GenerativeSearch_Single{Prompt: singlePrompt(tag)},
					Grouped: &pb.GenerativeSearch_Grouped{Task: groupedTask(tag), Properties: &pb.TextArray{Values: []string{"body"}}},
				}
			}
			return r
		}
		// The rerank route's config is the class's, the same as diverse-select's here.
		cards := cardsOf(t, "field")
		selection, err := grpcRAG(t, req("", dsclient.Options{}))
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(selection.Bodies, cards) {
			t.Fatalf("gRPC returned bodies %q, want the cards %q", selection.Bodies, cards)
		}
		got, err := grpcRAG(t, req("cards-grpc", dsclient.Options{}))
		if err != nil {
			t.Fatal(err)
		}
		checkPrompts(t, "cards-grpc", got, cards)
		// Per query over gRPC: the settings in the rerank property turn cards off.
		whole, err := grpcRAG(t, req("", dsclient.Options{Evidence: "off"}))
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range whole.Bodies {
			if !slices.Contains(mapValues(stored), b) {
				t.Errorf("with evidence off over gRPC, body %q is not a stored body", b)
			}
		}
		if len(whole.Bodies) == 0 || len(whole.Bodies) >= len(cards) {
			t.Errorf("%d whole chunks over gRPC, %d cards: cards should fit more", len(whole.Bodies), len(cards))
		}
	})
	if after := storedBodies(t, class); !mapsEqual(after, stored) {
		t.Errorf("the stored objects changed")
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func mapValues(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

// TestREADMEEvidenceCards posts the README's "Evidence cards" query as
// written (on this corpus's class): auto makes cards at this budget, and the
// grouped answer of generative-dummy holds the cards.
func TestREADMEEvidenceCards(t *testing.T) {
	cardsCorpus(t)
	query := strings.Replace(docGraphQL(t, "docs/evidence-cards.md", "Evidence cards"), "Article(", cardsClass+"(", 1)
	res := graphql(t, query, nil)
	if len(res.Errors) > 0 {
		t.Fatalf("README query: %s", res.errText())
	}
	objs := res.Data.Get[cardsClass]
	if len(objs) < 2 {
		t.Fatalf("%d objects selected", len(objs))
	}
	var cards []string
	var grouped string
	for i, o := range objs {
		add := o["_additional"].(map[string]any)
		card, _ := add["diverseSelect"].(map[string]any)["evidence"].(string)
		if card == "" || o["body"] != card {
			t.Fatalf("object %d: card %q, body %q", i, card, o["body"])
		}
		cards = append(cards, card)
		gen, _ := add["generate"].(map[string]any)
		if g, ok := gen["groupedResult"].(string); ok {
			grouped = g
		}
	}
	// Without groupedResult properties the prompt holds every returned
	// property: the body is the card, the int grp comes along.
	prompt, ok := stack.DummyPrompt(grouped)
	_, objects, ok2 := strings.Cut(prompt, "go away?: ")
	var got []map[string]any
	if !ok || !ok2 || json.Unmarshal([]byte(objects), &got) != nil {
		t.Fatalf("grouped prompt %.300q: not the task and the objects", prompt)
	}
	var bodies []string
	for _, o := range got {
		bodies = append(bodies, fmt.Sprint(o["body"]))
	}
	if !slices.Equal(bodies, cards) {
		t.Errorf("the grouped prompt's bodies %q, want the cards %q", bodies, cards)
	}
}
