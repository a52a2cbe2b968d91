package host

import (
	"bytes"
	"encoding/json"
	"sync"

	"github.com/hashicorp/go-hclog"
	"github.com/sirupsen/logrus"
)

// newLogger returns an hclog logger for go-plugin that writes JSON lines
// into logWriter, which forwards them to the module's logrus logger at the
// same level and tells the plugin about its process's exit.
func newLogger(name string, l logrus.FieldLogger, onExit func(string)) hclog.Logger {
	return hclog.New(&hclog.LoggerOptions{
		Name:       "plugin." + name,
		Level:      hclog.Debug,
		JSONFormat: true,
		Output:     &logWriter{logger: l.WithField("plugin", name), onExit: onExit},
	})
}

// logWriter turns hclog JSON lines into logrus entries.
type logWriter struct {
	logger logrus.FieldLogger
	onExit func(string)
	mu     sync.Mutex
	buf    []byte
}

func (w *logWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, b...)
	for {
		i := bytes.IndexByte(w.buf, '\n')
		if i < 0 {
			return len(b), nil
		}
		w.line(w.buf[:i])
		w.buf = w.buf[i+1:]
	}
}

func (w *logWriter) line(b []byte) {
	var e map[string]any
	if err := json.Unmarshal(b, &e); err != nil {
		w.logger.Debug(string(b))
		return
	}
	level, _ := e["@level"].(string)
	msg, _ := e["@message"].(string)
	fields := logrus.Fields{}
	for k, v := range e {
		if k != "@level" && k != "@message" && k != "@timestamp" {
			fields[k] = v
		}
	}
	if msg == "plugin process exited" {
		errText, _ := e["error"].(string)
		if w.onExit != nil {
			w.onExit(errText)
		}
		if level == "error" {
			level = "warn" // the host reports the consequence (restart, unavailable) at its own level
		}
	}
	l := w.logger.WithFields(fields)
	switch level {
	case "trace", "debug":
		l.Debug(msg)
	case "info":
		l.Info(msg)
	case "warn":
		l.Warn(msg)
	default:
		l.Error(msg)
	}
}
