package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/diverse-select/diverse-select/integration/stack"
)

// TestVectorCache: texts the cache lacks are embedded by the real neural
// worker and appended; a second open reads them without starting a worker;
// a torn last record (a run stopped mid-write) is dropped and overwritten.
func TestVectorCache(t *testing.T) {
	root, err := stack.RepoRoot()
	require.NoError(t, err)
	python := filepath.Join(root, ".venv", "bin", "python")
	dir := t.TempDir()

	c, err := openVectorCache(dir, python)
	require.NoError(t, err)
	texts := []string{"solar panels need cleaning", "statins lower cholesterol", "solar panels need cleaning"}
	require.NoError(t, c.ensure(texts), "make test runs `make venv` first")
	a, err := c.vector(texts[0])
	require.NoError(t, err)
	require.Len(t, a, neuralDims)
	_, err = c.vector("never embedded")
	require.ErrorContains(t, err, `has no vector for the text "never embedded"`)
	c.close()
	st, err := os.Stat(c.path)
	require.NoError(t, err)
	require.Equal(t, int64(2*(32+4*neuralDims)), st.Size(), "two distinct texts, one record each")

	// A torn record at the end: ignored on open, overwritten by the next append.
	f, err := os.OpenFile(c.path, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.Write(make([]byte, 100))
	require.NoError(t, err)
	require.NoError(t, f.Close())

	c2, err := openVectorCache(dir, filepath.Join(dir, "no-python"))
	require.NoError(t, err)
	require.NoError(t, c2.ensure(texts[:2]), "cached texts need no worker")
	require.Nil(t, c2.n)
	b, err := c2.vector(texts[0])
	require.NoError(t, err)
	require.Equal(t, a, b)
	require.ErrorContains(t, c2.ensure([]string{"a new text"}), "make venv", "a text the cache lacks needs the worker")

	c3, err := openVectorCache(dir, python)
	require.NoError(t, err)
	require.NoError(t, c3.ensure([]string{"a new text"}))
	c3.close()
	st, err = os.Stat(c3.path)
	require.NoError(t, err)
	require.Equal(t, int64(3*(32+4*neuralDims)), st.Size(), "the torn bytes were overwritten")
}
