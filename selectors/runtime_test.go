package selectors

import (
	"errors"
	"strings"
	"testing"
)

// TestAddAndUnavailable: run-time registration returns errors instead of
// panicking, and an unavailable strategy's cause comes before parameter checks.
func TestAddAndUnavailable(t *testing.T) {
	cause := errors.New("plugin speaks protocol 2")
	if err := Add(Definition{Name: "test-unavailable", Unavailable: cause}); err != nil {
		t.Fatal(err)
	}
	if err := Add(Definition{Name: "test-unavailable", Unavailable: cause}); err == nil || !strings.Contains(err.Error(), "already registered") {
		t.Errorf("duplicate: %v", err)
	}
	if err := Add(Definition{Name: "no-new"}); err == nil {
		t.Error("a definition without New nor Unavailable was accepted")
	}
	if _, err := New("test-unavailable", map[string]any{"anything": 1}); !errors.Is(err, cause) {
		t.Errorf("New: %v, want the cause", err)
	}
}

func TestPropertyParams(t *testing.T) {
	specs := []ParamSpec{
		{Name: "dateProperty", Kind: KindProperty, Default: "date"},
		{Name: "other", Kind: KindProperty},
		{Name: "w", Kind: KindFloat, Default: 0.5, Min: 0, Max: 1},
	}
	for _, tc := range []struct {
		raw     map[string]any
		want    string
		wantErr string
	}{
		{nil, "date", ""},
		{map[string]any{"dateProperty": "published_at", "other": "_x1"}, "published_at,_x1", ""},
		{map[string]any{"dateProperty": "1abc"}, "", "want a property name"},
		{map[string]any{"dateProperty": "a-b"}, "", "want a property name"},
		{map[string]any{"dateProperty": 3.0}, "", "want a property name"},
	} {
		p, err := ValidateParams("s", specs, tc.raw)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%v: error %v, want %q", tc.raw, err, tc.wantErr)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(PropertyParams(specs, p), ","); got != tc.want {
			t.Errorf("%v: properties %q, want %q", tc.raw, got, tc.want)
		}
	}
}
