package integration

import (
	"math"
	"strconv"
	"sync"
	"testing"

	"github.com/weaviate/weaviate/entities/models"
)

// The corpora are built in the tests themselves: small, with planted
// near-duplicates (same text with tiny edits, hence near-identical hash
// vectors from the embedder) and distinct facts. Each is created once, on
// first use, so any single test can run alone (go test -run).

type corpusState struct {
	once sync.Once
	err  string
}

var corpora sync.Map // name -> *corpusState

// ensure runs setup once per name; later callers fail if it failed.
func ensure(t testing.TB, name string, setup func(t testing.TB)) {
	t.Helper()
	v, _ := corpora.LoadOrStore(name, &corpusState{})
	st := v.(*corpusState)
	st.once.Do(func() {
		st.err = "setting up corpus " + name + " failed (see the first test that used it)"
		setup(t)
		st.err = ""
	})
	if st.err != "" {
		t.Fatal(st.err)
	}
}

// ---- Health: text2vec-transformers, legacy vector -------------------------

// healthQuery is the nearText concept the Health corpus is built around.
const healthQuery = "statins cholesterol heart"

// healthDocs: group 1 (4 near-duplicates) and group 2 (3) are the most
// relevant to healthQuery; groups 10.. are distinct facts, 90.. unrelated.
var healthDocs = withNtok([]Doc{
	{Key: "g1a", Group: 1, Body: "Statins lower LDL cholesterol and cut the risk of heart attacks in adults with high cholesterol."},
	{Key: "g1b", Group: 1, Body: "Statins lower LDL cholesterol and cut the risk of heart attacks in adults with very high cholesterol."},
	{Key: "g1c", Group: 1, Body: "Statins lower LDL cholesterol and cut the risk of heart attack in adults with high cholesterol."},
	{Key: "g1d", Group: 1, Body: "Statins lower LDL cholesterol and cut the risk of heart attacks in older adults with high cholesterol."},
	{Key: "g2a", Group: 2, Body: "Statins cause muscle pain and weakness, the most common side effects reported for cholesterol drugs."},
	{Key: "g2b", Group: 2, Body: "Statins cause muscle pain and weakness, the most common side effects reported for cholesterol medicines."},
	{Key: "g2c", Group: 2, Body: "Statins cause muscle aches and weakness, the most common side effects reported for cholesterol drugs."},
	{Key: "d1", Group: 10, Body: "Grapefruit juice blocks an enzyme that breaks down some statins, raising their levels in the blood."},
	{Key: "d2", Group: 11, Body: "Statins can slightly raise blood sugar and the chance of developing type 2 diabetes."},
	{Key: "d3", Group: 12, Body: "Regular exercise and a diet low in saturated fat also lower cholesterol without drugs."},
	{Key: "d4", Group: 13, Body: "Doctors advise liver enzyme tests before a patient starts statin therapy."},
	{Key: "d5", Group: 14, Body: "Ezetimibe is added when statins alone do not bring LDL cholesterol down to target."},
	{Key: "d6", Group: 15, Body: "Heart disease remains the leading cause of death worldwide."},
	{Key: "d7", Group: 16, Body: "PCSK9 inhibitors are injected drugs that lower cholesterol in people who cannot tolerate statins."},
	{Key: "d8", Group: 17, Body: "Most statins are taken once a day, often in the evening."},
	{Key: "n1", Group: 90, Body: "The Amazon river carries more water than any other river on Earth."},
	{Key: "n2", Group: 91, Body: "Honeybees tell their hive where flowers are with a waggle dance."},
	{Key: "n3", Group: 92, Body: "Mount Everest grows a few millimetres taller every year."},
	{Key: "n4", Group: 93, Body: "Jupiter has the shortest day of all the planets in the solar system."},
})

// withNtok plants token counts in ntok for the tokenProperty test.
func withNtok(docs []Doc) []Doc {
	for i := range docs {
		docs[i].Props = map[string]any{"ntok": 7 + 3*i}
	}
	return docs
}

var healthIdx = index("Health", healthDocs)

// health returns the Health class, created and filled on first use.
func health(t testing.TB) string {
	t.Helper()
	ensure(t, "Health", func(t testing.TB) {
		createClass(t, &models.Class{
			Class:        "Health",
			Vectorizer:   "text2vec-transformers",
			ModuleConfig: transformers(),
			Properties:   bodyProps(),
		})
		importDocs(t, "Health", healthDocs)
	})
	return "Health"
}

// ---- Planted: vectorizer none, explicit vectors with planted relevances ----

const plantedDims = 96

// axis returns the unit vector along dimension i.
func axis(i int) []float64 {
	v := make([]float64, plantedDims)
	v[i] = 1
	return v
}

// planted returns a unit vector whose cosine to the query axis e0 is rel; the
// rest of it points along dir (normalised).
func planted(rel float64, dir []float64) []float32 {
	n := 0.0
	for _, x := range dir {
		n += x * x
	}
	n = math.Sqrt(n)
	s := math.Sqrt(1 - rel*rel)
	out := make([]float32, plantedDims)
	out[0] = float32(rel)
	for i, x := range dir {
		if i > 0 {
			out[i] += float32(s * x / n)
		}
	}
	return out
}

// mix returns a*x + b*y.
func mix(a float64, x []float64, b float64, y []float64) []float64 {
	out := make([]float64, len(x))
	for i := range x {
		out[i] = a*x[i] + b*y[i]
	}
	return out
}

// queryVector is the nearVector of every Planted scenario: the e0 axis.
func queryVector() string {
	return "[1" + repeat(",0", plantedDims-1) + "]"
}

func repeat(s string, n int) string {
	out := ""
	for i := 0; i < n; i++ {
		out += s
	}
	return out
}

// Planted scenarios (property scen), each queried with a where filter.
const (
	scenCliff    = 1
	scenRelcost  = 2
	scenClusters = 3
	scenOutside  = 4
	// scenOutsideWide: words bought far down in a pool whose ranking agrees
	// with the query's words.
	scenOutsideWide = 5
)

// cliffRelevances: a sharp drop after the 4th item (0.90 -> 0.50, 44%) and
// another after the 7th (0.47 -> 0.20).
var cliffRelevances = []float64{0.95, 0.93, 0.91, 0.90, 0.50, 0.48, 0.47, 0.20, 0.19}

// relcostLong is the most relevant but long chunk of the relcost scenario.
const relcostLong = "Statin therapy lowers low-density lipoprotein cholesterol through inhibition of HMG-CoA reductase in the liver, " +
	"which up-regulates hepatic LDL receptors and clears circulating particles; large randomised trials over five years " +
	"showed fewer heart attacks, strokes and cardiovascular deaths across risk groups, with benefits proportional to the absolute LDL reduction achieved."

func plantedDocs() []Doc {
	var docs []Doc
	item := 7 // per-item axes start here; 1..6 are cluster axes
	next := func() []float64 { item++; return axis(item - 1) }
	for i, r := range cliffRelevances {
		docs = append(docs, Doc{Key: "cliff" + itoa(i), Group: 100 + i, Body: "cliff item " + itoa(i),
			Props: map[string]any{"scen": scenCliff}, Vector: planted(r, next())})
	}
	docs = append(docs, Doc{Key: "long", Group: 200, Body: relcostLong, Props: map[string]any{"scen": scenRelcost}, Vector: planted(0.95, next())})
	for i, r := range []float64{0.90, 0.88, 0.86, 0.84} {
		docs = append(docs, Doc{Key: "short" + itoa(i), Group: 201 + i, Body: "Statins cut heart risk " + itoa(i) + ".",
			Props: map[string]any{"scen": scenRelcost}, Vector: planted(r, next())})
	}
	// Three clusters: A (5 items), B and C (3 each); inside a cluster the
	// vectors are nearly identical (cosine ~0.99), across clusters ~0.6.
	clusters := []struct {
		group int
		rels  []float64
	}{
		{301, []float64{0.80, 0.795, 0.79, 0.785, 0.78}},
		{302, []float64{0.76, 0.755, 0.75}},
		{303, []float64{0.74, 0.735, 0.73}},
	}
	for k, c := range clusters {
		for i, r := range c.rels {
			dir := mix(1, axis(1+k), 0.12, next())
			docs = append(docs, Doc{Key: "cl" + itoa(k) + "-" + itoa(i), Group: c.group, Body: "cluster " + itoa(k) + " item " + itoa(i),
				Props: map[string]any{"scen": scenClusters}, Vector: planted(r, dir)})
		}
	}
	// Words bought far down (outsideTerms): three relevant chunks of the
	// query's topic, fifteen less relevant ones without its words, and two
	// short ones far down, each naming one of its rarer words.
	docs = append(docs, outsideScenario(scenOutside, 400, next,
		outsideLayer{"out-rel", outsideRelevant, falling(0.95, 0.02)},
		outsideLayer{"out-fill", numbered("Filler paragraph", 15), falling(0.62, 0.015)},
		outsideLayer{"out-word", outsideWords, falling(0.2, 0)})...)
	// The same words bought far down in a pool wider than the query's topic,
	// where its ranking agrees with its words (outsideTerms "auto" reads
	// which): the three relevant chunks, four less relevant ones naming the
	// river, the two short ones, and eleven without the query's words below
	// them.
	docs = append(docs, outsideScenario(scenOutsideWide, 440, next,
		outsideLayer{"wide-rel", outsideRelevant, falling(0.95, 0.02)},
		outsideLayer{"wide-river", numbered("River notes", 4), falling(0.62, 0.015)},
		outsideLayer{"wide-word", outsideWords, falling(0.5, 0)},
		outsideLayer{"wide-fill", numbered("Filler paragraph", 11), falling(0.45, 0.015)})...)
	return docs
}

// outsideLayer is one band of an outsideTerms scenario's ranking: its
// chunks' keys (key plus position), texts and relevances.
type outsideLayer struct {
	key    string
	bodies []string
	rel    func(i int) float64
}

// outsideScenario is the Planted documents of one outsideTerms scenario,
// its layers in order, each document a group of its own from group on.
func outsideScenario(scen, group int, next func() []float64, layers ...outsideLayer) []Doc {
	var docs []Doc
	for _, l := range layers {
		for i, body := range l.bodies {
			docs = append(docs, Doc{Key: l.key + itoa(i), Group: group, Body: body,
				Props: map[string]any{"scen": scen}, Vector: planted(l.rel(i), next())})
			group++
		}
	}
	return docs
}

// falling is the relevance top - step*i of the i-th chunk of a layer.
func falling(top, step float64) func(int) float64 {
	return func(i int) float64 { return top - step*float64(i) }
}

// numbered is n chunks of outsideFiller headed "<head> <i>: ".
func numbered(head string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = head + " " + itoa(i) + ": " + outsideFiller
	}
	return out
}

// outsideWords are the short chunks far down of the outsideTerms
// scenarios, each naming one of the query's rarer words.
var outsideWords = []string{"A zygote, in brief.", "A quasar, in brief."}

// outsideQuery is the query text of the outsideTerms scenario.
const outsideQuery = "alpha river zygote quasar"

// outsideRelevant are its relevant chunks: the first two name the rarer
// words too.
var outsideRelevant = []string{
	"The Alpha river rises in the northern hills and runs south for two hundred miles; surveys of its delta list a zygote stage in the life of every fish that spawns there each spring.",
	"Along the Alpha river the night sky is dark enough that amateur astronomers log a distant quasar from the old ferry landing, and the river club keeps their notes in its small library.",
	"The Alpha river floods most years in late spring, when snow melts in the hills; the towns along its banks built levees after the great flood and still keep them in good repair.",
}

// outsideFiller is the text of its less relevant chunks.
const outsideFiller = "the county keeps records of roads, schools, markets and parks, with the budgets of each year, " +
	"the names of the council members and the minutes of every meeting since the hall was built."

var plantedAll = plantedDocs()

var plantedIdx = index("Planted", plantedAll)

func plantedClass(t testing.TB) string {
	t.Helper()
	ensure(t, "Planted", func(t testing.TB) {
		createClass(t, &models.Class{
			Class:      "Planted",
			Vectorizer: "none",
			Properties: bodyProps(&models.Property{Name: "scen", DataType: []string{"int"}}),
		})
		importDocs(t, "Planted", plantedAll)
	})
	return "Planted"
}

// scenario is the search arguments of one Planted scenario.
func scenario(s int) string {
	return "nearVector: {vector: " + queryVector() + "}, where: {path: [\"scen\"], operator: Equal, valueInt: " + itoa(s) + "}"
}

func itoa(i int) string { return strconv.Itoa(i) }
