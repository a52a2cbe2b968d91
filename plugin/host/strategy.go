package host

import (
	"context"
	"errors"
	"fmt"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/diverse-select/diverse-select/plugin/sdk"
	"github.com/diverse-select/diverse-select/selectors"
)

// strategy is a plugin's strategy with validated parameters: a
// selectors.Strategy whose Select is a call to the plugin.
type strategy struct {
	p      *Plugin
	params selectors.Params
}

// UsesTerms implements selectors.TermsUser: the module's analysed terms are
// not sent, so it need not compute them.
func (s *strategy) UsesTerms() bool { return false }

// Select sends the problem to the plugin within the call timeout and checks
// the selection it returns.
func (s *strategy) Select(ctx context.Context, prob *selectors.Problem) (*selectors.Result, error) {
	p := s.p
	timeout := p.host.timeout
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	c, err := p.conn(cctx)
	if err != nil {
		return nil, err
	}
	req, err := sdk.EncodeProblem(prob, s.params, p.desc.NeedsVectors, p.desc.NeedsText,
		selectors.PropertyParams(p.desc.Params, s.params))
	if err != nil {
		return nil, fmt.Errorf("plugin %q: %w", p.name, err)
	}
	resp, err := c.rpc.Select(cctx, req)
	sdk.ReleaseRequest(req) // sent (or failed): gRPC keeps no reference
	if err != nil {
		switch {
		case ctx.Err() != nil:
			return nil, ctx.Err() // the query ended; not the plugin's fault
		case errors.Is(cctx.Err(), context.DeadlineExceeded) || status.Code(err) == codes.DeadlineExceeded:
			cause := fmt.Errorf("did not answer within %s (DIVERSE_SELECT_PLUGIN_TIMEOUT)", timeout)
			p.failed(c.gen, cause)
			return nil, fmt.Errorf("plugin %q %v; it is being restarted", p.name, cause)
		case status.Code(err) == codes.Unavailable || c.client.Exited():
			cause := "its connection broke"
			if exit := p.exitCause(c.client); exit != "" {
				cause = "its process exited: " + exit
			}
			p.failed(c.gen, fmt.Errorf("crashed during a call (%s)", cause))
			return nil, fmt.Errorf("plugin %q crashed during the call (%s); it is being restarted", p.name, cause)
		}
		return nil, fmt.Errorf("plugin %q failed: %s", p.name, status.Convert(err).Message())
	}
	res := sdk.DecodeResult(resp)
	if err := selectors.CheckSelection(prob, res); err != nil {
		return nil, fmt.Errorf("plugin %q returned an invalid selection: %w", p.name, err)
	}
	for i := range res.Items {
		res.Items[i].Tokens = prob.Candidates[res.Items[i].Index].Tokens
	}
	p.succeeded()
	return res, nil
}
