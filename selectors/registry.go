package selectors

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
)

// Strategy selects a subset of a problem's candidates.
//
// Select receives a validated problem (Run has already applied the dedup
// pre-pass) and returns items in selection order, with Rank, Gain, Relevance,
// Redundancy and Tokens filled in; it must honour p.Budget and p.K(), be
// deterministic, and check ctx in its loops. Run fills Result.TokensUsed,
// Budget and Strategy and applies the output order.
type Strategy interface {
	Select(ctx context.Context, p *Problem) (*Result, error)
}

// MatrixUser is implemented by strategies that form N x N matrices (the
// cosine matrix and derived kernels): MatrixBytes is the memory they need
// for n candidates, which Run checks against Problem.MaxMatrixBytes.
// Strategies that read only similarity rows need O(N) per row and do not
// implement it.
type MatrixUser interface {
	MatrixBytes(n int) int64
}

// ErrMatrixTooLarge wraps the error of a problem whose strategy needs more
// matrix memory than Problem.MaxMatrixBytes allows.
var ErrMatrixTooLarge = errors.New("similarity matrix too large")

// Definition describes a strategy in the registry.
type Definition struct {
	Name string
	// Doc is a one-line summary shown in the module's meta info.
	Doc string
	// Params are the strategy's own parameters.
	Params []ParamSpec
	// NeedsVectors is true when the strategy compares candidate vectors.
	NeedsVectors bool
	// NeedsText is true when the strategy reads candidate texts.
	NeedsText bool
	// NeedsSources is true when the strategy reads candidate sources
	// (Candidate.Source): the module reads the sourceProperty only then.
	NeedsSources bool
	// Continues is true when Select honours Problem.Preselected: it counts
	// those candidates as already selected (their coverage and redundancy,
	// the near-copy guard) and selects the best continuation, so that paged
	// selections continue one greedy run. For a strategy without it, Run
	// removes the preselected candidates and selects from the rest of the
	// pool as if they had never been there.
	Continues bool
	// New builds the strategy from validated parameters.
	New func(p Params) (Strategy, error)
	// Unavailable, when set, is why the strategy cannot run (an external
	// plugin that failed to start): New(name, ...) returns it before looking
	// at the parameters, so a query naming the strategy gets the cause.
	Unavailable error
}

var (
	registryMu sync.RWMutex
	registry   = map[string]Definition{}
)

// Register adds a strategy definition; it panics on a duplicate or malformed
// definition, since that is a programming error found at start-up.
func Register(d Definition) {
	if d.New == nil {
		panic("selectors: Register needs a Name and a New function")
	}
	if err := Add(d); err != nil {
		panic(err.Error())
	}
}

// Add registers a definition loaded at run time (an external plugin's): like
// Register, but a duplicate or malformed definition is an error, not a panic,
// and a definition may be Unavailable instead of having a New function. The
// parameter specs must pass CheckParamSpecs and CheckParamKinds.
func Add(d Definition) error {
	registryMu.Lock()
	defer registryMu.Unlock()
	if d.Name == "" || (d.New == nil && d.Unavailable == nil) {
		return fmt.Errorf("selectors: strategy %q needs a name and a New function (or an Unavailable cause)", d.Name)
	}
	if _, dup := registry[d.Name]; dup {
		return fmt.Errorf("selectors: a strategy named %q is already registered", d.Name)
	}
	if err := CheckParamSpecs(d.Name, d.Params); err != nil {
		return fmt.Errorf("selectors: strategy %q: %w", d.Name, err)
	}
	if err := checkKinds(d.Params); err != nil {
		return fmt.Errorf("selectors: strategy %q: %w", d.Name, err)
	}
	registry[d.Name] = d
	return nil
}

// Lookup returns the definition of a strategy by name.
func Lookup(name string) (Definition, bool) {
	registryMu.RLock()
	defer registryMu.RUnlock()
	d, ok := registry[name]
	return d, ok
}

// Names returns the registered strategy names, sorted.
func Names() []string {
	registryMu.RLock()
	defer registryMu.RUnlock()
	return sortedNames()
}

// sortedNames is Names with registryMu held.
func sortedNames() []string {
	out := make([]string, 0, len(registry))
	for n := range registry {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Definitions returns every registered definition, sorted by name.
func Definitions() []Definition {
	names := Names()
	out := make([]Definition, len(names))
	for i, n := range names {
		out[i], _ = Lookup(n)
	}
	return out
}

// UnknownStrategyError names the strategy asked for and the ones available.
type UnknownStrategyError struct{ Name string }

func (e *UnknownStrategyError) Error() string {
	return fmt.Sprintf("unknown strategy %q; allowed: %s", e.Name, strings.Join(Names(), ", "))
}

// Selector is a configured strategy, ready to Run on problems. It is
// immutable and safe for concurrent use.
type Selector struct {
	Def    Definition
	Params Params
	impl   Strategy
}

// TermsUser is implemented by text strategies whose use of the analysed
// terms depends on their parameters (knapsack reads none with concepts
// "clusters").
type TermsUser interface {
	UsesTerms() bool
}

// VectorsUser is implemented by strategies whose use of the candidates'
// vectors depends on their parameters (knapsack compares vectors only with
// concepts "clusters", so its Definition says NeedsVectors false).
type VectorsUser interface {
	UsesVectors() bool
}

// UsesVectors reports whether the configured strategy reads the candidates'
// vectors, so a caller knows to load them.
func (s *Selector) UsesVectors() bool {
	if vu, ok := s.impl.(VectorsUser); ok {
		return vu.UsesVectors()
	}
	return s.Def.NeedsVectors
}

// UsesTerms reports whether the configured strategy reads the candidates'
// analysed terms (Candidate.Terms or the analysis of Candidate.Text), so a
// caller knows whether precomputing them pays.
func (s *Selector) UsesTerms() bool {
	if tu, ok := s.impl.(TermsUser); ok {
		return tu.UsesTerms()
	}
	return s.Def.NeedsText
}

// MatrixBytes is the memory of the N x N matrices the configured strategy
// forms for n candidates (MatrixUser); 0 for a strategy that reads only
// similarity rows.
func (s *Selector) MatrixBytes(n int) int64 {
	if mu, ok := s.impl.(MatrixUser); ok {
		return mu.MatrixBytes(n)
	}
	return 0
}

// New builds a selector by strategy name from raw parameter values (as
// decoded from JSON or GraphQL), validating them against the strategy's specs.
func New(name string, raw map[string]any) (*Selector, error) {
	d, ok := Lookup(name)
	if !ok {
		return nil, &UnknownStrategyError{name}
	}
	if d.Unavailable != nil {
		return nil, d.Unavailable
	}
	params, err := ValidateParams(name, d.Params, raw)
	if err != nil {
		return nil, err
	}
	impl, err := d.New(params)
	if err != nil {
		return nil, err
	}
	return &Selector{Def: d, Params: params, impl: impl}, nil
}
