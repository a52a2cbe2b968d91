package config

import (
	"fmt"
	"math"
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

// Kind is the type of a common key's value.
type Kind string

const (
	KindString  Kind = "string"
	KindInt     Kind = "int"
	KindFloat   Kind = "float"
	KindStrings Kind = "strings" // a list of strings
)

// Key declares one common key. The table Keys is the only place a key is
// described: Parse, Merge, CommonKeys, the GraphQL arguments, /v1/meta and
// the README's key table (checked by a test) all follow from it.
type Key struct {
	Name string
	Kind Kind
	// Enum lists a string key's allowed values (nil: any string).
	Enum func() []string
	// Min and Max bound a number (inclusive unless MinOpen); Max 0 on an int
	// key means the module's candidate cap (DIVERSE_SELECT_MAX_CANDIDATES).
	Min, Max float64
	MinOpen  bool
	// Note says what an int key's range means, in errors ("0 = no budget").
	Note string
	// Env is the environment variable that sets the module's default (see
	// Env); Default describes the default of a key without one.
	Env, Default string
	// Allowed describes the allowed values for the README.
	Allowed string
	// Doc says what the key does (README and GraphQL descriptions).
	Doc string
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

// Keys are the common keys, in documentation order.
var Keys = []Key{
	{Name: KeyStrategy, Kind: KindString, Enum: selectors.Names, Env: "DIVERSE_SELECT_STRATEGY",
		Allowed: "a registered strategy (see Strategies and `/v1/meta`)", Doc: "the selection algorithm",
		field: func(s *Settings) any { return &s.Strategy }},
	{Name: KeyTokenBudget, Kind: KindInt, Max: MaxTokenBudget, Note: "0 = no budget", Env: "DIVERSE_SELECT_TOKEN_BUDGET",
		Allowed: "integer in [0, 2^30]", Doc: "most tokens selected in total (0 = none)",
		field: func(s *Settings) any { return &s.TokenBudget }},
	{Name: KeyCandidates, Kind: KindInt, Min: 1, Note: "the pool retrieved before selection", Env: "DIVERSE_SELECT_CANDIDATES",
		Allowed: "integer in [1, `DIVERSE_SELECT_MAX_CANDIDATES`]", Doc: "pool retrieved before selection (top-level form)",
		field: func(s *Settings) any { return &s.Candidates }},
	{Name: KeyMaxResults, Kind: KindInt, Max: selectors.MaxCandidates, Note: "0 = no limit", Default: "0 = no limit",
		Allowed: "integer >= 0", Doc: "most objects selected (the query `limit` caps it too)",
		field: func(s *Settings) any { return &s.MaxResults }},
	{Name: KeyTextProperty, Kind: KindString, Default: "every text property of the class",
		Allowed: "a `text`/`text[]` property", Doc: "text counted for tokens and read by the text strategies",
		field: func(s *Settings) any { return &s.TextProperty }},
	{Name: KeyExtraTextProperties, Kind: KindStrings, Default: "none",
		Allowed: "list of text properties", Doc: "counted with `textProperty`",
		field: func(s *Settings) any { return &s.ExtraTextProperties }},
	{Name: KeyTokenizer, Kind: KindString, Enum: tokens.Names, emptyUnset: true, Env: "DIVERSE_SELECT_TOKENIZER",
		Allowed: "`cl100k_base`, `o200k_base`, `words`, `chars`", Doc: "token counter (BPE encodings are embedded: no download)",
		field: func(s *Settings) any { return &s.Tokenizer }},
	{Name: KeyTokenProperty, Kind: KindString, Default: "none",
		Allowed: "an `int` property", Doc: "property already holding each object's token count",
		field: func(s *Settings) any { return &s.TokenProperty }},
	{Name: KeyTargetVector, Kind: KindString, Default: `see "Named vectors"`,
		Allowed: "a named vector of the class", Doc: "vector compared between candidates",
		field: func(s *Settings) any { return &s.TargetVector }},
	{Name: KeyMultiVector, Kind: KindString, Enum: func() []string { return MultiVectorModes }, Default: "`maxsim`",
		Allowed: "`maxsim`, `mean`", Doc: "how candidates are compared on a multi-vector (ColBERT) target: `maxsim` the symmetric " +
			"Chamfer similarity of their vectors, `mean` the cosine of their mean-pooled vectors (see docs/multi-vector.md)",
		field: func(s *Settings) any { return &s.MultiVector }},
	{Name: KeySourceProperty, Kind: KindString, Default: "none",
		Allowed: "any property", Doc: "source of each object (URL or document) for source novelty (ngram)",
		field: func(s *Settings) any { return &s.SourceProperty }},
	{Name: KeyOrder, Kind: KindString, Enum: orderNames, Default: "`selection`",
		Allowed: "`selection`, `relevance`, `edges`", Doc: "output order; `edges` puts the best at both ends, for models that lose the middle",
		field: func(s *Settings) any { return &s.Order }},
	{Name: KeyDedupThreshold, Kind: KindFloat, Min: 0, MinOpen: true, Max: 1, Default: "off",
		Allowed: "number in (0, 1]", Doc: "first drop candidates whose cosine to a more relevant candidate is >= this",
		field: func(s *Settings) any { return &s.DedupThreshold }},
	{Name: KeyQuery, Kind: KindString, Default: "nearText concepts, or the bm25/hybrid query", QueryOnly: true,
		Allowed: "text", Doc: "query text for the strategies that read it",
		field: func(s *Settings) any { return &s.Query }},
	{Name: KeyEvidence, Kind: KindString, Enum: func() []string { return EvidenceModes }, emptyUnset: true, Default: "`off`",
		Allowed: "`off`, `auto`, `cards`", Doc: `evidence cards: select and return each chunk's best sentences for the query (see docs/evidence-cards.md)`,
		field: func(s *Settings) any { return &s.Evidence }},
	{Name: KeyEvidenceSentences, Kind: KindInt, Min: 1, Max: 64, Note: "sentences per card, the lead sentence included", Default: "3",
		Allowed: "integer in [1, 64]", Doc: "most sentences of a card with `evidence: cards` (the first sentence and the best by query overlap)",
		field: func(s *Settings) any { return &s.EvidenceSentences }},
	{Name: KeyEvidenceMaxWords, Kind: KindInt, Max: 100000, Note: "0 = no limit", Default: "80",
		Allowed: "integer in [0, 100000]", Doc: "most words of a card with `evidence: cards` (0 = no limit)",
		field: func(s *Settings) any { return &s.EvidenceMaxWords }},
	{Name: KeyOffset, Kind: KindInt, Max: selectors.MaxCandidates, Note: "the number of results the earlier pages showed",
		Default: "0, or the query's `offset`", QueryOnly: true,
		Allowed: "integer >= 0", Doc: "the page after this many results: the selection continues the earlier pages (see Pages)",
		field: func(s *Settings) any { return &s.Offset }},
	{Name: KeyWidenTo, Kind: KindInt, Note: "0 = off; above the pool", Default: "0 = off",
		Allowed: "0, or an integer above the pool, at most `DIVERSE_SELECT_MAX_CANDIDATES`",
		Doc:     "when the pool is spent on near-copies with room left, retrieve this many candidates once and select again (see Widening)",
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

// parse validates a raw value of the key within the module's limits
// (MaxCandidates is the Max of candidates). The value has the type of the
// key's field.
func (k Key) parse(v any, lim Limits) (any, error) {
	switch k.Kind {
	case KindInt:
		hi, note := int(k.Max), k.Note
		if hi == 0 {
			hi, note = lim.MaxCandidates, note+"; at most DIVERSE_SELECT_MAX_CANDIDATES"
		}
		return intIn(k.Name, v, int(k.Min), hi, note)
	case KindFloat:
		f, err := number(k.Name, v)
		if err == nil && (f < k.Min || f > k.Max || k.MinOpen && f == k.Min) {
			err = errf(k.Name, "is %v; allowed: a number in %s", f, k.floatRange())
		}
		return f, err
	case KindStrings:
		return strSet(k.Name, v, lim)
	}
	s, err := str(k.Name, v)
	if err == nil && lim.MaxQueryBytes > 0 && len(s) > lim.MaxQueryBytes {
		allowed := k.Allowed
		if k.Enum != nil {
			allowed = strings.Join(k.Enum(), ", ")
		}
		return nil, errf(k.Name, "is %d bytes long, above the module's limit of %d (DIVERSE_SELECT_MAX_QUERY_BYTES); allowed: %s",
			len(s), lim.MaxQueryBytes, allowed)
	}
	if err == nil && k.Enum != nil && !(s == "" && k.emptyUnset) {
		if allowed := k.Enum(); !contains(allowed, s) {
			err = errf(k.Name, "is %q; allowed: %s", clip(s), strings.Join(allowed, ", "))
		}
	}
	if _, order := k.field(&Settings{}).(*selectors.Order); order {
		return selectors.Order(s), err
	}
	return s, err
}

func (k Key) floatRange() string {
	lo := "["
	if k.MinOpen {
		lo = "("
	}
	return fmt.Sprintf("%s%v, %v]", lo, k.Min, k.Max)
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
		*dst = v.(selectors.Order)
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

func number(key string, v any) (float64, error) {
	f, ok := selectors.AsNumber(v)
	if !ok {
		return 0, errf(key, "must be a finite number, got %v (%T)", v, v)
	}
	return f, nil
}

func intIn(key string, v any, lo, hi int, note string) (int, error) {
	f, err := number(key, v)
	if err != nil {
		return 0, errf(key, "must be an integer in [%d, %d] (%s), got %v (%T)", lo, hi, note, v, v)
	}
	if f != math.Trunc(f) || f < float64(lo) || f > float64(hi) {
		return 0, errf(key, "must be an integer in [%d, %d] (%s), got %v", lo, hi, note, v)
	}
	return int(f), nil
}
