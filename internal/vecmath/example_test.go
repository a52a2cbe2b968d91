package vecmath_test

import (
	"fmt"

	"github.com/diverse-select/diverse-select/internal/vecmath"
)

// Dot over the tail loop alone and over the unrolled loop with a tail;
// Cosine of two vectors, of opposite ones and with a zero vector.
func Example() {
	fmt.Println(vecmath.Dot([]float32{1, 2, 3}, []float32{4, 5, 6}))
	fmt.Println(vecmath.Dot([]float32{1, 0, 0, 0, 1}, []float32{1, 0, 0, 0, 1}))
	fmt.Printf("%.6f\n", vecmath.Cosine([]float32{1, 2, 3}, []float32{4, 5, 6}))
	fmt.Println(vecmath.Cosine([]float32{1, -1, 2, 0}, []float32{-1, 1, -2, 0}))
	fmt.Println(vecmath.Cosine([]float32{0, 0}, []float32{3, 4}))
	// Output:
	// 32
	// 2
	// 0.974632
	// -1
	// 0
}
