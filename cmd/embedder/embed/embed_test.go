package embed_test

import (
	"github.com/diverse-select/diverse-select/cmd/embedder/embed"
	"github.com/diverse-select/diverse-select/segment"
)

// One encoder interface: every embedder is a segment.Encoder as it is.
var (
	_ segment.Encoder = embed.Embedder(nil)
	_ embed.Embedder  = (*embed.Hash)(nil)
	_ embed.Embedder  = (*embed.GloVe)(nil)
	_ embed.Embedder  = (*embed.Neural)(nil)
)
