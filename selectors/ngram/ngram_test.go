package ngram

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/diverse-select/diverse-select/selectors"
	"github.com/diverse-select/diverse-select/selectors/internal/testprob"
	"github.com/diverse-select/diverse-select/selectors/internal/textprob"
)

func run(t *testing.T, params map[string]any, p *selectors.Problem) *selectors.Result {
	return testprob.MustRun(t, Name, params, p)
}

// The hand example, N = 3:
//
//	d0 "statin muscle pain"  terms statin muscl pain; 6 n-grams:
//	   statin, muscl, pain, statin_muscl, muscl_pain, statin_muscl_pain
//	d1 "statins, muscles"    terms statin muscl; 3 n-grams: statin, muscl, statin_muscl
//	d2 "liver enzymes"       terms liver enzym; 3 n-grams: liver, enzym, liver_enzym
//
// df 2 for statin, muscl, statin_muscl: w = log(4/3) = 0.28768; df 1 for the
// rest: w = log(4/2) = 0.69315. g_cov: d0 3*0.28768 + 3*0.69315 = 2.94248,
// d1 3*0.28768 = 0.86305, d2 3*0.69315 = 2.07944.
//
// BM25 for the query "statin liver" (dl 3, 2, 2; avgdl 7/3):
// idf(statin) = log((3-2+0.5)/(2+0.5)+1) = log 1.6 = 0.47000,
// idf(liver)  = log((3-1+0.5)/(1+0.5)+1) = log 2.6667 = 0.98083;
// tf part for dl 3: 2.2/(1+1.2*(0.25+0.75*3/(7/3))) = 2.2/2.45714 = 0.89535,
// for dl 2: 2.2/(1+1.2*(0.25+0.75*2/(7/3))) = 2.2/2.07143 = 1.06207.
// BM25: d0 0.47000*0.89535 = 0.42082, d1 0.47000*1.06207 = 0.49918,
// d2 0.98083*1.06207 = 1.04171.
//
// Sources: d0 and d1 share host a.org (case and port differ); d2 has none.
// Step 1: d0 2.94248+0.4*0.42082+0.2*1 = 3.31081, d1 0.86305+0.19967+0.2 =
// 1.26272, d2 2.07944+0.41668+0 = 2.49613: take d0. Step 2: d1's n-grams are
// all covered (redundancy 0.86305) and a.org has one item: d1 = 0 + 0.19967 +
// 0.2/2 = 0.29967 < d2 = 2.49613: take d2, then d1.
func handProblem() *selectors.Problem {
	return &selectors.Problem{
		Query: "statin liver",
		Candidates: []selectors.Candidate{
			{Text: "statin muscle pain", Relevance: 0.9, Tokens: 1, Source: "https://a.org/x"},
			{Text: "statins, muscles", Relevance: 0.8, Tokens: 1, Source: "HTTPS://A.org:8080/y"},
			{Text: "liver enzymes", Relevance: 0.5, Tokens: 1},
		},
	}
}

func TestHandExample(t *testing.T) {
	w1, w2 := math.Log(4.0/3), math.Log(2)
	idfStatin, idfLiver := math.Log(1.6), math.Log(2.5/1.5+1)
	tf := func(dl float64) float64 { return 2.2 / (1 + 1.2*(0.25+0.75*dl/(7.0/3))) }
	bm := []float64{idfStatin * tf(3), idfStatin * tf(2), idfLiver * tf(2)}
	// Check the arithmetic spelled out above, then the strategy against it.
	assert.InDelta(t, 0.42082, bm[0], 1e-5)
	assert.InDelta(t, 0.49918, bm[1], 1e-5)
	assert.InDelta(t, 1.04171, bm[2], 1e-5)
	want := []float64{3*w1 + 3*w2 + 0.4*bm[0] + 0.2, 3*w2 + 0.4*bm[2], 0.4*bm[1] + 0.1}
	assert.InDelta(t, 3.31081, want[0], 1e-5)

	res := run(t, nil, handProblem())
	assert.Equal(t, []int{0, 2, 1}, res.Indices())
	for i, it := range res.Items {
		assert.InDelta(t, want[i], it.Gain, 1e-9, "gain %d", i)
	}
	assert.InDelta(t, 3*w1, res.Items[2].Redundancy, 1e-9)
	assert.InDelta(t, want[0]+want[1]+want[2], res.Objective, 1e-9)
	assert.Equal(t, 1.0, res.Stats["bm25"])
	assert.Equal(t, 2.0, res.Stats["queryTerms"])
	assert.Equal(t, 9.0, res.Stats["ngrams"])
	assert.InDelta(t, 7.0/3, res.Stats["avgdl"], 1e-12)
}

func TestVariants(t *testing.T) {
	w1, w2 := math.Log(4.0/3), math.Log(2)
	tests := []struct {
		name   string
		params map[string]any
		edit   func(p *selectors.Problem)
		want   []int
		gain0  float64
	}{
		// Without query BM25 is r_d: d0 2.94248 + 0.4*0.9 + 0.2.
		{"no query uses relevance", nil, func(p *selectors.Problem) { p.Query = "" }, []int{0, 2, 1}, 3*w1 + 3*w2 + 0.36 + 0.2},
		// Only stopwords: no query term is left, same as no query.
		{"stopword query", nil, func(p *selectors.Problem) { p.Query = "the of and" }, []int{0, 2, 1}, 3*w1 + 3*w2 + 0.36 + 0.2},
		// Novelty only: d0 and d1 score 1, d2 0; tie by relevance; then a.org
		// is taken and d1 scores 0.5 > 0.
		{"novelty only", map[string]any{"alpha": 0.0, "beta": 0.0, "gamma": 1.0}, nil, []int{0, 1, 2}, 1},
		{"k caps", map[string]any{"k": 1}, nil, []int{0}, 0},
		{"maxResults below k", nil, func(p *selectors.Problem) { p.MaxResults = 2 }, []int{0, 2}, 0},
		{"budget", nil, func(p *selectors.Problem) { p.Candidates[2].Tokens = 5; p.Budget = 3 }, []int{0, 1}, 0},
		{"budget below every item", nil, func(p *selectors.Problem) {
			p.Budget = 1
			p.Candidates[0].Tokens = 2
			p.Candidates[1].Tokens = 2
			p.Candidates[2].Tokens = 2
		}, []int{}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := handProblem()
			if tc.edit != nil {
				tc.edit(p)
			}
			res := run(t, tc.params, p)
			assert.Equal(t, tc.want, append([]int{}, res.Indices()...))
			if tc.gain0 != 0 {
				assert.InDelta(t, tc.gain0, res.Items[0].Gain, 1e-9)
			}
		})
	}
}

func TestHost(t *testing.T) {
	tests := []struct{ in, want string }{
		{"https://Example.org/a?b", "example.org"},
		{"http://example.org:8080/", "example.org"},
		{"HTTP://[::1]:80/x", "::1"},
		{"example.org/a", "example.org/a"}, // not absolute: the string itself
		{"doc-7.pdf", "doc-7.pdf"},
		{"mailto:someone@example.org", "mailto:someone@example.org"}, // no host
		{"http://[::1", "http://[::1"},                               // does not parse
		{"file:///tmp/x", "file:///tmp/x"},
	}
	for _, tc := range tests {
		assert.Equal(t, tc.want, Host(tc.in), tc.in)
	}
}

func TestEmptyTexts(t *testing.T) {
	p := &selectors.Problem{Candidates: []selectors.Candidate{{Tokens: 1, Relevance: 0.2}, {Tokens: 1, Relevance: 0.7}}}
	res := run(t, nil, p)
	assert.Equal(t, []int{1, 0}, res.Indices(), "no text, no query: relevance decides")
}

func TestProperties(t *testing.T) {
	textprob.CheckProperties(t, Name, nil, 0, 0)
	textprob.CheckProperties(t, Name, map[string]any{"alpha": 0.0, "gamma": 3.0, "k": 2}, 0, 0)
}

func FuzzNgram(f *testing.F) {
	f.Add([]byte{}, 1.0, 0.4, 0.2)
	f.Add([]byte{2, 5, 2, 3, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14}, 0.0, 0.0, 0.0)
	f.Add([]byte{3, 9, 3, 9, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, 1e300, 1e300, 1e300)
	f.Add([]byte{1, 9, 3, 0, 2, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xf8, 0x7f, 0, 0, 0}, 1.0, 0.4, 0.2)
	f.Fuzz(func(t *testing.T, data []byte, alpha, beta, gamma float64) {
		params := map[string]any{"alpha": alpha, "beta": beta, "gamma": gamma}
		if _, err := selectors.New(Name, params); err != nil {
			params = nil // negative or non-finite weights: the parameter check answers
		}
		if err := textprob.Fuzz(Name, params, data); err != nil {
			t.Fatal(err)
		}
	})
}
