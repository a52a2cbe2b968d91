package host

import (
	"context"
	"fmt"

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
	cctx, cancel := context.WithTimeout(ctx, p.host.timeout)
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
		return nil, p.callError(ctx, cctx, c, err)
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
