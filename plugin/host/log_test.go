package host

import (
	"testing"

	"github.com/sirupsen/logrus"
	"github.com/sirupsen/logrus/hooks/test"
)

// TestLogWriter: go-plugin's hclog lines reach logrus at their level, with
// their fields; a process exit is reported to the plugin and logged as a
// warning (the host logs the consequence).
func TestLogWriter(t *testing.T) {
	logger, hook := test.NewNullLogger()
	logger.SetLevel(logrus.DebugLevel)
	var exit string
	w := &logWriter{logger: logger, onExit: func(e string) { exit = e }}
	lines := `{"@level":"debug","@message":"starting plugin","path":"/p"}
{"@level":"info","@message":"hello"}
{"@level":"warn","@message":"careful"}
{"@level":"error","@message":"plugin process exited","error":"exit status 3"}
not json
`
	// Split writes across a line boundary, as a pipe may.
	if _, err := w.Write([]byte(lines[:30])); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write([]byte(lines[30:])); err != nil {
		t.Fatal(err)
	}
	want := []struct {
		level logrus.Level
		msg   string
	}{
		{logrus.DebugLevel, "starting plugin"}, {logrus.InfoLevel, "hello"}, {logrus.WarnLevel, "careful"},
		{logrus.WarnLevel, "plugin process exited"}, {logrus.DebugLevel, "not json"},
	}
	entries := hook.AllEntries()
	if len(entries) != len(want) {
		t.Fatalf("%d entries, want %d", len(entries), len(want))
	}
	for i, w := range want {
		if entries[i].Level != w.level || entries[i].Message != w.msg {
			t.Errorf("entry %d: %s %q, want %s %q", i, entries[i].Level, entries[i].Message, w.level, w.msg)
		}
	}
	if entries[0].Data["path"] != "/p" {
		t.Errorf("fields not carried: %v", entries[0].Data)
	}
	if exit != "exit status 3" {
		t.Errorf("exit %q", exit)
	}
}
