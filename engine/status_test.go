package engine

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/diverse-select/diverse-select/config"
	"github.com/diverse-select/diverse-select/selectors"
)

// TestStatusCodes: each kind of the stage's errors leaves with its gRPC
// code, found by grpc-go through Weaviate's wrapping, message unchanged.
func TestStatusCodes(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want codes.Code
	}{
		{"bad setting", &config.Error{Key: "tokenBudget", Msg: "must be an integer"}, codes.InvalidArgument},
		{"refused", &markedError{mark: errRefused, err: errors.New("groupBy")}, codes.InvalidArgument},
		{"candidate cap", candidateCapError(5000, 2000), codes.ResourceExhausted},
		{"matrix cap", fmt.Errorf("x: %w", selectors.ErrMatrixTooLarge), codes.ResourceExhausted},
		{"time cap", &markedError{mark: context.DeadlineExceeded, err: errors.New("ran longer")}, codes.DeadlineExceeded},
		{"client gone", fmt.Errorf("selection cancelled: %w", context.Canceled), codes.Canceled},
		{"no vector", invalidData("object %s has no vector", "x"), codes.FailedPrecondition},
		{"panic", fmt.Errorf("%w in x", errPanic), codes.Internal},
		{"strategy", strategyError(errors.New("boom")), codes.Internal},
		{"other", errors.New("something"), codes.Unknown},
		{"a status already", status.Error(codes.PermissionDenied, "no"), codes.PermissionDenied},
	} {
		err := withStatus(Named(RerankerName, tc.err))
		wrapped := fmt.Errorf("explorer: get class: %w", err) // as Weaviate's handler may wrap it
		st, ok := status.FromError(wrapped)
		if !ok || st.Code() != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, st.Code(), tc.want)
		}
		if st.Message() != wrapped.Error() || err.Error() != Named(RerankerName, tc.err).Error() {
			t.Errorf("%s: the message changed: %q", tc.name, st.Message())
		}
	}
	if withStatus(nil) != nil {
		t.Error("nil is not an error")
	}
}
