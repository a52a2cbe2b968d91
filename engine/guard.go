package engine

import (
	"fmt"
	"runtime/debug"

	"github.com/sirupsen/logrus"
)

// The module runs inside the user's Weaviate process, where a panic would
// take the whole database down. Every function Weaviate (or the patch glue)
// calls is entered through Guard below: a panic is logged with its stack
// through the module's logger and becomes an error. The entry points name
// the module once (Named); the errors inside carry no prefix of their own.

// Named adds the module's name to an error leaving the module, once, at
// the entry point: "diverseSelect: <cause>".
func Named(module string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", module, err)
}

// recoverTo, deferred directly, turns a panic of the calling function into
// *err; where names the entry point in the log and the error.
func recoverTo(logger logrus.FieldLogger, where string, err *error) {
	if p := recover(); p != nil {
		*err = PanicError(logger, where, p, debug.Stack())
	}
}

// PanicError logs a recovered panic p with its stack at error level and
// returns the error the query gets (marked errPanic, without the stack).
// recoverTo and a strategy's selectors.PanicError both report through it.
func PanicError(logger logrus.FieldLogger, where string, p any, stack []byte) error {
	if logger == nil {
		logger = logrus.StandardLogger()
	}
	logger.WithFields(logrus.Fields{"panic": fmt.Sprint(p), "where": where, "stack": string(stack)}).
		Error("diverse-select: panic recovered")
	return fmt.Errorf("%w in %s (logged by the server with its stack): %v", errPanic, where, p)
}

// Guard runs fn, turning a panic into an error (see recoverTo). Plugin
// calls and new entry points use it too.
func Guard(logger logrus.FieldLogger, where string, fn func() error) (err error) {
	defer recoverTo(logger, where, &err)
	return fn()
}
