package diverseselect

import (
	"github.com/diverse-select/diverse-select/config"
	"github.com/diverse-select/diverse-select/engine"
	"github.com/diverse-select/diverse-select/plugin/host"
	"github.com/diverse-select/diverse-select/selectors"
	"github.com/diverse-select/diverse-select/selectors/tokens"
	"github.com/diverse-select/diverse-select/simcache"
)

// metaInfo is shown in /v1/meta: the version, every strategy with its
// parameters, the common keys and every module default in force (config.Env).
// Weaviate shows /v1/meta to every authenticated user, so the operational
// details (plugin paths, PIDs and errors, cache and in-flight figures) are
// there only when the operator sets DIVERSE_SELECT_META_DETAILS.
func metaInfo(e *engine.Engine) (map[string]any, error) {
	strategies := make([]map[string]any, 0)
	for _, d := range selectors.Definitions() {
		params := make([]map[string]any, 0, len(d.Params))
		for _, p := range d.Params {
			params = append(params, map[string]any{
				"name": p.Name, "type": string(p.Kind), "default": p.Default, "allowed": p.Range(), "doc": p.Doc,
			})
		}
		strategies = append(strategies, map[string]any{
			"name": d.Name, "doc": d.Doc, "needsVectors": d.NeedsVectors, "needsText": d.NeedsText, "parameters": params,
		})
	}
	info := map[string]any{
		"name":             engine.Name,
		"version":          engine.Version,
		"strategies":       strategies,
		"commonKeys":       config.CommonKeys,
		"tokenizers":       tokens.Names(),
		"defaults":         e.Defaults().Defaults(),
		"similarityKernel": simcache.KernelName(),
		"featureCache":     map[string]any{"enabled": e.Features() != nil},
		"plugins":          pluginStates(e.Plugins().Status()),
	}
	if e.Defaults().MetaDetails { // DIVERSE_SELECT_META_DETAILS: an operator's choice
		info["inflightBytes"] = e.InflightBytes()
		info["featureCache"] = featureCacheMeta(e.Features())
		info["plugins"] = e.Plugins().Status()
	}
	return info, nil
}

// pluginStates is what every reader of /v1/meta sees of the plugins: each
// strategy's name and state, without the file's path, the process id or an
// error that may name either.
func pluginStates(all []host.Status) []map[string]any {
	out := make([]map[string]any, len(all))
	for i, s := range all {
		out[i] = map[string]any{"strategy": s.Strategy, "state": s.State}
	}
	return out
}

// featureCacheMeta reports the feature cache's figures since start.
func featureCacheMeta(c *simcache.FeatureCache) map[string]any {
	if c == nil {
		return map[string]any{"enabled": false}
	}
	s := c.Stats()
	return map[string]any{"enabled": true, "maxBytes": s.MaxBytes, "bytes": s.Bytes, "entries": s.Entries,
		"hits": s.Hits, "misses": s.Misses, "evictions": s.Evictions, "hitRatio": s.HitRatio()}
}
