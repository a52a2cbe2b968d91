package config

import (
	"fmt"
	"strings"
	"testing"
)

// TestKeysTable: every key has a field, a kind, and a README description,
// and each variable that sets a key's default names an existing key.
func TestKeysTable(t *testing.T) {
	seen := map[string]bool{}
	for _, k := range Keys {
		if seen[k.Name] || k.field == nil || k.Kind == "" || k.Allowed == "" || k.Doc == "" || (k.Env == "") == (k.DefaultDoc == "") {
			t.Errorf("key %q: duplicate, or missing field, kind, allowed, doc, or exactly one of Env and DefaultDoc", k.Name)
		}
		seen[k.Name] = true
		// A fixed default is a value of the key, and the one the docs give.
		if k.Default != nil {
			if _, err := k.Spec(Limits{MaxCandidates: 2000}).Check(k.Default); err != nil || !strings.Contains(k.DefaultDoc, fmt.Sprint(k.Default)) {
				t.Errorf("key %q: default %v (%v) is not a value of the key, or DefaultDoc %q does not give it", k.Name, k.Default, err, k.DefaultDoc)
			}
		}
	}
	for _, k := range PolicyKeys {
		if seen[k.Name] || k.Kind == "" || k.Allowed == "" || k.Doc == "" || k.DefaultDoc == "" {
			t.Errorf("policy key %q: a common key's name, or missing kind, allowed, doc or default", k.Name)
		}
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
