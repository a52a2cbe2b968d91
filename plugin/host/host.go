// Package host runs external selector plugins for the diverse-select module:
// it starts each plugin program (hashicorp/go-plugin over gRPC, handshake
// protocol sdk.ProtocolVersion), registers its strategy in the selectors
// registry with the plugin's parameter specs - so config validation,
// /v1/meta, both query forms and class configs treat it like a built-in
// strategy - and calls it per query with a timeout, checking the selection
// it returns.
//
// A plugin's strategy is named after its file (base name without
// extension), a rule known before the plugin runs: a plugin that cannot
// start (checksum mismatch, wrong protocol version, start failure) is still
// registered under its name as unavailable, so a query naming it gets the
// cause. A plugin that crashes or hangs past the timeout is killed and
// restarted with exponential backoff; Close ends every plugin, and on Linux
// a plugin dies with the Weaviate process even when that is SIGKILLed.
//
// Files by job: host.go the set of plugins (Start, Status, Close);
// register.go a plugin's strategy in the registry; supervisor.go one
// plugin's process (start, crash, backoff, restart, stop); strategy.go a
// call; goplugin.go go-plugin's errors and log lines in our words.
package host

import (
	"fmt"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/diverse-select/diverse-select/config"
)

// Host runs the configured plugins.
type Host struct {
	logger  logrus.FieldLogger
	timeout time.Duration
	env     []string // the variables passed to plugins (DIVERSE_SELECT_PLUGIN_ENV)
	plugins []*Plugin
}

// Status is one plugin's state, for /v1/meta.
type Status struct {
	Strategy string `json:"strategy"`
	Path     string `json:"path"`
	State    State  `json:"state"`
	Error    string `json:"error,omitempty"`
	PID      int    `json:"pid,omitempty"`
	Restarts int    `json:"restarts"`
	Pinned   bool   `json:"sha256Pinned"`
}

// StrategyName is the strategy name of a plugin file: its base name without
// extension.
func StrategyName(path string) string {
	base := filepath.Base(path)
	return strings.TrimSuffix(base, filepath.Ext(base))
}

// Start starts the plugins cfg names and registers their strategies. It
// never fails as a whole: each broken plugin is logged, registered as
// unavailable when its name allows, and reported by Status.
func Start(cfg config.Plugins, logger logrus.FieldLogger) *Host {
	h := &Host{logger: logger, timeout: cfg.Timeout, env: cfg.Env}
	if h.timeout <= 0 {
		h.timeout = config.DefaultPluginTimeout
	}
	files, err := cfg.Files()
	if err != nil {
		logger.WithError(err).Error("diverse-select: plugins: cannot list the plugin folder")
	}
	used := map[string]bool{}
	for _, path := range files {
		p := &Plugin{host: h, name: StrategyName(path), path: path}
		if pin, ok := cfg.SHA256[p.name]; ok {
			p.pin = pin
			used[p.name] = true
		}
		h.plugins = append(h.plugins, p)
	}
	for name := range cfg.SHA256 {
		if !used[name] {
			logger.WithField("plugin", name).Warn("diverse-select: DIVERSE_SELECT_PLUGIN_SHA256 pins a plugin that is not configured")
		}
	}
	// A plugin without a strategy name of its own is failed here: there is
	// nothing to register it under. The others start concurrently (a slow
	// plugin does not delay the others), then register in file order: the
	// parameter checks compare with what is registered before.
	var named []*Plugin
	byName := map[string]string{}
	for _, p := range h.plugins {
		err := p.checkName()
		if other, dup := byName[p.name]; err == nil && dup {
			err = fmt.Errorf("plugin %s already gives the strategy name %q; rename one of the files", other, p.name)
		}
		if err != nil {
			p.fail(err, "diverse-select: plugin unavailable")
			continue
		}
		byName[p.name] = p.path
		named = append(named, p)
	}
	var wg sync.WaitGroup
	errs := make([]error, len(named))
	for i, p := range named {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer recovered(logger, p.name, &errs[i])
			errs[i] = p.firstStart()
		}()
	}
	wg.Wait()
	for i, p := range named {
		p.register(errs[i])
	}
	return h
}

// Status reports every plugin, in start order.
func (h *Host) Status() []Status {
	if h == nil {
		return []Status{}
	}
	out := make([]Status, 0, len(h.plugins))
	for _, p := range h.plugins {
		out = append(out, p.status())
	}
	return out
}

// Close ends every plugin process and stops restarts.
func (h *Host) Close() {
	if h == nil {
		return
	}
	var wg sync.WaitGroup
	for _, p := range h.plugins {
		wg.Add(1)
		go func() { defer wg.Done(); p.close() }()
	}
	wg.Wait()
	if len(h.plugins) > 0 {
		h.logger.WithField("plugins", len(h.plugins)).Info("diverse-select: plugins stopped")
	}
}

// recovered, deferred on a goroutine of the host, turns its panic into *err
// (nil: logged only): a panic on a goroutine of its own would end Weaviate.
func recovered(logger logrus.FieldLogger, plugin string, err *error) {
	if v := recover(); v != nil {
		logger.WithFields(logrus.Fields{"plugin": plugin, "panic": fmt.Sprint(v), "stack": string(debug.Stack())}).
			Error("diverse-select: plugins: panic recovered")
		if err != nil {
			*err = fmt.Errorf("panic while starting the plugin (logged with its stack): %v", v)
		}
	}
}
