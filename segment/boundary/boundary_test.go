package boundary

import (
	"math"
	"testing"
)

func TestMetrics(t *testing.T) {
	for _, tc := range []struct {
		name       string
		ref, hyp   []int
		n, k, tol  int
		pk, wd, f1 float64
	}{
		{"exact", []int{5, 10}, []int{5, 10}, 15, 2, 0, 0, 0, 1},
		{"none found", []int{5, 10}, nil, 15, 2, 0, 4.0 / 13, 4.0 / 13, 0},
		// a boundary one unit late: two windows of k=2 see it differently
		{"one off", []int{5}, []int{6}, 10, 2, 0, 2.0 / 8, 2.0 / 8, 0},
		{"one off, tolerance 1", []int{5}, []int{6}, 10, 2, 1, 2.0 / 8, 2.0 / 8, 1},
		// an extra boundary right after a true one: Pk misses it, WindowDiff does not
		{"extra", []int{5}, []int{5, 6}, 10, 2, 0, 1.0 / 8, 2.0 / 8, 2.0 / 3},
		// k from the reference: 12 units, 2 segments, k = 3
		{"default k", []int{6}, []int{6}, 12, 0, 0, 0, 0, 1},
	} {
		pk, wd := Pk(tc.ref, tc.hyp, tc.n, tc.k), WindowDiff(tc.ref, tc.hyp, tc.n, tc.k)
		_, _, f := F1(tc.ref, tc.hyp, tc.tol)
		if math.Abs(pk-tc.pk) > 1e-12 || math.Abs(wd-tc.wd) > 1e-12 || math.Abs(f-tc.f1) > 1e-12 {
			t.Errorf("%s: Pk %v WindowDiff %v F1 %v, want %v %v %v", tc.name, pk, wd, f, tc.pk, tc.wd, tc.f1)
		}
	}
}
