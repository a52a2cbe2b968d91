package docblock

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSplice(t *testing.T) {
	f := filepath.Join(t.TempDir(), "x.md")
	for _, tc := range []struct{ name, doc, body, want, err string }{
		{"replaces the block", "a\n<!-- BEGIN b -->\nold\n<!-- END b -->\nz\n", "new\n", "a\n<!-- BEGIN b -->\nnew\n<!-- END b -->\nz\n", ""},
		{"no markers", "a\n", "new\n", "", "has no <!-- BEGIN b --> ... <!-- END b --> markers"},
		{"end before begin", "<!-- END b -->\n<!-- BEGIN b -->\n", "new\n", "", "markers"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := os.WriteFile(f, []byte(tc.doc), 0o644); err != nil {
				t.Fatal(err)
			}
			err := Splice(f, "b", tc.body)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			got, _ := os.ReadFile(f)
			if err != nil || string(got) != tc.want {
				t.Fatalf("got %q, %v; want %q", got, err, tc.want)
			}
		})
	}
	if CPUModel() == "" {
		t.Fatal("no CPU model")
	}
}
