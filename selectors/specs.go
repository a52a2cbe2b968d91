package selectors

import (
	"fmt"
	"regexp"
)

// The rules every strategy's parameter specs obey, built-in or external:
// Add (and so Register) applies them, and the plugin host checks a plugin's
// description with them before it registers the plugin.

// paramName is a GraphQL name: each parameter is a GraphQL argument.
var paramName = regexp.MustCompile(`^[_a-zA-Z][_a-zA-Z0-9]*$`)

// CheckParamSpecs refuses parameter specs no caller can serve: invalid or
// repeated names, unknown kinds, a string without allowed values, a default
// outside its own range. strategy names the strategy in the messages.
func CheckParamSpecs(strategy string, specs []ParamSpec) error {
	seen := map[string]bool{}
	for _, s := range specs {
		if !paramName.MatchString(s.Name) {
			return fmt.Errorf("parameter name %q is not a valid GraphQL name (a letter or _, then letters, digits or _)", s.Name)
		}
		if seen[s.Name] {
			return fmt.Errorf("parameter %q is declared twice", s.Name)
		}
		seen[s.Name] = true
		switch s.Kind {
		case KindFloat, KindInt, KindBool, KindProperty:
		case KindString:
			if len(s.Enum) == 0 {
				return fmt.Errorf("parameter %q is a string without allowed values (enum)", s.Name)
			}
		default:
			return fmt.Errorf("parameter %q has kind %q; allowed: float, int, bool, string, property", s.Name, s.Kind)
		}
		if s.Default != nil {
			if _, err := ValidateParams(strategy, specs, map[string]any{s.Name: s.Default}); err != nil {
				return fmt.Errorf("default of parameter %q: %w", s.Name, err)
			}
		}
	}
	return nil
}

// CheckParamKinds refuses a parameter whose name a registered strategy
// uses with another kind: the GraphQL argument of that name has one type
// (int and float mix, as Float).
func CheckParamKinds(specs []ParamSpec) error {
	registryMu.RLock()
	defer registryMu.RUnlock()
	return checkKinds(specs)
}

// checkKinds is CheckParamKinds with registryMu held.
func checkKinds(specs []ParamSpec) error {
	numeric := func(k Kind) bool { return k == KindInt || k == KindFloat }
	for _, name := range sortedNames() {
		for _, other := range registry[name].Params {
			for _, s := range specs {
				if s.Name == other.Name && s.Kind != other.Kind && !(numeric(s.Kind) && numeric(other.Kind)) {
					return fmt.Errorf("parameter %q is a %s, but strategy %q has a %s parameter of that name; rename it",
						s.Name, s.Kind, name, other.Kind)
				}
			}
		}
	}
	return nil
}
