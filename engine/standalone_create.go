package engine

import "github.com/weaviate/weaviate/entities/models"

// ValidateCreate checks a collection's create or update as the module's
// server does (both modules' ValidateClass): moduleConfig["diverse-select"]
// against its keys and the class's properties, and
// moduleConfig["reranker-diverse-select"] the same, plus no second
// reranker. The errors are the module's, named with its argument.
func (s *Standalone) ValidateCreate(class *models.Class) error {
	if err := Guard(s.e.Logger(), "class config validation", func() error { return s.e.ValidateClass(class) }); err != nil {
		return Named(ArgName, err)
	}
	return Guard(s.e.Logger(), "class config validation", func() error { return s.e.ValidateRerankerClass(class) })
}
