package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
)

func main() {
	root := flag.String("root", ".", "the repository's root")
	flag.Parse()
	out, err := files()
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen-clients:", err)
		os.Exit(1)
	}
	paths := make([]string, 0, len(out))
	for p := range out {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		dst := filepath.Join(*root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			fmt.Fprintln(os.Stderr, "gen-clients:", err)
			os.Exit(1)
		}
		if err := os.WriteFile(dst, out[p], 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "gen-clients:", err)
			os.Exit(1)
		}
		fmt.Println("gen-clients: wrote", p)
	}
}
