package main

import "testing"

// TestFitSeparable: on pairs whose label is whether the two vectors are
// equal, the trained scorer separates them and the chosen threshold lies
// between the two classes' scores.
func TestFitSeparable(t *testing.T) {
	vec := func(i int) []float32 {
		v := make([]float32, 4)
		v[i%4] = 1
		return v
	}
	var ex []example
	for i := 0; i < 400; i++ {
		a := vec(i)
		if i%3 == 0 {
			ex = append(ex, example{a: a, b: vec(i + 1 + i%3)})
		} else {
			ex = append(ex, example{a: a, b: a, y: 1})
		}
	}
	s := fit(ex, 4, 8, 60, 1)
	th, f1 := chooseThreshold(s, ex)
	if f1 < 0.99 {
		t.Fatalf("boundary F1 %.3f on separable pairs (threshold %.2f)", f1, th)
	}
	for _, e := range ex {
		if got := s.Score(e.a, e.b) >= th; got != (e.y == 1) {
			t.Fatalf("pair %v %v (label %v) scored %.3f against threshold %.2f", e.a, e.b, e.y, s.Score(e.a, e.b), th)
		}
	}
}
