package host

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"github.com/hashicorp/go-plugin"
	"github.com/sirupsen/logrus"

	"github.com/diverse-select/diverse-select/plugin/proto"
	"github.com/diverse-select/diverse-select/plugin/sdk"
)

// State is a plugin's state, shown in /v1/meta.
type State string

const (
	StateRunning    State = "running"
	StateRestarting State = "restarting"
	StateFailed     State = "failed"
	StateStopped    State = "stopped"
)

const (
	// startTimeout bounds a plugin's start and handshake.
	startTimeout = 10 * time.Second
	// firstBackoff and maxBackoff bound the delay before a restart; it
	// doubles with each consecutive failure and resets after a good call.
	firstBackoff = 100 * time.Millisecond
	maxBackoff   = 30 * time.Second
)

// Plugin is one plugin program and its strategy, and the supervisor that
// keeps its process running.
type Plugin struct {
	// Fixed at Start (desc by firstStart, before any call).
	host  *Host
	name  string
	path  string
	pin   []byte
	desc  sdk.Description
	spawn chan func() // the plugin's spawner thread (see spawner)

	mu   sync.Mutex // guards proc and life
	proc process
	life lifecycle
}

// process is the current generation of the plugin's process.
type process struct {
	conn             // client, rpc (nil while not running) and generation
	pid       int    // 0 while not running
	exitError string // the exit error go-plugin logged for it ("exit status 2")
}

// lifecycle is what the supervisor knows across generations.
type lifecycle struct {
	state     State
	cause     error // why the plugin is not running (failed, restarting)
	closed    bool  // Close was called: no more restarts
	restarts  int
	failures  int           // consecutive crashes and failed restarts (the backoff's exponent)
	ready     chan struct{} // closed when a restart succeeds
	restartAt time.Time     // when the next restart attempt is due
	timer     *time.Timer
}

// conn is one generation of a running plugin: its process and its client.
type conn struct {
	client *plugin.Client
	rpc    proto.SelectorClient
	gen    int // increases with each start; a crash is handled once per generation
}

// start runs the plugin program and connects to it, on the plugin's
// spawner thread (see procAttr).
func (p *Plugin) start() error {
	if p.spawn == nil {
		p.spawn = spawner()
	}
	path, err := p.verifiedCopy()
	if err != nil {
		return err
	}
	if path != p.path {
		defer os.RemoveAll(filepath.Dir(path)) // the started process keeps its image
	}
	cmd := exec.Command(path)
	cmd.SysProcAttr = procAttr()
	cmd.Env = p.host.environment()
	cfg := &plugin.ClientConfig{
		SkipHostEnv:      true, // cmd.Env is the plugin's whole environment
		HandshakeConfig:  sdk.Handshake,
		Plugins:          sdk.PluginSet(nil),
		Cmd:              cmd,
		AllowedProtocols: []plugin.Protocol{plugin.ProtocolGRPC},
		StartTimeout:     startTimeout,
		GRPCDialOptions:  sdk.DialOptions(),
		Logger:           newLogger(p.name, p.host.logger, p.exited),
	}
	client := plugin.NewClient(cfg)
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
	p.proc = process{conn: conn{client: client, rpc: rpc, gen: p.proc.gen + 1}}
	if rc := client.ReattachConfig(); rc != nil {
		p.proc.pid = rc.Pid
	}
	p.life.state, p.life.cause = StateRunning, nil
	p.mu.Unlock()
	return nil
}

// exited records the exit error go-plugin logs for the plugin's process.
func (p *Plugin) exited(errText string) {
	p.mu.Lock()
	p.proc.exitError = errText
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
			func() {
				defer recovered(logrus.StandardLogger(), "spawner", nil)
				f()
			}()
		}
	}()
	return ch
}

// kill ends the current process (if any) without scheduling a restart.
func (p *Plugin) kill() {
	p.mu.Lock()
	c := p.proc.client
	p.proc.client, p.proc.rpc, p.proc.pid = nil, nil, 0
	p.mu.Unlock()
	if c != nil {
		c.Kill()
	}
}

// fail marks the plugin failed for good with its cause, and logs it.
func (p *Plugin) fail(err error, msg string) {
	p.mu.Lock()
	p.life.state, p.life.cause = StateFailed, err
	p.mu.Unlock()
	p.host.logger.WithField("plugin", p.name).WithField("path", p.path).WithError(err).Error(msg)
}

func (p *Plugin) close() {
	p.mu.Lock()
	p.life.closed = true
	if p.life.timer != nil {
		p.life.timer.Stop()
	}
	if p.life.state != StateFailed {
		p.life.state = StateStopped
	}
	p.mu.Unlock()
	p.kill()
}

func (p *Plugin) status() Status {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := Status{Strategy: p.name, Path: p.path, State: p.life.state, PID: p.proc.pid, Restarts: p.life.restarts, Pinned: p.pin != nil}
	if p.life.cause != nil {
		s.Error = p.life.cause.Error()
	}
	if s.State == "" {
		s.State = StateFailed
	}
	return s
}

// conn returns the running plugin's process, client and generation, read
// together. While the plugin restarts, a call waits for a restart due
// before its deadline.
func (p *Plugin) conn(ctx context.Context) (conn, error) {
	for {
		p.mu.Lock()
		c, life := p.proc.conn, p.life
		p.mu.Unlock()
		switch {
		case life.closed:
			return conn{}, fmt.Errorf("plugin %q is stopped (the server is shutting down)", p.name)
		case life.state == StateRunning && c.rpc != nil:
			return c, nil
		case life.state == StateRestarting && life.ready != nil:
			if deadline, ok := ctx.Deadline(); ok && life.restartAt.After(deadline) {
				return conn{}, fmt.Errorf("plugin %q is restarting (next attempt in %s) after: %v",
					p.name, time.Until(life.restartAt).Round(time.Millisecond), life.cause)
			}
			select {
			case <-life.ready:
				continue
			case <-ctx.Done():
				return conn{}, fmt.Errorf("plugin %q is restarting after: %v", p.name, life.cause)
			}
		}
		return conn{}, fmt.Errorf("plugin %q is not running: %v", p.name, life.cause)
	}
}

// failed handles a crash or hang of generation gen: kill the process and
// restart after the backoff. Calls that fail together restart it once.
func (p *Plugin) failed(gen int, cause error) {
	p.mu.Lock()
	if p.life.closed || gen != p.proc.gen || p.life.state != StateRunning {
		p.mu.Unlock()
		return
	}
	p.life.state, p.life.cause = StateRestarting, cause
	p.life.ready = make(chan struct{})
	p.mu.Unlock()
	p.host.logger.WithField("plugin", p.name).WithError(cause).Warn("diverse-select: plugin failed; restarting it")
	// Killing a hung plugin can take go-plugin's grace period: not on the
	// query's time.
	go func() {
		defer recovered(p.host.logger, p.name, nil)
		p.kill()
		p.scheduleRestart()
	}()
}

func (p *Plugin) scheduleRestart() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.life.closed {
		return
	}
	delay := min(firstBackoff<<min(p.life.failures, 20), maxBackoff)
	p.life.failures++
	p.life.restartAt = time.Now().Add(delay)
	p.life.timer = time.AfterFunc(delay, p.restart)
}

func (p *Plugin) restart() {
	defer recovered(p.host.logger, p.name, nil) // runs on a timer's goroutine
	err := p.start()
	p.mu.Lock()
	if p.life.closed {
		p.mu.Unlock()
		p.kill()
		return
	}
	if err != nil {
		p.life.state, p.life.cause = StateRestarting, fmt.Errorf("restart failed: %w", err)
		p.mu.Unlock()
		p.host.logger.WithField("plugin", p.name).WithError(err).Warn("diverse-select: plugin restart failed; retrying")
		p.scheduleRestart()
		return
	}
	p.life.restarts++
	ready := p.life.ready
	p.life.ready = nil
	p.mu.Unlock()
	if ready != nil {
		close(ready)
	}
	p.host.logger.WithField("plugin", p.name).Info("diverse-select: plugin restarted")
}

// succeeded resets the backoff after a good call.
func (p *Plugin) succeeded() {
	p.mu.Lock()
	p.life.failures = 0
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
	return p.proc.exitError
}
