package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/diverse-select/diverse-select/config"
	"github.com/diverse-select/diverse-select/selectors"
)

// Error kinds of diverse_select_errors_total.
const (
	kindInvalidArgument = "invalid_argument" // a query or class setting refused (config.Error)
	kindInvalidData     = "invalid_data"     // the candidates cannot be selected from (no vector, NaN, ...)
	kindCapExceeded     = "cap_exceeded"     // candidate or matrix memory cap
	kindStrategy        = "strategy"         // the strategy failed
	kindPanic           = "panic"            // recovered panic in the module
	kindCanceled        = "canceled"         // the client went away
	kindTimeout         = "timeout"          // a deadline passed
	kindOther           = "other"
)

var (
	// errPanic marks the error of a recovered panic.
	errPanic = errors.New("internal error")
	// errCapExceeded marks a refusal by the module's candidate cap.
	errCapExceeded = errors.New("candidate cap exceeded")
	// errRefused marks a query the module refuses outside config.Parse
	// (groupBy, after): counted as invalid_argument like a
	// config.Error.
	errRefused = errors.New("query refused")
)

// errorKinds maps sentinel errors to kinds, first match wins; append a row
// for a new failure mode (a time cap, a plugin strategy's error, ...).
var errorKinds = []struct {
	target error
	kind   string
}{
	{context.Canceled, kindCanceled},
	{context.DeadlineExceeded, kindTimeout},
	{errPanic, kindPanic},
	{errCapExceeded, kindCapExceeded},
	{selectors.ErrMatrixTooLarge, kindCapExceeded},
	{errRefused, kindInvalidArgument},
	{selectors.ErrInvalidProblem, kindInvalidData},
	{errStrategy, kindStrategy},
}

// errStrategy marks an error returned by a strategy's run (see strategyError).
var errStrategy = errors.New("strategy failed")

// strategyError marks err as the strategy's, keeping its message and chain.
func strategyError(err error) error { return &markedError{err: err, mark: errStrategy} }

type markedError struct{ err, mark error }

func (e *markedError) Error() string { return e.err.Error() }

func (e *markedError) Unwrap() []error { return []error{e.err, e.mark} }

// errorKind classifies a failed selection for diverse_select_errors_total.
func errorKind(err error) string {
	for _, k := range errorKinds {
		if errors.Is(err, k.target) {
			return k.kind
		}
	}
	var cfgErr *config.Error
	if errors.As(err, &cfgErr) {
		return kindInvalidArgument
	}
	return kindOther
}

// errNoStage: a hook of the module ran outside the selection stage.
var errNoStage = errors.New("diverse selection runs in Weaviate's selection stage, which this search path does not reach")

func candidateCapError(n, limit int) error {
	return &markedError{mark: errCapExceeded, err: fmt.Errorf("%d candidates exceed the module's cap of %d "+
		"(DIVERSE_SELECT_MAX_CANDIDATES); lower candidates, or with _additional { diverseSelect } the query limit, "+
		"which is the pool there", n, limit)}
}

func invalidData(format string, args ...any) error {
	return &markedError{mark: selectors.ErrInvalidProblem, err: fmt.Errorf(format, args...)}
}

// searchError is an error of the pool's search: Weaviate's, which the
// query gets as it is.
type searchError struct{ err error }

func (e *searchError) Error() string { return e.err.Error() }

func (e *searchError) Unwrap() error { return e.err }
