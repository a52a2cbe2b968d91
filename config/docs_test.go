package config

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// The configuration tables of docs/configuration.md are the tables Keys, Env, PluginEnv and PolicyKeys
// rendered: a key or variable added to (or changed in) the table must be
// documented the same way. On a mismatch the test prints the rows to paste.

// keyRows renders Keys as the README's key table rows.
func keyRows() []string {
	var rows []string
	for _, k := range Keys {
		name := "`" + k.Name + "`"
		if k.QueryOnly {
			name += " (query only)"
		}
		def := k.DefaultDoc
		if k.Env != "" {
			for _, e := range Env {
				if e.Name == k.Env {
					def = fmt.Sprintf("`%s` (%s)", e.Name, e.Default)
				}
			}
		}
		rows = append(rows, fmt.Sprintf("| %s | %s | %s | %s |", name, def, k.Allowed, k.Doc))
	}
	return rows
}

// envRows renders Env and PluginEnv as the README's variable table rows.
func envRows() []string {
	var rows []string
	for _, e := range append(append(append([]EnvVar{}, Env...), PluginEnv...), SegmentEnv...) {
		def := e.Default
		if def == "" {
			def = "(none)"
		}
		rows = append(rows, fmt.Sprintf("| `%s` | %s | %s |", e.Name, def, e.Doc))
	}
	return rows
}

// policyRows renders PolicyKeys as the query policy table rows.
func policyRows() []string {
	var rows []string
	for _, k := range PolicyKeys {
		rows = append(rows, fmt.Sprintf("| `%s` | %s | %s | %s |", k.Name, k.Allowed, k.DefaultDoc, k.Doc))
	}
	return rows
}

// tableAfter returns the rows of the README table whose header is header.
func tableAfter(t *testing.T, readme, header string) []string {
	t.Helper()
	_, rest, ok := strings.Cut(readme, "\n"+header+"\n")
	if !ok {
		t.Fatalf("docs/configuration.md has no table with header %q", header)
	}
	var rows []string
	for i, line := range strings.Split(rest, "\n") {
		if i == 0 { // the |---| line
			continue
		}
		if !strings.HasPrefix(line, "|") {
			break
		}
		rows = append(rows, line)
	}
	return rows
}

func TestConfigDocTables(t *testing.T) {
	b, err := os.ReadFile("../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	for _, tc := range []struct {
		name, header string
		want         []string
		extra        int // rows after the table's own (strategy parameters)
	}{
		{"key table (config.Keys)", "| key | default | allowed | meaning |", keyRows(), 1},
		{"variable table (config.Env, config.PluginEnv, config.SegmentEnv)", "| variable | default | meaning |", envRows(), 0},
		{"query policy table (config.PolicyKeys)", "| policy key | allowed | default | effect |", policyRows(), 0},
	} {
		got := tableAfter(t, readme, tc.header)
		if len(got) != len(tc.want)+tc.extra || strings.Join(got[:min(len(got), len(tc.want))], "\n") != strings.Join(tc.want, "\n") {
			t.Errorf("docs/configuration.md %s differs from the spec; its rows should read:\n%s\ngot:\n%s",
				tc.name, strings.Join(tc.want, "\n"), strings.Join(got, "\n"))
		}
	}
}

// TestKeysTable: every key has a field, a kind, and a README description,
// and each variable that sets a key's default names an existing key.
func TestKeysTable(t *testing.T) {
	seen := map[string]bool{}
	for _, k := range Keys {
		if seen[k.Name] || k.field == nil || k.Kind == "" || k.Allowed == "" || k.Doc == "" || (k.Env == "") == (k.DefaultDoc == "") {
			t.Errorf("key %q: duplicate, or missing field, kind, allowed, doc, or exactly one of Env and Default", k.Name)
		}
		seen[k.Name] = true
	}
	for _, e := range Env {
		k, ok := LookupKey(e.Key)
		if (e.Key != "") != ok || (e.Key == "") == (e.field == nil) || e.Meta == "" || (ok && k.Env != e.Name) {
			t.Errorf("variable %s: Key %q, field and Meta do not fit the key table", e.Name, e.Key)
		}
	}
	m, err := FromEnv(func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	if d := m.Defaults(); len(d) != len(Env) || d["maxSelectTime"] != DefaultMaxSelectTime.String() || d[KeyStrategy] != DefaultStrategy {
		t.Errorf("Defaults() = %v, want every variable of Env", d)
	}
}
