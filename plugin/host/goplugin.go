package host

import (
	"context"
	"errors"
	"fmt"
	"regexp"

	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/diverse-select/diverse-select/plugin/sdk"
)

// go-plugin's errors in words a Weaviate operator can act on (its log
// lines are translated by logWriter, log.go).

// versionMismatch matches go-plugin's error for another protocol version.
var versionMismatch = regexp.MustCompile(`Plugin version: (\d+)`)

// explain rewords go-plugin's start errors.
func (p *Plugin) explain(err error) error {
	switch {
	case errors.Is(err, plugin.ErrChecksumsDoNotMatch):
		return fmt.Errorf("the SHA-256 of %s does not match its pin in DIVERSE_SELECT_PLUGIN_SHA256", p.path)
	case versionMismatch.MatchString(err.Error()):
		v := versionMismatch.FindStringSubmatch(err.Error())[1]
		return fmt.Errorf("plugin speaks protocol %s, this module speaks %d (rebuild it with this version's plugin/sdk)", v, sdk.ProtocolVersion)
	}
	return fmt.Errorf("start: %w", err)
}

// callError explains a failed Select call of generation c, and has a
// plugin that hung past the call timeout (cctx) or crashed restarted. ctx is
// the query's: when it ended, the plugin is not at fault.
func (p *Plugin) callError(ctx, cctx context.Context, c conn, err error) error {
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case errors.Is(cctx.Err(), context.DeadlineExceeded) || status.Code(err) == codes.DeadlineExceeded:
		cause := fmt.Errorf("did not answer within %s (DIVERSE_SELECT_PLUGIN_TIMEOUT)", p.host.timeout)
		p.failed(c.gen, cause)
		return fmt.Errorf("plugin %q %v; it is being restarted", p.name, cause)
	case status.Code(err) == codes.Unavailable || c.client.Exited():
		cause := "its connection broke"
		if exit := p.exitCause(c.client); exit != "" {
			cause = "its process exited: " + exit
		}
		p.failed(c.gen, fmt.Errorf("crashed during a call (%s)", cause))
		return fmt.Errorf("plugin %q crashed during the call (%s); it is being restarted", p.name, cause)
	}
	return fmt.Errorf("plugin %q failed: %s", p.name, status.Convert(err).Message())
}
