package diverseselect

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"

	"github.com/sirupsen/logrus"
	"github.com/tailor-platform/graphql/language/ast"
	"github.com/weaviate/weaviate/entities/dto"
	"github.com/weaviate/weaviate/entities/models"
	"github.com/weaviate/weaviate/entities/moduletools"
	"github.com/weaviate/weaviate/entities/search"
	"github.com/weaviate/weaviate/usecases/modulecomponents/additional/rank"
)

// The module runs inside the user's Weaviate process, where a panic would
// take the whole database down. Every function Weaviate (or the patch glue)
// calls is entered through a guard below: a panic is logged with its stack
// through the module's logger and becomes an error. The entry points name
// the module once (named); the errors inside carry no prefix of their own.

// named adds the module's name to an error leaving the module, once, at
// the entry point: "diverseSelect: <cause>".
func named(module string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", module, err)
}

// recoverTo, deferred directly, turns a panic of the calling function into
// *err; where names the entry point in the log and the error.
func recoverTo(logger logrus.FieldLogger, where string, err *error) {
	if p := recover(); p != nil {
		*err = panicError(logger, where, p, debug.Stack())
	}
}

// panicError logs a recovered panic p with its stack at error level and
// returns the error the query gets (marked errPanic, without the stack).
// recoverTo and a strategy's selectors.PanicError both report through it.
func panicError(logger logrus.FieldLogger, where string, p any, stack []byte) error {
	if logger == nil {
		logger = logrus.StandardLogger()
	}
	logger.WithFields(logrus.Fields{"panic": fmt.Sprint(p), "where": where, "stack": string(stack)}).
		Error("diverse-select: panic recovered")
	return fmt.Errorf("%w in %s (logged by the server with its stack): %v", errPanic, where, p)
}

// guard runs fn, turning a panic into an error (see recoverTo). Plugin
// calls and new entry points use it too.
func guard(logger logrus.FieldLogger, where string, fn func() error) (err error) {
	defer recoverTo(logger, where, &err)
	return fn()
}

// MetaInfo is shown in /v1/meta (see metaInfo).
func (m *Module) MetaInfo() (info map[string]any, err error) {
	err = guard(m.logger, "meta info", func() error {
		var merr error
		info, merr = m.metaInfo()
		return merr
	})
	return info, err
}

// extractArgument parses the top-level argument (Weaviate's
// GraphQLArgument.ExtractFunction). Extractors cannot return errors to
// Weaviate, so a failure travels in the Request to PreparePostProcess.
func (m *Module) extractArgument(raw map[string]any) (any, *dto.TargetCombination, error) {
	var r *Request
	if err := guard(m.logger, "argument parsing", func() error { r = m.parseArgument(raw); return nil }); err != nil {
		r = &Request{m: m, form: formArgument, err: err}
	}
	return r, nil, nil
}

// extractField parses _additional { diverseSelect(...) } (Weaviate's
// GraphQLExtractFunction).
func (m *Module) extractField(args []*ast.Argument, class *models.Class) any {
	var r *Request
	if err := guard(m.logger, "argument parsing", func() error { r = m.parseField(args, class); return nil }); err != nil {
		r = &Request{m: m, form: formField, hasArgs: len(args) > 0, err: err}
	}
	return r
}

// SelectionArguments is called by the selection-argument glue in
// Weaviate's Get resolver with the query's arguments (see Request).
func (r *Request) SelectionArguments(args map[string]any) error {
	if err := guard(r.m.logger, "query arguments", func() error { r.selectionArguments(args); return nil }); err != nil {
		r.err = err // reported by the stage
	}
	return nil
}

// ValidateClass refuses a class whose diverse-select config is invalid, on
// create and on update, with a message naming the key and the allowed values.
func (m *Module) ValidateClass(_ context.Context, class *models.Class, _ moduletools.ClassConfig) error {
	return named(ArgName, guard(m.logger, "class config validation", func() error { return m.validateClass(class) }))
}

// ValidateClass refuses an invalid config (same keys as diverse-select) and a
// class that configures another reranker too.
func (rr *Reranker) ValidateClass(_ context.Context, class *models.Class, _ moduletools.ClassConfig) error {
	return guard(rr.m.logger, "class config validation", func() error { return rr.validateClass(class) })
}

// selectHook is the result hook of _additional { diverseSelect }. The
// selection stage takes every query that asks for it before its hooks run,
// so a query reaches the hook only by a path that has no stage.
func (m *Module) selectHook(context.Context, []search.Result, any, *int, map[string]any, moduletools.ClassConfig) ([]search.Result, error) {
	return nil, named(ArgName, errNoStage)
}

// rerankHook is the result hook of the rerank property. The stage takes a
// rerank on a class that configures the module; Weaviate calls the hook
// when this is the only reranker enabled and the class configures none.
func (rr *Reranker) rerankHook(_ context.Context, in []search.Result, _ any, _ *int, _ map[string]any, _ moduletools.ClassConfig) ([]search.Result, error) {
	if len(in) > 0 {
		if class := rr.m.classByName(in[0].ClassName); class != nil && classConfig(class, RerankerName) == nil {
			return nil, fmt.Errorf("%s: class %s does not configure it: add moduleConfig {%q: {...}} to use diverse selection as its reranker",
				RerankerName, class.Class, RerankerName)
		}
	}
	return nil, named(RerankerName, errNoStage)
}

// errNoStage: a hook of the module ran outside the selection stage.
var errNoStage = errors.New("diverse selection runs in Weaviate's selection stage, which this search path does not reach")

// extractRerankGuarded is extractRerank behind a guard: on a panic the
// params are empty (the panic is logged). It reads the module's logger when
// called, not when the property is registered, so Init's logger is used.
func (rr *Reranker) extractRerankGuarded(args []*ast.Argument, class *models.Class) any {
	var out any
	if err := guard(rr.m.logger, "rerank argument parsing", func() error { out = extractRerank(args, class); return nil }); err != nil {
		return &rank.Params{}
	}
	return out
}
