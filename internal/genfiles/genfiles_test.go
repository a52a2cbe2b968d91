package genfiles

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWrite: the files are written under root, folders made, in path order.
func TestWrite(t *testing.T) {
	root := t.TempDir()
	got, err := Write(root, map[string][]byte{"b/c.txt": []byte("c"), "a.txt": []byte("a")})
	if err != nil || strings.Join(got, " ") != "a.txt b/c.txt" {
		t.Fatalf("Write = %v, %v; want a.txt b/c.txt", got, err)
	}
	if b, err := os.ReadFile(filepath.Join(root, "b", "c.txt")); err != nil || string(b) != "c" {
		t.Errorf("b/c.txt = %q, %v", b, err)
	}
}
