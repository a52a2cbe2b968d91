package selectors

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
)

// TestCheckParamSpecs: parameter specs no caller can serve are refused with
// a message naming the parameter (and the strategy, for a bad default).
func TestCheckParamSpecs(t *testing.T) {
	for _, tc := range []struct {
		name  string
		specs []ParamSpec
		want  string // "" = accepted
	}{
		{"valid", []ParamSpec{{Name: "p", Kind: KindProperty, Default: "date"}, {Name: "w", Kind: KindFloat, Min: 0, Max: 1, Default: 0.5}}, ""},
		{"name starts with a digit", []ParamSpec{{Name: "1x", Kind: KindFloat}}, `parameter name "1x"`},
		{"name with a dash", []ParamSpec{{Name: "a-b", Kind: KindFloat}}, `parameter name "a-b" is not a valid GraphQL name`},
		{"string without enum", []ParamSpec{{Name: "mode", Kind: KindString}}, `parameter "mode" is a string without allowed values`},
		{"unknown kind", []ParamSpec{{Name: "w", Kind: "complex"}}, `parameter "w" has kind "complex"`},
		{"default out of range", []ParamSpec{{Name: "w", Kind: KindFloat, Min: 0, Max: 1, Default: 2.0}}, `default of parameter "w": strategy "mine": parameter "w"`},
		{"declared twice", []ParamSpec{{Name: "w", Kind: KindBool}, {Name: "w", Kind: KindBool}}, `parameter "w" is declared twice`},
	} {
		err := CheckParamSpecs("mine", tc.specs)
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}

// TestAddAppliesSpecRules: Register and Add refuse a strategy - built-in or
// external - whose specs break the rules or clash with a registered
// strategy's parameter kinds, so a built-in with a bad spec fails at start-up.
func TestAddAppliesSpecRules(t *testing.T) {
	newNop := func(Params) (Strategy, error) { return nopStrategy{}, nil }
	if err := Add(Definition{Name: "spec-base", New: newNop, Params: []ParamSpec{{Name: "specMode", Kind: KindString, Enum: []string{"a"}}}}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		params []ParamSpec
		want   string
	}{
		{"spec-bad-default", []ParamSpec{{Name: "w", Kind: KindInt, Min: 0, Max: 3, Default: 5}}, `strategy "spec-bad-default": default of parameter "w"`},
		{"spec-kind-clash", []ParamSpec{{Name: "specMode", Kind: KindBool}}, `parameter "specMode" is a bool, but strategy "spec-base" has a string parameter`},
	} {
		if err := Add(Definition{Name: tc.name, New: newNop, Params: tc.params}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Add %s: %v, want %q", tc.name, err, tc.want)
		}
		if _, ok := Lookup(tc.name); ok {
			t.Errorf("%s registered despite its spec", tc.name)
		}
		func() {
			defer func() {
				if p := recover(); p == nil || !strings.Contains(p.(string), tc.want) {
					t.Errorf("Register %s: panic %v, want %q", tc.name, p, tc.want)
				}
			}()
			Register(Definition{Name: tc.name, New: newNop, Params: tc.params})
		}()
	}
	if err := CheckParamKinds([]ParamSpec{{Name: "specMode", Kind: KindFloat}}); err == nil {
		t.Error("CheckParamKinds accepts a float named like a registered string parameter")
	}
}

type nopStrategy struct{}

func (nopStrategy) Select(context.Context, *Problem) (*Result, error) { return &Result{}, nil }

// TestCheck: the one validator of a setting, for each kind: the typed
// value, or a *ValueError that tells a value of the wrong type (or not
// finite) from one outside the range, and a list's bad element.
func TestCheck(t *testing.T) {
	inf := math.Inf(1)
	for _, tc := range []struct {
		spec            ParamSpec
		in, want        any
		wrongType, elem bool // want an error of this sort
		refused         bool
	}{
		{spec: ParamSpec{Kind: KindFloat, Min: 0, Max: 1}, in: 1, want: 1.0},
		{spec: ParamSpec{Kind: KindFloat, Min: 0, Max: 1, MaxOpen: true}, in: 1.0, refused: true},
		{spec: ParamSpec{Kind: KindFloat, Min: 0, Max: inf}, in: math.NaN(), refused: true, wrongType: true},
		{spec: ParamSpec{Kind: KindInt, Min: 1, Max: 64}, in: 3.0, want: 3},
		{spec: ParamSpec{Kind: KindInt, Min: 1, Max: 64}, in: 2.5, refused: true},
		{spec: ParamSpec{Kind: KindInt, Min: 1, Max: 64}, in: "3", refused: true, wrongType: true},
		{spec: ParamSpec{Kind: KindBool}, in: false, want: false},
		{spec: ParamSpec{Kind: KindBool}, in: 0, refused: true, wrongType: true},
		{spec: ParamSpec{Kind: KindString, Enum: []string{"a", "b"}}, in: "b", want: "b"},
		{spec: ParamSpec{Kind: KindString, Enum: []string{"a", "b"}}, in: "c", refused: true},
		{spec: ParamSpec{Kind: KindString}, in: "any text", want: "any text"},
		{spec: ParamSpec{Kind: KindProperty}, in: "_body2", want: "_body2"},
		{spec: ParamSpec{Kind: KindProperty}, in: "2body", refused: true},
		{spec: ParamSpec{Kind: KindStrings}, in: []any{"a", "b"}, want: []string{"a", "b"}},
		{spec: ParamSpec{Kind: KindStrings}, in: []any{"a", 1}, refused: true, wrongType: true, elem: true},
		{spec: ParamSpec{Kind: KindStrings}, in: "a", refused: true, wrongType: true},
		{spec: ParamSpec{Kind: KindInt}, in: nil, want: nil},
	} {
		got, err := tc.spec.Check(tc.in)
		var ve *ValueError
		if tc.refused {
			if !errors.As(err, &ve) || ve.WrongType != tc.wrongType || ve.Element != tc.elem {
				t.Errorf("%s %v: error %#v, want a ValueError (wrong type %v, element %v)", tc.spec.Kind, tc.in, err, tc.wrongType, tc.elem)
			}
			continue
		}
		if err != nil || fmt.Sprintf("%#v", got) != fmt.Sprintf("%#v", tc.want) {
			t.Errorf("%s %v: %#v, %v; want %#v", tc.spec.Kind, tc.in, got, err, tc.want)
		}
	}
}
