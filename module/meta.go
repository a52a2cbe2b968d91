package diverseselect

import (
	"github.com/diverse-select/diverse-select/config"
	"github.com/diverse-select/diverse-select/selectors"
	"github.com/diverse-select/diverse-select/selectors/tokens"
	"github.com/diverse-select/diverse-select/simcache"
)

// metaInfo is shown in /v1/meta: the version, every strategy with its
// parameters, the common keys and every module default in force (config.Env).
func (m *Module) metaInfo() (map[string]any, error) {
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
	return map[string]any{
		"name":             Name,
		"version":          Version,
		"strategies":       strategies,
		"commonKeys":       config.CommonKeys,
		"tokenizers":       tokens.Names(),
		"defaults":         m.defaults.Defaults(),
		"inflightBytes":    m.inflight.held.Load(),
		"similarityKernel": simcache.KernelName(),
		"featureCache":     featureCacheMeta(m.features),
		"plugins":          m.plugins.Status(),
	}, nil
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
