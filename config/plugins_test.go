package config

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/diverse-select/diverse-select/selectors"
)

func TestPluginsFromEnv(t *testing.T) {
	pin := strings.Repeat("ab", 32)
	for _, tc := range []struct {
		name    string
		env     map[string]string
		wantErr string
		check   func(t *testing.T, p Plugins)
	}{
		{name: "defaults", env: nil, check: func(t *testing.T, p Plugins) {
			if p.Dir != "" || len(p.Paths) != 0 || len(p.SHA256) != 0 || p.Timeout != 10*time.Second {
				t.Errorf("%+v", p)
			}
		}},
		{name: "all set", env: map[string]string{"DIVERSE_SELECT_PLUGIN_DIR": "/p", "DIVERSE_SELECT_PLUGINS": " a , b,",
			"DIVERSE_SELECT_PLUGIN_SHA256": "x=" + pin, "DIVERSE_SELECT_PLUGIN_TIMEOUT": "250ms"},
			check: func(t *testing.T, p Plugins) {
				if p.Dir != "/p" || strings.Join(p.Paths, "|") != "a|b" || len(p.SHA256["x"]) != 32 || p.Timeout != 250*time.Millisecond {
					t.Errorf("%+v", p)
				}
			}},
		{name: "pin without name", env: map[string]string{"DIVERSE_SELECT_PLUGIN_SHA256": pin}, wantErr: "DIVERSE_SELECT_PLUGIN_SHA256"},
		{name: "short pin", env: map[string]string{"DIVERSE_SELECT_PLUGIN_SHA256": "x=abcd"}, wantErr: "64 hex digits"},
		{name: "bad timeout", env: map[string]string{"DIVERSE_SELECT_PLUGIN_TIMEOUT": "10"}, wantErr: "DIVERSE_SELECT_PLUGIN_TIMEOUT"},
		{name: "zero timeout", env: map[string]string{"DIVERSE_SELECT_PLUGIN_TIMEOUT": "0s"}, wantErr: "positive duration"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := PluginsFromEnv(func(k string) string { return tc.env[k] })
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, p)
		})
	}
}

// TestPluginFiles: the folder's executable regular files and links to them,
// sorted, hidden and non-executable files skipped, then the explicit paths without repeats.
func TestPluginFiles(t *testing.T) {
	dir := t.TempDir()
	for name, mode := range map[string]os.FileMode{"b": 0o755, "a": 0o755, ".hidden": 0o755, "readme.txt": 0o644} {
		if err := os.WriteFile(filepath.Join(dir, name), nil, mode); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	// A symlink to an executable counts (users link installed binaries);
	// one to a folder or to nothing does not.
	if err := os.WriteFile(filepath.Join(dir, "sub", "linked"), nil, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, target := range map[string]string{"c-link": filepath.Join(dir, "sub", "linked"),
		"d-dirlink": filepath.Join(dir, "sub"), "e-dangling": filepath.Join(dir, "nothing")} {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	p := Plugins{Dir: dir, Paths: []string{filepath.Join(dir, "a"), "/elsewhere/c"}}
	got, err := p.Files()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(dir, "a"), filepath.Join(dir, "b"), filepath.Join(dir, "c-link"), "/elsewhere/c"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("files %v, want %v", got, want)
	}
	got, err = (Plugins{Dir: filepath.Join(dir, "missing"), Paths: []string{"/elsewhere/c"}}).Files()
	if err == nil || !strings.Contains(err.Error(), "DIVERSE_SELECT_PLUGIN_DIR") {
		t.Errorf("missing folder: %v", err)
	}
	if strings.Join(got, "|") != "/elsewhere/c" {
		t.Errorf("missing folder: files %v, want the explicit path still", got)
	}
}

// TestCheckPropertyParams: a parameter of kind property must name a property
// of the class; the error names the parameter and the class's properties,
// and clips a long value as the other schema checks do.
func TestCheckPropertyParams(t *testing.T) {
	eff := func(v string) *Effective {
		return &Effective{Selector: &selectors.Selector{
			Def:    selectors.Definition{Params: []selectors.ParamSpec{{Name: "dateProperty", Kind: selectors.KindProperty}}},
			Params: selectors.Params{"dateProperty": v},
		}}
	}
	s := Schema{Properties: map[string]string{"date": "date", "body": "text"}}
	if err := CheckPropertyParams(eff("date"), s); err != nil {
		t.Errorf("existing property: %v", err)
	}
	err := CheckPropertyParams(eff("published"), s)
	if want := `"dateProperty" names "published", which is not a property of the class; properties: body, date`; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v, want %q", err, want)
	}
	long := strings.Repeat("a", 10000)
	if err := CheckPropertyParams(eff(long), s); err == nil || len(err.Error()) > 500 {
		t.Errorf("a long value is echoed unclipped: %d bytes", len(fmt.Sprint(err)))
	}
}
