// Command gen-docs writes the settings tables of docs/ from the settings'
// one description (selectors.ParamSpec): the common keys (config.Keys), the
// query policy keys (config.PolicyKeys) and the module's variables
// (config.Env, config.PluginEnv, config.SegmentEnv) in
// docs/configuration.md, and each strategy's parameters (its Definition's
// Params) in docs/strategies.md and the write-ups docs/strategies-*.md.
//
// A table is a generated block: the lines between
// "<!-- BEGIN name: ... -->" and "<!-- END name -->" are replaced. A params
// block belongs to the strategy of the "## name" heading above it. Run it
// with make docs-gen; its test fails when a committed table differs from
// what it writes.
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
	out, err := rewrite(*root)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen-docs:", err)
		os.Exit(1)
	}
	paths := make([]string, 0, len(out))
	for p := range out {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		if err := os.WriteFile(filepath.Join(*root, filepath.FromSlash(p)), out[p], 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "gen-docs:", err)
			os.Exit(1)
		}
		fmt.Println("gen-docs: wrote", p)
	}
}
