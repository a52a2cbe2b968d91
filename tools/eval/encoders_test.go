package main

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestStoredVectors(t *testing.T) {
	dir := t.TempDir()
	key := func(s string) string { h := sha256.Sum256([]byte(s)); return hex.EncodeToString(h[:]) }
	require.NoError(t, os.WriteFile(filepath.Join(dir, "keys.txt"), []byte(key("a")+"\n"+key("b\nc")+"\n"), 0o644))
	// Rows (2, 0) and (0, -0.5) in float16, little-endian: re-normalised to unit length.
	f16 := []byte{0x00, 0x40, 0x00, 0x00, 0x00, 0x00, 0x00, 0xb8}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "vectors.f16"), f16, 0o644))
	s, err := loadStoredVectors(dir, 2)
	require.NoError(t, err)
	v, err := s.vector("a")
	require.NoError(t, err)
	assert.Equal(t, []float32{1, 0}, v)
	v, err = s.vector("b\nc")
	require.NoError(t, err)
	assert.Equal(t, []float32{0, -1}, v)
	_, err = s.vector("missing")
	require.ErrorContains(t, err, "has no vector for the text \"missing\"")

	// A file of the wrong size is refused, naming the shapes.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "vectors.f16"), f16[:6], 0o644))
	_, err = loadStoredVectors(dir, 2)
	require.ErrorContains(t, err, "want 2 rows x 2 float16")
}

func TestParseEncoders(t *testing.T) {
	got, err := parseEncoders("glove, use-lite")
	require.NoError(t, err)
	assert.Equal(t, []string{encGloVe, encUSE}, got)
	_, err = parseEncoders("bert")
	require.ErrorContains(t, err, `unknown encoder "bert" (allowed: glove, use-lite, minilm)`)
}
