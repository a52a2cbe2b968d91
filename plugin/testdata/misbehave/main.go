// Command misbehave is the plugin of the plugin tests. One binary, copied
// under several names; its file name (= the strategy name) picks what it does:
//
//	passthrough  runs the built-in mmr with mmr's parameters (overhead benchmark, equality checks)
//	crash        exits with status 3 in Select while its parameter crash is true (the default)
//	hang         never answers Select
//	cheat        returns an invalid selection (parameter cheat: duplicate, outofrange, overbudget, toomany)
//	badversion   speaks protocol version sdk.ProtocolVersion+1
package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"

	"github.com/hashicorp/go-plugin"

	"github.com/diverse-select/diverse-select/plugin/sdk"
	"github.com/diverse-select/diverse-select/selectors"
	"github.com/diverse-select/diverse-select/selectors/mmr"
)

type misbehave struct{ role string }

func (m misbehave) Describe() sdk.Description {
	d := sdk.Description{Doc: "test plugin: " + m.role, NeedsVectors: true}
	switch m.role {
	case "env": // tells the host the environment it was started with
		d.Doc += " env=" + strings.Join(os.Environ(), ";")
		def, _ := selectors.Lookup(mmr.Name)
		d.Params = def.Params
	case "crash":
		d.Params = []selectors.ParamSpec{{Name: "crash", Kind: selectors.KindBool, Default: true, Doc: "exit in Select"}}
	case "cheat":
		d.Params = []selectors.ParamSpec{{Name: "cheat", Kind: selectors.KindString, Default: "duplicate",
			Enum: []string{"duplicate", "outofrange", "overbudget", "toomany"}, Doc: "how to cheat"}}
	default:
		def, _ := selectors.Lookup(mmr.Name)
		d.Params = def.Params
	}
	return d
}

func (m misbehave) Select(ctx context.Context, p *selectors.Problem, params selectors.Params) (*selectors.Result, error) {
	switch m.role {
	case "crash":
		if params.Bool("crash") {
			os.Exit(3)
		}
	case "hang":
		select {}
	case "cheat":
		return cheat(p, params.String("cheat")), nil
	}
	raw := map[string]any(params) // the other roles declare mmr's parameters
	if m.role == "crash" {
		raw = nil // its parameter is its own, not mmr's
	}
	s, err := selectors.New(mmr.Name, raw)
	if err != nil {
		return nil, err
	}
	return s.Run(ctx, p)
}

// cheat returns a selection the module must refuse.
func cheat(p *selectors.Problem, how string) *selectors.Result {
	item := func(i int) selectors.Item { return selectors.Item{Index: i, Gain: 1} }
	r := &selectors.Result{}
	switch how {
	case "duplicate":
		r.Items = []selectors.Item{item(0), item(0)}
	case "outofrange":
		r.Items = []selectors.Item{item(len(p.Candidates))}
	case "overbudget": // just over: the fewest items that exceed the budget
		used := 0
		for i := 0; i < len(p.Candidates) && used <= p.Budget; i++ {
			r.Items = append(r.Items, item(i))
			used += p.Candidates[i].Tokens
		}
	case "toomany":
		for i := 0; i <= p.K() && i < len(p.Candidates); i++ {
			r.Items = append(r.Items, item(i))
		}
	}
	return r
}

func main() {
	role := strings.TrimSuffix(filepath.Base(os.Args[0]), filepath.Ext(os.Args[0]))
	hs := sdk.Handshake
	if role == "badversion" {
		hs.ProtocolVersion = sdk.ProtocolVersion + 1
	}
	plugin.Serve(sdk.ServeConfig(misbehave{role: role}, hs))
}
