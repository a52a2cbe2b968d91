package config

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/diverse-select/diverse-select/selectors"
)

// Plugins configures external selector plugins (package plugin/host), from
// the environment.
type Plugins struct {
	// Dir: DIVERSE_SELECT_PLUGIN_DIR, a folder whose executable files are
	// all plugins ("" = none).
	Dir string
	// Paths: DIVERSE_SELECT_PLUGINS, comma-separated plugin files.
	Paths []string
	// SHA256: DIVERSE_SELECT_PLUGIN_SHA256, comma-separated name=hex pins; a
	// plugin whose file does not hash to its pin is refused.
	SHA256 map[string][]byte
	// Timeout: DIVERSE_SELECT_PLUGIN_TIMEOUT, the most one Select call may
	// take (0 = DefaultPluginTimeout).
	Timeout time.Duration
	// Env: DIVERSE_SELECT_PLUGIN_ENV, the names of the variables of
	// Weaviate's environment a plugin process gets; it gets no other.
	Env []string
}

// Files returns the plugin files to start: the executable regular files of
// Dir, or symlinks to such files (sorted; hidden files skipped) and then Paths, without repeats. When
// Dir cannot be read it still returns Paths, with the folder's error: one
// bad setting does not turn off the plugins the other names.
func (p Plugins) Files() ([]string, error) {
	var out []string
	seen := map[string]bool{}
	add := func(path string) {
		if abs, err := filepath.Abs(path); err == nil {
			path = abs
		}
		if !seen[path] {
			seen[path] = true
			out = append(out, path)
		}
	}
	var dirErr error
	if p.Dir != "" {
		entries, err := os.ReadDir(p.Dir)
		if err != nil {
			dirErr = fmt.Errorf("DIVERSE_SELECT_PLUGIN_DIR=%q: %w", p.Dir, err)
		}
		names := make([]string, 0, len(entries))
		for _, e := range entries {
			info, err := os.Stat(filepath.Join(p.Dir, e.Name())) // follows a symlink to the binary
			if err != nil || strings.HasPrefix(e.Name(), ".") || !info.Mode().IsRegular() || info.Mode().Perm()&0o111 == 0 {
				continue
			}
			names = append(names, e.Name())
		}
		sort.Strings(names)
		for _, n := range names {
			add(filepath.Join(p.Dir, n))
		}
	}
	for _, path := range p.Paths {
		add(path)
	}
	return out, dirErr
}

// CheckPropertyParams refuses a strategy parameter of kind property (an
// external plugin's) naming a property the class does not have, with the
// wording and echo limit of CheckSchema's property checks.
func CheckPropertyParams(e *Effective, s Schema) error {
	for _, spec := range e.Selector.Def.Params {
		name := e.Selector.Params.String(spec.Name)
		if spec.Kind != selectors.KindProperty || name == "" {
			continue
		}
		if _, ok := s.Properties[name]; !ok {
			names := make([]string, 0, len(s.Properties))
			for n := range s.Properties {
				names = append(names, n)
			}
			sort.Strings(names)
			return errf(spec.Name, "names %q, which is not a property of the class; properties: %s", clip(name), orNone(names))
		}
	}
	return nil
}
