package engine

import (
	"errors"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// The gRPC status of the module's errors. Weaviate's gRPC handler returns
// the stage's error as it is, and grpc-go answers an error without a status
// UNKNOWN; an error leaving the stage therefore carries its own (GRPCStatus,
// which grpc-go finds through any wrapping), with its message unchanged, so
// GraphQL reads the same text. The gateway (cmd/gateway) answers with the
// same codes.

// statusError is an error of the module with its gRPC code.
type statusError struct {
	err  error
	code codes.Code
}

func (e *statusError) Error() string { return e.err.Error() }
func (e *statusError) Unwrap() error { return e.err }

// GRPCStatus is the status grpc-go sends for the error.
func (e *statusError) GRPCStatus() *status.Status { return status.New(e.code, e.err.Error()) }

// withStatus gives err its gRPC code (Code); nil stays nil.
func withStatus(err error) error {
	if err == nil {
		return nil
	}
	return &statusError{err: err, code: Code(err)}
}

// Code is the gRPC code of an error of the selection, by its kind (the
// rows of errorKinds): bad input InvalidArgument, an exhausted limit
// ResourceExhausted, the time cap DeadlineExceeded, the client gone
// Canceled, candidates the strategy cannot select from FailedPrecondition,
// a recovered panic Internal; an error that already has a status keeps it.
func Code(err error) codes.Code {
	var se interface{ GRPCStatus() *status.Status }
	if errors.As(err, &se) {
		return se.GRPCStatus().Code()
	}
	switch errorKind(err) {
	case kindInvalidArgument:
		return codes.InvalidArgument
	case kindCapExceeded:
		return codes.ResourceExhausted
	case kindTimeout:
		return codes.DeadlineExceeded
	case kindCanceled:
		return codes.Canceled
	case kindInvalidData:
		return codes.FailedPrecondition
	case kindPanic, kindStrategy:
		return codes.Internal
	}
	return codes.Unknown
}
