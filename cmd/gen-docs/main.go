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

import "github.com/diverse-select/diverse-select/internal/genfiles"

func main() { genfiles.Main("gen-docs", rewrite) }
