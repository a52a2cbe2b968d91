package vecmath

import (
	"math"
	"testing"
)

func TestDotAndCosine(t *testing.T) {
	for _, tc := range []struct {
		name   string
		a, b   []float32
		dot    float32
		cosine float64
	}{
		{"empty", nil, nil, 0, 0},
		{"tail only", []float32{1, 2, 3}, []float32{4, 5, 6}, 32, 32 / math.Sqrt(14*77)},
		{"unrolled and tail", []float32{1, 0, 0, 0, 1}, []float32{1, 0, 0, 0, 1}, 2, 1},
		{"opposite", []float32{1, -1, 2, 0}, []float32{-1, 1, -2, 0}, -6, -1},
		{"a zero vector", []float32{0, 0}, []float32{3, 4}, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Dot(tc.a, tc.b); got != tc.dot {
				t.Errorf("Dot = %v, want %v", got, tc.dot)
			}
			if got := Cosine(tc.a, tc.b); math.Abs(got-tc.cosine) > 1e-12 {
				t.Errorf("Cosine = %v, want %v", got, tc.cosine)
			}
		})
	}
}
