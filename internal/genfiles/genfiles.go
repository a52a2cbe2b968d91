// Package genfiles writes what a generator of the repository
// (cmd/gen-clients, cmd/gen-docs) produces: the committed files its test
// compares with what it would write.
package genfiles

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
)

// Main is a generator's main function: generate, given the repository's
// root (flag -root, default "."), returns the files to write; each file
// written is printed, an error ends the process with status 1.
func Main(name string, generate func(root string) (map[string][]byte, error)) {
	root := flag.String("root", ".", "the repository's root")
	flag.Parse()
	out, err := generate(*root)
	if err == nil {
		var wrote []string
		wrote, err = Write(*root, out)
		for _, p := range wrote {
			fmt.Println(name+": wrote", p)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, name+":", err)
		os.Exit(1)
	}
}

// Write writes each file of out (a slash-separated path relative to root,
// its folders made as needed) in path order, and returns the paths it
// wrote, up to the first error.
func Write(root string, out map[string][]byte) ([]string, error) {
	paths := make([]string, 0, len(out))
	for p := range out {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for i, p := range paths {
		dst := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return paths[:i], err
		}
		if err := os.WriteFile(dst, out[p], 0o644); err != nil {
			return paths[:i], err
		}
	}
	return paths, nil
}
