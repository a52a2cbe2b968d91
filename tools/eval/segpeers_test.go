package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/diverse-select/diverse-select/selectors/tokens"
)

// onehot embeds a text by its first letter.
type onehot struct{}

func (onehot) Encode(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := make([]float32, 4)
		v[int(t[0])%4] = 1
		out[i] = v
	}
	return out, nil
}

// TestPeers runs segpeers.py's jobs with the venv's Python (make venv):
// Chonkie's chunkers read this process's vectors and counts over HTTP, and
// the offsets come back as bytes of the text.
func TestPeers(t *testing.T) {
	python := filepath.Join("..", "..", ".venv", "bin", "python")
	if _, err := os.Stat(python); err != nil {
		t.Fatalf("the venv's Python (make venv): %v", err)
	}
	counter, err := tokens.New(tokens.Words)
	require.NoError(t, err)
	ctx := context.Background()
	text := "Apples are red and sweet in the autumn. Apricots are orange and soft. Über bananas are yellow and long today. Bright blueberries are blue and small."
	spans, _, err := runPeer(ctx, python, map[string]any{"job": "pysbd", "texts": []string{text}})
	require.NoError(t, err)
	require.Len(t, spans[0], 4)
	for _, job := range []map[string]any{
		{"job": "chonkie-recursive", "chunk_size": 12, "min_characters": 4},
		{"job": "chonkie-recursive", "chunk_size": 4, "min_characters": 4}, // sentences over the size: cut by token ids
		{"job": "chonkie-semantic", "chunk_size": 100, "threshold": 0.5},
	} {
		p := &peerChunker{python: python, job: job, enc: onehot{}, counter: counter}
		cs, err := p.Chunk(ctx, text)
		require.NoError(t, err, job["job"])
		require.NotEmpty(t, cs, job["job"])
		require.Equal(t, 0, cs[0].Start, job["job"])
		require.Equal(t, len(text), cs[len(cs)-1].End, job["job"])
		var joined []string
		for _, c := range cs {
			joined = append(joined, text[c.Start:c.End])
		}
		if job["chunk_size"] == 12 { // a sentence a chunk; byte offsets past the "Ü"
			require.Equal(t, "Über bananas are yellow and long today.", joined[2])
		}
	}
}
