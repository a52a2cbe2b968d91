package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheckLicence(t *testing.T) {
	for _, tc := range []struct {
		name    string
		files   []string
		wantErr string
	}{
		{"no wl folder (1.38)", []string{"LICENSE"}, ""},
		{"licence text only (1.39.7)", []string{"LICENSE", "wl/LICENSE-WEAVIATE"}, ""},
		{"code under wl", []string{"wl/LICENSE-WEAVIATE", "wl/feature/feature.go", "wl/x.go"}, "wl/feature/feature.go, wl/x.go"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, f := range tc.files {
				p := filepath.Join(dir, f)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			err := checkLicence(dir)
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Fatalf("error %v, want one naming %s", err, tc.wantErr)
			}
		})
	}
	// The pinned source passes.
	if err := checkLicence(weaviateSource(t)); err != nil {
		t.Fatal(err)
	}
}
