package config

import (
	"fmt"
	"strings"

	"github.com/diverse-select/diverse-select/selectors"
	"github.com/diverse-select/diverse-select/selectors/tokens"
)

// Common keys, shared by every strategy. Any other key is a strategy parameter.
const (
	KeyStrategy            = "strategy"
	KeyTokenBudget         = "tokenBudget"
	KeyCandidates          = "candidates"
	KeyMaxResults          = "maxResults"
	KeyTextProperty        = "textProperty"
	KeyExtraTextProperties = "extraTextProperties"
	KeyTokenizer           = "tokenizer"
	KeyTokenProperty       = "tokenProperty"
	KeyTargetVector        = "targetVector"
	KeyMultiVector         = "multiVector"
	KeySourceProperty      = "sourceProperty"
	KeyOrder               = "order"
	KeyDedupThreshold      = "dedupThreshold"
	KeyQuery               = "query"
	KeyEvidence            = "evidence"
	KeyEvidenceSentences   = "evidenceSentences"
	KeyEvidenceMaxWords    = "evidenceMaxWords"
	KeyOffset              = "offset"
	KeyWidenTo             = "widenTo"
)

// Evidence modes (the evidence key): whole chunks, cards when the budget is
// tight for the pool (selectors/evidence.Auto), or cards always.
const (
	EvidenceOff   = "off"
	EvidenceAuto  = "auto"
	EvidenceCards = "cards"
)

// Defaults of the card size keys (evidence: cards): the lead sentence and
// the two best, within 80 words (docs/quality.md, evidence cards).
const (
	DefaultEvidenceSentences = 3
	DefaultEvidenceMaxWords  = 80
)

// EvidenceModes lists evidence's allowed values.
var EvidenceModes = []string{EvidenceOff, EvidenceAuto, EvidenceCards}

// The values of multiVector: how candidates are compared on a multi-vector
// target (simcache.MultiEngine, simcache.MeanPool).
const (
	MultiVectorMaxSim = "maxsim"
	MultiVectorMean   = "mean"
)

// MultiVectorModes lists multiVector's allowed values.
var MultiVectorModes = []string{MultiVectorMaxSim, MultiVectorMean}

// MaxTokenBudget bounds tokenBudget: far beyond any model's context window,
// and small enough that sums of token counts never overflow.
const MaxTokenBudget = 1 << 30

// Key declares one common key. The table Keys is the only place a key is
// described: Parse, Merge, CommonKeys, the GraphQL arguments, /v1/meta, the
// client helpers (cmd/gen-clients) and the docs' key table (cmd/gen-docs)
// all follow from it.
type Key struct {
	// ParamSpec is what a key shares with a strategy parameter: its name,
	// kind, bounds, allowed values, meaning (Doc, also the GraphQL
	// description) and, for a key whose default is fixed, its Default
	// (Merge applies it). ParamSpec.Check validates a value, for both.
	// Max 0 on an int key means the module's candidate cap
	// (DIVERSE_SELECT_MAX_CANDIDATES).
	selectors.ParamSpec
	// Values lists a string key's allowed values when only the running
	// module knows them (the registered strategies, the tokenizers): they
	// are the Enum at each check.
	Values func() []string
	// Note says what an int key's range means, in errors ("0 = no budget").
	Note string
	// Env is the environment variable that sets the module's default (see
	// Env); DefaultDoc describes the default of a key without one.
	Env, DefaultDoc string
	// Allowed describes the allowed values in the docs and the GraphQL
	// descriptions (Markdown).
	Allowed string
	// QueryOnly keys are refused in a class config.
	QueryOnly bool
	// emptyUnset: "" leaves an Enum key unset instead of being refused.
	emptyUnset bool
	// field points at the key's value in s.
	field func(s *Settings) any
}

// Settings are the values of the common keys at one level (Overrides), as
// module defaults (Module) or merged (Effective).
type Settings struct {
	Strategy            string
	TokenBudget         int
	Candidates          int
	MaxResults          int
	TextProperty        string
	ExtraTextProperties []string
	Tokenizer           string
	TokenProperty       string
	TargetVector        string
	MultiVector         string
	SourceProperty      string
	Order               selectors.Order
	DedupThreshold      float64
	Query               string
	Evidence            string
	EvidenceSentences   int
	EvidenceMaxWords    int
	Offset              int
	WidenTo             int
}

// spec is the ParamSpec of a key of kind k.
func spec(name string, k selectors.Kind, doc string) selectors.ParamSpec {
	return selectors.ParamSpec{Name: name, Kind: k, Doc: doc}
}

// Keys are the common keys, in documentation order.
var Keys = []Key{
	{ParamSpec: spec(KeyStrategy, selectors.KindString, "the selection algorithm"),
		Values: selectors.Names, Env: "DIVERSE_SELECT_STRATEGY", Allowed: "a registered strategy (see Strategies and `/v1/meta`)",
		field: func(s *Settings) any { return &s.Strategy }},
	{ParamSpec: selectors.ParamSpec{Name: KeyTokenBudget, Kind: selectors.KindInt, Max: MaxTokenBudget,
		Doc: "most tokens selected in total (0 = none)"},
		Note: "0 = no budget", Env: "DIVERSE_SELECT_TOKEN_BUDGET", Allowed: "integer in [0, 2^30]",
		field: func(s *Settings) any { return &s.TokenBudget }},
	{ParamSpec: selectors.ParamSpec{Name: KeyCandidates, Kind: selectors.KindInt, Min: 1,
		Doc: "pool retrieved before selection (top-level form)"},
		Note: "the pool retrieved before selection", Env: "DIVERSE_SELECT_CANDIDATES",
		Allowed: "integer in [1, `DIVERSE_SELECT_MAX_CANDIDATES`]",
		field:   func(s *Settings) any { return &s.Candidates }},
	{ParamSpec: selectors.ParamSpec{Name: KeyMaxResults, Kind: selectors.KindInt, Max: selectors.MaxCandidates,
		Doc: "most objects selected (the query `limit` caps it too)"},
		Note: "0 = no limit", DefaultDoc: "0 = no limit", Allowed: "integer >= 0",
		field: func(s *Settings) any { return &s.MaxResults }},
	{ParamSpec: spec(KeyTextProperty, selectors.KindString, "text counted for tokens and read by the text strategies"),
		DefaultDoc: "every text property of the class", Allowed: "a `text`/`text[]` property",
		field: func(s *Settings) any { return &s.TextProperty }},
	{ParamSpec: spec(KeyExtraTextProperties, selectors.KindStrings, "counted with `textProperty`"),
		DefaultDoc: "none", Allowed: "list of text properties",
		field: func(s *Settings) any { return &s.ExtraTextProperties }},
	{ParamSpec: spec(KeyTokenizer, selectors.KindString, "token counter (BPE encodings are embedded: no download)"),
		Values: tokens.Names, emptyUnset: true, Env: "DIVERSE_SELECT_TOKENIZER",
		Allowed: "`cl100k_base`, `o200k_base`, `words`, `chars`",
		field:   func(s *Settings) any { return &s.Tokenizer }},
	{ParamSpec: spec(KeyTokenProperty, selectors.KindString, "property already holding each object's token count"),
		DefaultDoc: "none", Allowed: "an `int` property",
		field: func(s *Settings) any { return &s.TokenProperty }},
	{ParamSpec: spec(KeyTargetVector, selectors.KindString, "vector compared between candidates"),
		DefaultDoc: `see "Named vectors"`, Allowed: "a named vector of the class",
		field: func(s *Settings) any { return &s.TargetVector }},
	{ParamSpec: selectors.ParamSpec{Name: KeyMultiVector, Kind: selectors.KindString, Enum: MultiVectorModes, Default: MultiVectorMaxSim,
		Doc: "how candidates are compared on a multi-vector (ColBERT) target: `maxsim` the symmetric " +
			"Chamfer similarity of their vectors, `mean` the cosine of their mean-pooled vectors (see docs/multi-vector.md)"},
		DefaultDoc: "`maxsim`", Allowed: "`maxsim`, `mean`",
		field: func(s *Settings) any { return &s.MultiVector }},
	{ParamSpec: spec(KeySourceProperty, selectors.KindString, "source of each object (URL or document) for source novelty (ngram)"),
		DefaultDoc: "none", Allowed: "any property",
		field: func(s *Settings) any { return &s.SourceProperty }},
	{ParamSpec: selectors.ParamSpec{Name: KeyOrder, Kind: selectors.KindString, Enum: orderNames(), Default: string(selectors.OrderSelection),
		Doc: "output order; `edges` puts the best at both ends, for models that lose the middle"},
		DefaultDoc: "`selection`", Allowed: "`selection`, `relevance`, `edges`",
		field: func(s *Settings) any { return &s.Order }},
	{ParamSpec: selectors.ParamSpec{Name: KeyDedupThreshold, Kind: selectors.KindFloat, Min: 0, MinOpen: true, Max: 1,
		Doc: "first drop candidates whose cosine to a more relevant candidate is >= this"},
		DefaultDoc: "off", Allowed: "number in (0, 1]",
		field: func(s *Settings) any { return &s.DedupThreshold }},
	{ParamSpec: spec(KeyQuery, selectors.KindString, "query text for the strategies that read it"),
		DefaultDoc: "nearText concepts, or the bm25/hybrid query", QueryOnly: true, Allowed: "text",
		field: func(s *Settings) any { return &s.Query }},
	{ParamSpec: selectors.ParamSpec{Name: KeyEvidence, Kind: selectors.KindString, Enum: EvidenceModes, Default: EvidenceOff,
		Doc: `evidence cards: select and return each chunk's best sentences for the query (see docs/evidence-cards.md)`},
		emptyUnset: true, DefaultDoc: "`off`", Allowed: "`off`, `auto`, `cards`",
		field: func(s *Settings) any { return &s.Evidence }},
	{ParamSpec: selectors.ParamSpec{Name: KeyEvidenceSentences, Kind: selectors.KindInt, Min: 1, Max: 64, Default: DefaultEvidenceSentences,
		Doc: "most sentences of a card with `evidence: cards` (the first sentence and the best by query overlap)"},
		Note: "sentences per card, the lead sentence included", DefaultDoc: "3", Allowed: "integer in [1, 64]",
		field: func(s *Settings) any { return &s.EvidenceSentences }},
	{ParamSpec: selectors.ParamSpec{Name: KeyEvidenceMaxWords, Kind: selectors.KindInt, Max: 100000, Default: DefaultEvidenceMaxWords,
		Doc: "most words of a card with `evidence: cards` (0 = no limit)"},
		Note: "0 = no limit", DefaultDoc: "80", Allowed: "integer in [0, 100000]",
		field: func(s *Settings) any { return &s.EvidenceMaxWords }},
	{ParamSpec: selectors.ParamSpec{Name: KeyOffset, Kind: selectors.KindInt, Max: selectors.MaxCandidates,
		Doc: "the page after this many results: the selection continues the earlier pages (see Pages)"},
		Note: "the number of results the earlier pages showed", DefaultDoc: "0, or the query's `offset`", QueryOnly: true,
		Allowed: "integer >= 0",
		field:   func(s *Settings) any { return &s.Offset }},
	{ParamSpec: selectors.ParamSpec{Name: KeyWidenTo, Kind: selectors.KindInt,
		Doc: "when the pool is spent on near-copies with room left, retrieve this many candidates once and select again (see Widening)"},
		Note: "0 = off; above the pool", DefaultDoc: "0 = off",
		Allowed: "0, or an integer above the pool, at most `DIVERSE_SELECT_MAX_CANDIDATES`",
		field:   func(s *Settings) any { return &s.WidenTo }},
}

// CommonKeys lists the keys every strategy accepts, in documentation order.
var CommonKeys = keyNames()

func keyNames() []string {
	out := make([]string, len(Keys))
	for i, k := range Keys {
		out[i] = k.Name
	}
	return out
}

// LookupKey returns the common key of that name.
func LookupKey(name string) (Key, bool) {
	for _, k := range Keys {
		if k.Name == name {
			return k, true
		}
	}
	return Key{}, false
}

func orderNames() []string {
	out := make([]string, len(selectors.Orders))
	for i, o := range selectors.Orders {
		out[i] = string(o)
	}
	return out
}

// Spec is the key's ParamSpec as the running module checks it: a string
// key's Values as its Enum, an int key's open Max as lim.MaxCandidates.
func (k Key) Spec(lim Limits) selectors.ParamSpec {
	s := k.ParamSpec
	if k.Values != nil {
		s.Enum = k.Values()
	}
	if s.Kind == selectors.KindInt && s.Max == 0 {
		s.Max = float64(lim.MaxCandidates)
	}
	return s
}

// parse validates a raw value of the key within the module's limits with
// ParamSpec.Check. The value has the type of the key's field.
func (k Key) parse(v any, lim Limits) (any, error) {
	spec := k.Spec(lim)
	if s, ok := v.(string); ok && spec.Kind == selectors.KindString {
		if lim.MaxQueryBytes > 0 && len(s) > lim.MaxQueryBytes {
			allowed := k.Allowed
			if spec.Enum != nil {
				allowed = strings.Join(spec.Enum, ", ")
			}
			return nil, errf(k.Name, "is %d bytes long, above the module's limit of %d (DIVERSE_SELECT_MAX_QUERY_BYTES); allowed: %s",
				len(s), lim.MaxQueryBytes, allowed)
		}
		if s == "" && k.emptyUnset {
			return s, nil
		}
	}
	note := k.Note
	if k.Kind == selectors.KindInt && k.Max == 0 {
		note += "; at most DIVERSE_SELECT_MAX_CANDIDATES"
	}
	got, err := spec.Check(v)
	if err != nil {
		return nil, refusal(spec, note, err.(*selectors.ValueError))
	}
	switch spec.Kind {
	case selectors.KindStrings:
		return distinct(k.Name, got.([]string), lim)
	case selectors.KindString:
		if _, order := k.field(&Settings{}).(*selectors.Order); order {
			return selectors.Order(got.(string)), nil
		}
	}
	return got, nil
}

// refusal words a value ParamSpec.Check refused, as the module's errors
// always have (clients and tests read them): an int's range with its note,
// a float's interval, a string's allowed values.
func refusal(spec selectors.ParamSpec, note string, e *selectors.ValueError) error {
	v := e.Value
	switch spec.Kind {
	case selectors.KindInt:
		if e.WrongType {
			return errf(spec.Name, "must be an integer in [%d, %d] (%s), got %v (%T)", int(spec.Min), int(spec.Max), note, v, v)
		}
		return errf(spec.Name, "must be an integer in [%d, %d] (%s), got %v", int(spec.Min), int(spec.Max), note, v)
	case selectors.KindFloat:
		if e.WrongType {
			return errf(spec.Name, "must be a finite number, got %v (%T)", v, v)
		}
		f, _ := selectors.AsNumber(v)
		return errf(spec.Name, "is %v; allowed: a number in %s", f, spec.Interval())
	case selectors.KindStrings:
		if e.Element {
			return errf(spec.Name, "must be a list of strings, got element %v (%T)", v, v)
		}
		return errf(spec.Name, "must be a list of strings, got %v (%T)", v, v)
	}
	if e.WrongType {
		return errf(spec.Name, "must be a string, got %s (%T)", clip(fmt.Sprint(v)), v)
	}
	return errf(spec.Name, "is %q; allowed: %s", clip(v.(string)), strings.Join(spec.Enum, ", "))
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

// set stores a parsed value in the key's field of s.
func (k Key) set(s *Settings, v any) {
	switch dst := k.field(s).(type) {
	case *string:
		*dst = v.(string)
	case *int:
		*dst = v.(int)
	case *float64:
		*dst = v.(float64)
	case *[]string:
		*dst = v.([]string)
	case *selectors.Order:
		switch o := v.(type) {
		case selectors.Order:
			*dst = o
		case string: // a Default
			*dst = selectors.Order(o)
		}
	}
}

// copy copies the key's value from src to dst.
func (k Key) copy(dst, src *Settings) { k.set(dst, k.Value(src)) }

// Value returns the key's value in s (for /v1/meta).
func (k Key) Value(s *Settings) any {
	switch v := k.field(s).(type) {
	case *string:
		return *v
	case *int:
		return *v
	case *float64:
		return *v
	case *[]string:
		return *v
	case *selectors.Order:
		return *v
	}
	return nil
}
