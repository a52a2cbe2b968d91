package segment_test

import (
	"context"
	"fmt"

	"github.com/diverse-select/diverse-select/segment"
	"github.com/diverse-select/diverse-select/selectors/tokens"
)

// Sentences packed into chunks of at most 14 tokens: no sentence is cut.
func Example() {
	counter, _ := tokens.New(tokens.CL100K)
	text := "His name is Whiskers. He has bright green eyes. The vet saw him on Monday. He is healthy."
	chunks, _ := segment.Packed{Tokens: 14, Counter: counter}.Chunk(context.Background(), text)
	for _, c := range chunks {
		fmt.Printf("%d-%d %d tokens: %s\n", c.Start, c.End, c.Tokens, text[c.Start:c.End])
	}
	// Output:
	// 0-47 13 tokens: His name is Whiskers. He has bright green eyes.
	// 48-89 11 tokens: The vet saw him on Monday. He is healthy.
}
