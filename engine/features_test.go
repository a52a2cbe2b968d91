package engine

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/go-openapi/strfmt"
	"github.com/stretchr/testify/require"
	"github.com/weaviate/weaviate/entities/models"
	"github.com/weaviate/weaviate/entities/search"

	"github.com/diverse-select/diverse-select/config"
	"github.com/diverse-select/diverse-select/selectors"
	"github.com/diverse-select/diverse-select/selectors/text"
	"github.com/diverse-select/diverse-select/simcache"
)

func docClass() *models.Class {
	return &models.Class{Class: "Doc", Properties: []*models.Property{{Name: "body", DataType: []string{"text"}}}}
}

// results are n search results of class Doc with bodies, vectors,
// distances and update times.
func results(n int, updated int64) []search.Result {
	rng := rand.New(rand.NewPCG(1, uint64(n)))
	words := strings.Fields("statins lower cholesterol muscle pain liver enzymes rarely rise doctors monitor patients closely")
	out := make([]search.Result, n)
	for i := range out {
		w := make([]string, 20+rng.IntN(40))
		for j := range w {
			w[j] = words[rng.IntN(len(words))]
		}
		v := make([]float32, 16)
		for j := range v {
			v[j] = float32(rng.NormFloat64())
		}
		out[i] = search.Result{ID: strfmt.UUID(fmt.Sprintf("00000000-0000-4000-8000-%012d", i)), ClassName: "Doc",
			Dist: float32(i) / float32(n), Vector: v, Updated: updated, Schema: map[string]any{"body": strings.Join(w, " ")}}
	}
	return out
}

// TestStageFeatureCache: the second query over the same objects takes token
// counts, terms and text from the cache and selects the same; an updated
// object misses; a cache of size 0 is off and selects the same too.
func TestStageFeatureCache(t *testing.T) {
	class := docClass()
	byName := func(string) *models.Class { return class }
	for _, tc := range []struct {
		args       map[string]any
		perObject  uint64 // cache lookups per object and query
		wantCached bool
	}{
		{map[string]any{"strategy": "knapsack", "tokenBudget": 300}, 1, true},
		{map[string]any{"strategy": "coverage", "tokenBudget": 300}, 1, true},
		{map[string]any{"strategy": "ngram", "tokenBudget": 300, "tokenizer": "words"}, 1, true},
		{map[string]any{"strategy": "adagres", "tokenBudget": 300}, 1, true},
		// chars counts are not cached (cheaper than a look-up), the text is:
		// a later query can then defer the candidates' properties.
		{map[string]any{"strategy": "adagres", "tokenBudget": 300, "tokenizer": "chars"}, 1, true},
		{map[string]any{"strategy": "knapsack", "concepts": "clusters", "tokenBudget": 300, "tokenizer": "chars"}, 1, true},
	} {
		t.Run(fmt.Sprint(tc.args), func(t *testing.T) {
			m := New(byName)
			in := results(40, 1000)
			first, err := runHook(t, m, in, tc.args)
			require.NoError(t, err)
			s := m.features.Stats()
			require.Equal(t, uint64(0), s.Hits)
			require.Equal(t, 40*tc.perObject, s.Misses)
			second, err := runHook(t, m, in, tc.args)
			require.NoError(t, err)
			require.Equal(t, ids(first), ids(second))
			s = m.features.Stats()
			require.Equal(t, 40*tc.perObject, s.Hits)
			if tc.wantCached {
				in[3].Updated = 2000 // object 3 changed
				_, err = runHook(t, m, in, tc.args)
				require.NoError(t, err)
				s = m.features.Stats()
				require.Equal(t, 41*tc.perObject, s.Misses, "only the updated object misses")
				require.Equal(t, 79*tc.perObject, s.Hits)
			}
			off := New(byName)
			off.features = nil
			third, err := runHook(t, off, in, tc.args)
			require.NoError(t, err)
			require.Equal(t, ids(first), ids(third), "the cache changes nothing but speed")
		})
	}
}

func ids(rs []search.Result) []strfmt.UUID {
	out := make([]strfmt.UUID, len(rs))
	for i, r := range rs {
		out[i] = r.ID
	}
	return out
}

// TestStageCaps: the candidate cap and the matrix memory cap are clear errors.
func TestStageCaps(t *testing.T) {
	class := docClass()
	m := New(func(string) *models.Class { return class })
	m.defaults.MaxCandidates = 50
	_, err := runHook(t, m, results(51, 1), map[string]any{"strategy": "adagres"})
	require.ErrorContains(t, err, "51 candidates exceed the module's cap of 50 (DIVERSE_SELECT_MAX_CANDIDATES)")
	_, err = runHook(t, m, results(50, 1), map[string]any{"strategy": "adagres"})
	require.NoError(t, err)

	m.defaults.MaxCandidates = 2000
	m.defaults.MaxMatrixMB = 1 // 1 MiB: 512 candidates fit one float32 matrix, 600 do not
	_, err = runHook(t, m, results(600, 1), map[string]any{"strategy": "facility"})
	require.ErrorContains(t, err, `strategy "facility" needs 1.4 MiB of N x N matrices for 600 candidates, above the cap of 1.0 MiB`)
	_, err = runHook(t, m, results(512, 1), map[string]any{"strategy": "facility"})
	require.NoError(t, err)
	_, err = runHook(t, m, results(600, 1), map[string]any{"strategy": "mmr"})
	require.NoError(t, err, "rows only: no matrix")
}

// TestFeatureCacheTermHashes: a strategy that reads the analysed terms gets
// their hashes with them, and the cache entry keeps both; the next query
// takes both from the entry as they are (no new entry, the candidates'
// hashes are the entry's); an entry that holds terms without hashes gets
// them added. Strategies that do not read terms get neither.
func TestFeatureCacheTermHashes(t *testing.T) {
	class := docClass()
	for _, tc := range []struct {
		args      map[string]any
		wantTerms bool
	}{
		{map[string]any{"tokenBudget": 300}, true}, // the default strategy, coverage
		{map[string]any{"strategy": "knapsack", "tokenBudget": 300}, true},
		{map[string]any{"strategy": "mmr", "tokenBudget": 300}, false},
	} {
		t.Run(fmt.Sprint(tc.args), func(t *testing.T) {
			in, features, problem := cachedProblems(t, class, tc.args)
			first := problem()
			entries := make([]*simcache.Features, len(in))
			for i, c := range first.Candidates {
				entries[i] = features.lookup(&in[i])
				require.NotNil(t, entries[i], "candidate %d cached", i)
				if !tc.wantTerms {
					require.Nil(t, c.Terms)
					require.Nil(t, c.TermHashes)
					continue
				}
				require.NotEmpty(t, c.Terms)
				require.Equal(t, text.TermHashes(nil, c.Terms), c.TermHashes, "candidate %d", i)
				require.Equal(t, c.Terms, entries[i].Terms)
				require.Equal(t, c.TermHashes, entries[i].TermHashes)
			}
			require.NoError(t, first.Validate())

			second := problem()
			for i, c := range second.Candidates {
				require.Same(t, entries[i], features.lookup(&in[i]), "candidate %d: the entry is not replaced", i)
				if tc.wantTerms {
					require.Same(t, &entries[i].TermHashes[0], &c.TermHashes[0], "candidate %d: the cached hashes", i)
				}
			}

			// An entry with the terms but without their hashes (as a
			// version of the module before them stored it) gets them.
			old := *entries[0]
			old.TermHashes = nil
			features.cache.Put(mustKey(t, features, &in[0]), &old)
			third := problem()
			if tc.wantTerms {
				require.Equal(t, entries[0].TermHashes, third.Candidates[0].TermHashes)
				require.Equal(t, entries[0].TermHashes, features.lookup(&in[0]).TermHashes)
			}
		})
	}
}

func mustKey(t *testing.T, f *featureSource, res *search.Result) simcache.FeatureKey {
	t.Helper()
	k, ok := f.key(res)
	require.True(t, ok)
	return k
}

// TestFeatureKeyVersions: the cache key tells versions apart by update time
// and doc id, and an object written within the settle time is not cached at
// all (another write in the same millisecond would share its key).
func TestFeatureKeyVersions(t *testing.T) {
	class := docClass()
	m := New(func(string) *models.Class { return class })
	m.defaults.FeatureCacheSettle = time.Minute
	pl, err := m.newPlan(class, routeArgument, nil, searchFromArgs(nil))
	require.NoError(t, err)
	f := m.featureSource(pl, nil)
	f.cache = simcache.NewFeatureCache(1 << 20)
	now := time.Now().UnixMilli()
	doc := func(id uint64) *uint64 { return &id }
	old := now - 2*time.Minute.Milliseconds()
	for _, tc := range []struct {
		name    string
		updated int64
		docID   *uint64
		keyed   bool
	}{
		{"settled", old, doc(7), true},
		{"written within the settle time", now - 1000, doc(7), false},
		{"no update time", 0, doc(7), false},
		{"no doc id", old, nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := &search.Result{ID: "00000000-0000-0000-0000-000000000001", ClassName: "Doc", Updated: tc.updated, DocID: tc.docID}
			k, ok := f.key(res)
			require.Equal(t, tc.keyed, ok)
			if ok && tc.docID != nil {
				require.Equal(t, *tc.docID, k.DocID)
				other := *res
				other.DocID = doc(*tc.docID + 1)
				k2, _ := f.key(&other)
				require.NotEqual(t, k, k2, "a new doc id is a new key")
			}
		})
	}
}

// cachedProblems builds, for 40 candidates of class, the problem of a query
// with args as often as problem is called, over one feature cache that
// features reads.
func cachedProblems(t *testing.T, class *models.Class, args map[string]any) ([]search.Result, *featureSource, func() *selectors.Problem) {
	t.Helper()
	m := New(func(string) *models.Class { return class })
	query, err := config.Parse(args, m.defaults.Limits)
	require.NoError(t, err)
	p, err := m.newPlan(class, routeArgument, query, searchFacts{relevance: fromOrder, queryText: "statin liver pain"})
	require.NoError(t, err)
	in := results(40, 1000)
	problem := func() *selectors.Problem {
		prob, _, _, err := m.buildProblem(context.Background(), p, in, nil)
		require.NoError(t, err)
		if e, ok := prob.Similarities.(interface{ Release() }); ok {
			e.Release() // the test reads the candidates only
		}
		return prob
	}
	return in, m.featureSource(p, nil), problem
}
