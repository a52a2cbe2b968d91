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
package host

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-plugin"
	"github.com/sirupsen/logrus"

	"github.com/diverse-select/diverse-select/config"
	"github.com/diverse-select/diverse-select/plugin/proto"
	"github.com/diverse-select/diverse-select/plugin/sdk"
	"github.com/diverse-select/diverse-select/selectors"
)

// Plugin states shown in /v1/meta.
const (
	StateRunning    = "running"
	StateRestarting = "restarting"
	StateFailed     = "failed"
	StateStopped    = "stopped"
)

const (
	// startTimeout bounds a plugin's start and handshake.
	startTimeout = 10 * time.Second
	// firstBackoff and maxBackoff bound the delay before a restart; it
	// doubles with each consecutive failure and resets after a good call.
	firstBackoff = 100 * time.Millisecond
	maxBackoff   = 30 * time.Second
)

// Host runs the configured plugins.
type Host struct {
	logger  logrus.FieldLogger
	timeout time.Duration
	plugins []*Plugin
}

// Status is one plugin's state, for /v1/meta.
type Status struct {
	Strategy string `json:"strategy"`
	Path     string `json:"path"`
	State    string `json:"state"`
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

var validName = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9_-]*$`)

// Start starts the plugins cfg names and registers their strategies. It
// never fails as a whole: each broken plugin is logged, registered as
// unavailable when its name allows, and reported by Status.
func Start(cfg config.Plugins, logger logrus.FieldLogger) *Host {
	h := &Host{logger: logger, timeout: cfg.Timeout}
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

// Plugin is one plugin program and its strategy.
type Plugin struct {
	host *Host
	name string
	path string
	pin  []byte
	desc sdk.Description

	mu        sync.Mutex
	state     string
	cause     error // why the plugin is not running (failed, restarting)
	gen       int   // increases with each start; a crash is handled once per generation
	client    *plugin.Client
	rpc       proto.SelectorClient
	pid       int
	restarts  int
	failures  int           // consecutive crashes and failed restarts
	ready     chan struct{} // closed when a restart succeeds
	restartAt time.Time     // when the next restart attempt is due
	timer     *time.Timer
	closed    bool
	exitError string
	spawn     chan func()
}

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

// firstStart starts the plugin and reads and checks its description.
func (p *Plugin) firstStart() error {
	if err := p.start(); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), p.host.timeout)
	defer cancel()
	p.mu.Lock()
	rpc := p.rpc
	p.mu.Unlock()
	d, err := rpc.Describe(ctx, &proto.DescribeRequest{})
	if err == nil {
		p.desc, err = sdk.DescriptionFromProto(d)
	}
	if err == nil {
		err = checkParams(p.name, p.desc.Params)
	}
	if err != nil {
		p.kill()
		return fmt.Errorf("describe: %w", err)
	}
	return nil
}

// register adds the plugin's strategy to the registry: runnable, or
// unavailable with the cause of failure.
func (p *Plugin) register(startErr error) {
	def := selectors.Definition{Name: p.name}
	err := startErr
	if err == nil {
		err = checkKinds(p.name, p.desc.Params)
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

// fail marks the plugin failed for good with its cause, and logs it.
func (p *Plugin) fail(err error, msg string) {
	p.mu.Lock()
	p.state, p.cause = StateFailed, err
	p.mu.Unlock()
	p.host.logger.WithField("plugin", p.name).WithField("path", p.path).WithError(err).Error(msg)
}

// versionMismatch matches go-plugin's error for another protocol version.
var versionMismatch = regexp.MustCompile(`Plugin version: (\d+)`)

// start runs the plugin program and connects to it, on the plugin's
// spawner thread (see procAttr).
func (p *Plugin) start() error {
	if p.spawn == nil {
		p.spawn = spawner()
	}
	cmd := exec.Command(p.path)
	cmd.SysProcAttr = procAttr()
	cfg := &plugin.ClientConfig{
		HandshakeConfig:  sdk.Handshake,
		Plugins:          sdk.PluginSet(nil),
		Cmd:              cmd,
		AllowedProtocols: []plugin.Protocol{plugin.ProtocolGRPC},
		StartTimeout:     startTimeout,
		GRPCDialOptions:  sdk.DialOptions(),
		Logger:           newLogger(p.name, p.host.logger, p.exited),
	}
	if p.pin != nil {
		cfg.SecureConfig = &plugin.SecureConfig{Checksum: p.pin, Hash: sha256.New()}
	}
	client := plugin.NewClient(cfg)
	var err error
	done := make(chan struct{})
	p.spawn <- func() { _, err = client.Start(); close(done) }
	<-done
	var raw any
	if err == nil {
		var rc plugin.ClientProtocol
		if rc, err = client.Client(); err == nil {
			raw, err = rc.Dispense(sdk.PluginName)
		}
	}
	if err != nil {
		client.Kill()
		return p.explain(err)
	}
	rpc, ok := raw.(proto.SelectorClient)
	if !ok {
		client.Kill()
		return fmt.Errorf("plugin dispensed %T, not a Selector client", raw)
	}
	p.mu.Lock()
	p.client, p.rpc, p.gen, p.state, p.cause, p.exitError = client, rpc, p.gen+1, StateRunning, nil, ""
	if rc := client.ReattachConfig(); rc != nil {
		p.pid = rc.Pid
	}
	p.mu.Unlock()
	return nil
}

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

// exited records the exit error go-plugin logs for the plugin's process.
func (p *Plugin) exited(errText string) {
	p.mu.Lock()
	p.exitError = errText
	p.mu.Unlock()
}

// spawner returns a channel whose functions run on one goroutine locked to
// its OS thread for good: Linux sends the parent-death signal when the
// thread that forked a child ends, so plugins are forked from a thread that
// lives as long as the process.
func spawner() chan func() {
	ch := make(chan func())
	go func() {
		runtime.LockOSThread() // never unlocked: the thread lives as long as the process
		for f := range ch {
			f()
		}
	}()
	return ch
}

// kill ends the current process (if any) without scheduling a restart.
func (p *Plugin) kill() {
	p.mu.Lock()
	c := p.client
	p.client, p.rpc, p.pid = nil, nil, 0
	p.mu.Unlock()
	if c != nil {
		c.Kill()
	}
}

func (p *Plugin) close() {
	p.mu.Lock()
	p.closed = true
	if p.timer != nil {
		p.timer.Stop()
	}
	if p.state != StateFailed {
		p.state = StateStopped
	}
	p.mu.Unlock()
	p.kill()
}

func (p *Plugin) status() Status {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := Status{Strategy: p.name, Path: p.path, State: p.state, PID: p.pid, Restarts: p.restarts, Pinned: p.pin != nil}
	if p.cause != nil {
		s.Error = p.cause.Error()
	}
	if s.State == "" {
		s.State = StateFailed
	}
	return s
}

// conn is one generation of a running plugin: its process and its client.
type conn struct {
	client *plugin.Client
	rpc    proto.SelectorClient
	gen    int
}

// conn returns the running plugin's process, client and generation, read
// together. While the plugin restarts, a call waits for a restart due
// before its deadline.
func (p *Plugin) conn(ctx context.Context) (conn, error) {
	for {
		p.mu.Lock()
		c := conn{client: p.client, rpc: p.rpc, gen: p.gen}
		state, cause, ready, closed, at := p.state, p.cause, p.ready, p.closed, p.restartAt
		p.mu.Unlock()
		switch {
		case closed:
			return conn{}, fmt.Errorf("plugin %q is stopped (the server is shutting down)", p.name)
		case state == StateRunning && c.rpc != nil:
			return c, nil
		case state == StateRestarting && ready != nil:
			if deadline, ok := ctx.Deadline(); ok && at.After(deadline) {
				return conn{}, fmt.Errorf("plugin %q is restarting (next attempt in %s) after: %v",
					p.name, time.Until(at).Round(time.Millisecond), cause)
			}
			select {
			case <-ready:
				continue
			case <-ctx.Done():
				return conn{}, fmt.Errorf("plugin %q is restarting after: %v", p.name, cause)
			}
		}
		return conn{}, fmt.Errorf("plugin %q is not running: %v", p.name, cause)
	}
}

// failed handles a crash or hang of generation gen: kill the process and
// restart after the backoff. Calls that fail together restart it once.
func (p *Plugin) failed(gen int, cause error) {
	p.mu.Lock()
	if p.closed || gen != p.gen || p.state != StateRunning {
		p.mu.Unlock()
		return
	}
	p.state, p.cause = StateRestarting, cause
	p.ready = make(chan struct{})
	p.mu.Unlock()
	p.host.logger.WithField("plugin", p.name).WithError(cause).Warn("diverse-select: plugin failed; restarting it")
	// Killing a hung plugin can take go-plugin's grace period: not on the
	// query's time.
	go func() {
		p.kill()
		p.scheduleRestart()
	}()
}

func (p *Plugin) scheduleRestart() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return
	}
	delay := firstBackoff << min(p.failures, 20)
	if delay > maxBackoff {
		delay = maxBackoff
	}
	p.failures++
	p.restartAt = time.Now().Add(delay)
	p.timer = time.AfterFunc(delay, p.restart)
}

func (p *Plugin) restart() {
	err := p.start()
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		p.kill()
		return
	}
	if err != nil {
		p.state, p.cause = StateRestarting, fmt.Errorf("restart failed: %w", err)
		p.mu.Unlock()
		p.host.logger.WithField("plugin", p.name).WithError(err).Warn("diverse-select: plugin restart failed; retrying")
		p.scheduleRestart()
		return
	}
	p.restarts++
	ready := p.ready
	p.ready = nil
	p.mu.Unlock()
	if ready != nil {
		close(ready)
	}
	p.host.logger.WithField("plugin", p.name).Info("diverse-select: plugin restarted")
}

// succeeded resets the backoff after a good call.
func (p *Plugin) succeeded() {
	p.mu.Lock()
	p.failures = 0
	p.mu.Unlock()
}

// exitCause waits briefly for go-plugin to notice the process's exit and
// returns its exit error ("exit status 2"), or "".
func (p *Plugin) exitCause(client *plugin.Client) string {
	for i := 0; i < 50 && client != nil && !client.Exited(); i++ {
		time.Sleep(10 * time.Millisecond)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.exitError
}

// checkParams refuses parameter specs the module cannot serve: unknown
// kinds, names of common keys, enums without values, defaults outside their
// own range. name is the plugin's strategy name, for the messages.
func checkParams(name string, specs []selectors.ParamSpec) error {
	seen := map[string]bool{}
	for _, s := range specs {
		if !validName.MatchString(s.Name) {
			return fmt.Errorf("parameter name %q is not a valid GraphQL name", s.Name)
		}
		if seen[s.Name] {
			return fmt.Errorf("parameter %q is declared twice", s.Name)
		}
		seen[s.Name] = true
		if slices.Contains(config.CommonKeys, s.Name) {
			return fmt.Errorf("parameter %q has the name of a common key; allowed: any other name", s.Name)
		}
		switch s.Kind {
		case selectors.KindFloat, selectors.KindInt, selectors.KindBool, selectors.KindProperty:
		case selectors.KindString:
			if len(s.Enum) == 0 {
				return fmt.Errorf("parameter %q is a string without allowed values (enum)", s.Name)
			}
		default:
			return fmt.Errorf("parameter %q has kind %q; allowed: float, int, bool, string, property", s.Name, s.Kind)
		}
		if s.Default != nil {
			if _, err := selectors.ValidateParams(name, specs, map[string]any{s.Name: s.Default}); err != nil {
				return fmt.Errorf("default of parameter %q: %w", s.Name, err)
			}
		}
	}
	return nil
}

// checkKinds refuses a parameter whose name another strategy uses with
// another kind: the GraphQL argument of that name has one type.
func checkKinds(name string, specs []selectors.ParamSpec) error {
	numeric := func(k selectors.Kind) bool { return k == selectors.KindInt || k == selectors.KindFloat }
	for _, d := range selectors.Definitions() {
		for _, other := range d.Params {
			for _, s := range specs {
				if s.Name == other.Name && s.Kind != other.Kind && !(numeric(s.Kind) && numeric(other.Kind)) {
					return fmt.Errorf("parameter %q is a %s, but strategy %q has a %s parameter of that name; rename it",
						s.Name, s.Kind, d.Name, other.Kind)
				}
			}
		}
	}
	return nil
}
