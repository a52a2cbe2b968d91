package diverseselect

import (
	"context"
	"net/http"
	"time"

	"github.com/weaviate/weaviate/entities/models"

	"github.com/diverse-select/diverse-select/config"
	"github.com/diverse-select/diverse-select/engine"
)

// SegmentHandler serves the segmentation endpoint outside Weaviate - the
// gateway, in front of a stock Weaviate that has no such endpoint - with
// RootHandler's limits, checks and chunkers over e's tokenizers;
// authenticate and authorize stand in for Weaviate's, as the registration
// glue hands them to the module (nil: every request is refused).
func SegmentHandler(e *engine.Engine, cfg config.Segment,
	authenticate func(r *http.Request) (*models.Principal, error),
	authorize func(ctx context.Context, principal *models.Principal, verb string, resources ...string) error,
) http.Handler {
	m := &Module{e: e, segmentConfig: cfg, encoderClient: &http.Client{Timeout: 30 * time.Second},
		authenticator: authenticate, authorize: authorize}
	return http.HandlerFunc(m.serveSegment)
}
