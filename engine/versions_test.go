package engine

import (
	"testing"

	"github.com/go-openapi/strfmt"
	"github.com/stretchr/testify/require"
	"github.com/weaviate/weaviate/entities/search"
)

// TestTakeVersion: an object read again by id stands in for the search's
// result when it is the version the search returned, or a newer one after a
// search without a filter (then the result takes its version); after a
// filtered search a changed object is dropped, and a deleted one always.
func TestTakeVersion(t *testing.T) {
	doc := func(n uint64) *uint64 { return &n }
	const id = strfmt.UUID("00000000-0000-0000-0000-000000000001")
	found := search.Result{ID: id, Updated: 100, DocID: doc(7)}
	for _, tc := range []struct {
		name     string
		filtered bool
		read     search.Result
		ok       bool
		taken    int64 // the result's update time afterwards
	}{
		{"same version", false, search.Result{ID: id, Updated: 100, DocID: doc(7)}, true, 100},
		{"same version, filtered", true, search.Result{ID: id, Updated: 100, DocID: doc(7)}, true, 100},
		{"newer, no filter", false, search.Result{ID: id, Updated: 200, DocID: doc(7)}, true, 200},
		{"newer, filtered", true, search.Result{ID: id, Updated: 200, DocID: doc(7)}, false, 100},
		{"new vector (doc id), filtered", true, search.Result{ID: id, Updated: 100, DocID: doc(8)}, false, 100},
		{"deleted", false, search.Result{}, false, 100},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := found
			require.Equal(t, tc.ok, takeVersion(tc.filtered, &res, tc.read))
			require.Equal(t, tc.taken, res.Updated)
		})
	}
}
