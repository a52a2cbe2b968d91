package config

import "sort"

// Schema is what the configuration needs to know about a class.
type Schema struct {
	// Properties maps property names to their data type ("text", "text[]", "int", ...).
	Properties map[string]string
	// NamedVectors are the class's named vectors (empty for a legacy-vector class).
	NamedVectors []string
}

// TextProperties returns the class's text and text[] properties, sorted.
func (s Schema) TextProperties() []string {
	var out []string
	for name, t := range s.Properties {
		if isText(t) {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

func isText(dataType string) bool { return dataType == "text" || dataType == "text[]" }

// CheckSchema verifies that the properties and vector the overrides name
// exist in the class with a fitting type.
func CheckSchema(o *Overrides, s Schema) error {
	if o == nil {
		return nil
	}
	text := append([]string{}, o.ExtraTextProperties...)
	if o.TextProperty != "" {
		text = append([]string{o.TextProperty}, text...)
	}
	for _, name := range text {
		key := KeyTextProperty
		if name != o.TextProperty {
			key = KeyExtraTextProperties
		}
		if t, ok := s.Properties[name]; !ok || !isText(t) {
			return errf(key, "names %q, which is not a text property of the class; text properties: %s",
				clip(name), orNone(s.TextProperties()))
		}
	}
	if o.TokenProperty != "" {
		if t, ok := s.Properties[o.TokenProperty]; !ok || (t != "int" && t != "number") {
			var ints []string
			for n, t := range s.Properties {
				if t == "int" || t == "number" {
					ints = append(ints, n)
				}
			}
			sort.Strings(ints)
			return errf(KeyTokenProperty, "names %q, which is not an int property of the class; int properties: %s",
				clip(o.TokenProperty), orNone(ints))
		}
	}
	if o.SourceProperty != "" {
		if _, ok := s.Properties[o.SourceProperty]; !ok {
			names := make([]string, 0, len(s.Properties))
			for n := range s.Properties {
				names = append(names, n)
			}
			sort.Strings(names)
			return errf(KeySourceProperty, "names %q, which is not a property of the class; properties: %s",
				clip(o.SourceProperty), orNone(names))
		}
	}
	if o.TargetVector != "" {
		found := false
		for _, v := range s.NamedVectors {
			found = found || v == o.TargetVector
		}
		if !found {
			return errf(KeyTargetVector, "names %q, which is not a named vector of the class; named vectors: %s",
				clip(o.TargetVector), orNone(s.NamedVectors))
		}
	}
	return nil
}
