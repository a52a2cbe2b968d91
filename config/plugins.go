package config

import (
	"encoding/hex"
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
}

// DefaultPluginTimeout is DIVERSE_SELECT_PLUGIN_TIMEOUT's default.
const DefaultPluginTimeout = 10 * time.Second

// PluginEnv lists the environment variables Plugins reads, with their defaults.
var PluginEnv = []EnvVar{
	{"DIVERSE_SELECT_PLUGIN_DIR", "", "folder of external selector plugins: every executable file (or symlink to one) in it is started (see Bring your own selector)"},
	{"DIVERSE_SELECT_PLUGINS", "", "comma-separated paths of more plugin files"},
	{"DIVERSE_SELECT_PLUGIN_SHA256", "", "comma-separated name=sha256 pins; a plugin whose file does not match its pin is refused"},
	{"DIVERSE_SELECT_PLUGIN_TIMEOUT", DefaultPluginTimeout.String(), "most time one plugin call may take; a plugin past it is restarted"},
}

// PluginsFromEnv reads Plugins (getenv nil means os.Getenv). A malformed
// value is an error naming the variable; a plugin that is missing or broken
// is not (the host reports it per plugin).
func PluginsFromEnv(getenv func(string) string) (Plugins, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	get := func(name string) string { return strings.TrimSpace(getenv(name)) }
	p := Plugins{Dir: get("DIVERSE_SELECT_PLUGIN_DIR"), SHA256: map[string][]byte{}, Timeout: DefaultPluginTimeout}
	for _, s := range strings.Split(get("DIVERSE_SELECT_PLUGINS"), ",") {
		if s = strings.TrimSpace(s); s != "" {
			p.Paths = append(p.Paths, s)
		}
	}
	for _, pin := range strings.Split(get("DIVERSE_SELECT_PLUGIN_SHA256"), ",") {
		if pin = strings.TrimSpace(pin); pin == "" {
			continue
		}
		name, sum, ok := strings.Cut(pin, "=")
		b, err := hex.DecodeString(strings.TrimSpace(sum))
		if !ok || strings.TrimSpace(name) == "" || err != nil || len(b) != 32 {
			return p, fmt.Errorf("DIVERSE_SELECT_PLUGIN_SHA256: %q: want name=<64 hex digits of sha256>", pin)
		}
		p.SHA256[strings.TrimSpace(name)] = b
	}
	if v := get("DIVERSE_SELECT_PLUGIN_TIMEOUT"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return p, fmt.Errorf("DIVERSE_SELECT_PLUGIN_TIMEOUT=%q: want a positive duration such as 5s or 500ms", v)
		}
		p.Timeout = d
	}
	return p, nil
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
