package host

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"

	"github.com/diverse-select/diverse-select/config"
	"github.com/diverse-select/diverse-select/plugin/proto"
	"github.com/diverse-select/diverse-select/plugin/sdk"
	"github.com/diverse-select/diverse-select/selectors"
)

// validName is the rule for a strategy name taken from a file name.
var validName = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9_-]*$`)

// checkName refuses a file name that cannot be a strategy name, or that a
// built-in strategy or an earlier plugin already has.
func (p *Plugin) checkName() error {
	if !validName.MatchString(p.name) {
		return fmt.Errorf("file name %q does not give a valid strategy name (a letter, then letters, digits, - or _)", filepath.Base(p.path))
	}
	if _, exists := selectors.Lookup(p.name); exists {
		return fmt.Errorf("a strategy named %q already exists; rename the plugin file", p.name)
	}
	return nil
}

// firstStart starts the plugin and reads and checks its description: the
// parameter-spec rules of every strategy (selectors.CheckParamSpecs), and
// no parameter named like a common key (config.CommonKeys; the module's
// GraphQL schema refuses that for built-ins).
func (p *Plugin) firstStart() error {
	if err := p.start(); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), p.host.timeout)
	defer cancel()
	c, err := p.conn(ctx)
	var d *proto.Description
	if err == nil {
		d, err = c.rpc.Describe(ctx, &proto.DescribeRequest{})
	}
	if err == nil {
		p.desc, err = sdk.DescriptionFromProto(d)
	}
	if err == nil {
		err = selectors.CheckParamSpecs(p.name, p.desc.Params)
	}
	if err == nil {
		err = checkCommonKeys(p.desc.Params)
	}
	if err != nil {
		p.kill()
		return fmt.Errorf("describe: %w", err)
	}
	return nil
}

// register adds the plugin's strategy to the registry: runnable, or
// unavailable with the cause of failure (a parameter whose kind clashes
// with a registered strategy's is such a cause).
func (p *Plugin) register(startErr error) {
	def := selectors.Definition{Name: p.name}
	err := startErr
	if err == nil {
		err = selectors.CheckParamKinds(p.desc.Params)
		if err != nil {
			p.kill()
		}
	}
	if err != nil {
		p.fail(err, "diverse-select: plugin unavailable")
		def.Doc = "external plugin " + p.path + ", unavailable: " + err.Error()
		def.Unavailable = fmt.Errorf("strategy %q (plugin %s) is unavailable: %w", p.name, p.path, err)
	} else {
		def.Doc = p.desc.Doc
		def.Params = p.desc.Params
		def.NeedsVectors = p.desc.NeedsVectors
		def.NeedsText = p.desc.NeedsText
		def.NeedsSources = true // the protocol sends every candidate's source
		def.New = func(params selectors.Params) (selectors.Strategy, error) {
			return &strategy{p: p, params: params}, nil
		}
		p.host.logger.WithField("plugin", p.name).WithField("path", p.path).Info("diverse-select: plugin started")
	}
	if err := selectors.Add(def); err != nil {
		p.kill()
		p.fail(err, "diverse-select: plugin not registered")
	}
}

// checkCommonKeys refuses a parameter named like a common key: the key
// would shadow it in every query.
func checkCommonKeys(specs []selectors.ParamSpec) error {
	for _, s := range specs {
		if slices.Contains(config.CommonKeys, s.Name) {
			return fmt.Errorf("parameter %q has the name of a common key; allowed: any other name", s.Name)
		}
	}
	return nil
}
