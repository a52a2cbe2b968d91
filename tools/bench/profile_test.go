package main

import (
	"testing"

	"github.com/google/pprof/profile"
)

// TestBucketOf: a sample goes to the innermost frame a bucket names; a
// helper of the module's counts where it was called from, and only a
// module stack no other bucket names is the module's other work.
func TestBucketOf(t *testing.T) {
	bucket := func(name string) int {
		for i, b := range profileBuckets {
			if b.name == name {
				return i
			}
		}
		t.Fatalf("no bucket %q", name)
		return -1
	}
	const dd = "github.com/diverse-select/diverse-select/"
	for _, tc := range []struct {
		stack []string // leaf first
		want  int
	}{
		{[]string{dd + "simcache.dotAVX512", dd + "simcache.normalise", dd + "simcache.New", dd + "module.(*Module).problem"},
			bucket("packing and normalising the vectors")},
		{[]string{dd + "simcache.sumRowsAVX2", dd + "simcache.(*Engine).RowMeans", dd + "selectors/coverage.rowMeans"},
			bucket(profileBuckets[0].name)},
		{[]string{dd + "selectors/coverage.(*queryIndex).foundIn", dd + "selectors/coverage.scanTerms", dd + "internal/workshare.Run"},
			bucket("our features: query terms, title links, relevance, token counts and terms (feature cache)")},
		{[]string{"github.com/weaviate/weaviate/adapters/repos/db/lsmkv.(*Bucket).Get", dd + "module.(*Module).readByID"},
			bucket("object and vector loading (storage)")},
		{[]string{dd + "module.(*Module).selectResults", "github.com/weaviate/weaviate/usecases/traverser.(*Explorer).GetClass"},
			bucket(moduleWork)},
		{[]string{dd + "simcache.dotAVX512", dd + "module.(*Module).selectResults",
			"github.com/weaviate/weaviate/adapters/handlers/grpc/v1.(*Service).search"}, bucket(moduleWork)},
		{[]string{"runtime.futex", "net/http.(*conn).serve"}, bucket("response: GraphQL, JSON, gRPC, HTTP")},
		{[]string{"runtime.futex"}, len(profileBuckets)},
	} {
		s := &profile.Sample{}
		for _, name := range tc.stack {
			s.Location = append(s.Location, &profile.Location{Line: []profile.Line{{Function: &profile.Function{Name: name}}}})
		}
		if got := bucketOf(s); got != tc.want {
			t.Errorf("%v: bucket %d, want %d", tc.stack, got, tc.want)
		}
	}
}
