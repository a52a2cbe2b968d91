package diverseselect

import (
	"github.com/diverse-select/diverse-select/config"
	"github.com/diverse-select/diverse-select/plugin/host"
	"github.com/diverse-select/diverse-select/selectors"
)

// startPlugins starts the external selector plugins the environment names
// (package plugin/host), once per process: the two module names share this
// engine. A broken plugin does not stop Weaviate; a malformed variable does.
func (e *engine) startPlugins() error {
	var err error
	e.pluginsOnce.Do(func() {
		var cfg config.Plugins
		if cfg, err = config.PluginsFromEnv(nil); err == nil {
			e.plugins = host.Start(cfg, e.logger)
		}
	})
	return err
}

// propertyParams are the object properties the strategy in effect reads
// through its parameters of kind property (external strategies).
func propertyParams(eff *config.Effective) []string {
	if eff == nil || eff.Selector == nil {
		return nil
	}
	return selectors.PropertyParams(eff.Selector.Def.Params, eff.Selector.Params)
}

// pickProperties copies the named properties of one object (absent ones
// are null).
func pickProperties(props map[string]any, names []string) map[string]any {
	out := make(map[string]any, len(names))
	for _, n := range names {
		out[n] = props[n]
	}
	return out
}
