package main

import (
	"context"
	"encoding/binary"
	"io"
	"log"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestParseFlags(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		want    config
		wantErr bool
	}{
		{"defaults", nil, config{addr: "127.0.0.1:8090", mode: "hash", dims: 256, python: ".venv/bin/python"}, false},
		{"all flags", []string{"-addr", ":9000", "-mode", "glove", "-dims", "100", "-glove-dir", "/g", "-python", "/p/python"},
			config{addr: ":9000", mode: "glove", dims: 100, dimsSet: true, gloveDir: "/g", python: "/p/python"}, false},
		{"stray argument", []string{"extra"}, config{}, true},
		{"unknown flag", []string{"-model", "x"}, config{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseFlags(tt.args, io.Discard)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if err == nil && got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestRunRejectsBadConfig(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "words.txt"), []byte("a\nb\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "vectors.f16"), binary.LittleEndian.AppendUint16(make([]byte, 6), 0x3c00), 0o644)
	tests := []struct {
		name string
		args []string
	}{
		{"unknown mode", []string{"-mode", "bert"}},
		{"glove without dir", []string{"-mode", "glove"}},
		{"glove dims mismatch", []string{"-mode", "glove", "-glove-dir", dir, "-dims", "256"}},
		{"bad address", []string{"-addr", "127.0.0.1:notaport"}},
		{"neural without its Python", []string{"-mode", "neural", "-python", filepath.Join(dir, "no-python")}},
		{"neural dims mismatch", []string{"-mode", "neural", "-python", filepath.Join("..", "..", ".venv", "bin", "python"), "-dims", "100"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := run(context.Background(), tt.args, log.New(io.Discard, "", 0), nil)
			if err == nil {
				t.Error("want error")
			}
		})
	}
}

// TestRunServesAndShutsDown starts the real server on a free port, checks
// that it logs its address and answers, then cancels the context as the
// SIGINT/SIGTERM handler in main does.
func TestRunServesAndShutsDown(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var logs strings.Builder
	addrc := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"-addr", "127.0.0.1:0", "-dims", "32"}, log.New(&logs, "", 0),
			func(addr string) { addrc <- addr })
	}()
	var addr string
	select {
	case addr = <-addrc:
	case err := <-done:
		t.Fatalf("run returned early: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("server did not start")
	}
	for _, path := range []string{"/.well-known/ready", "/meta"} {
		res, err := http.Get("http://" + addr + path)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode >= 300 {
			t.Errorf("%s: status %d", path, res.StatusCode)
		}
	}
	res, err := http.Post("http://"+addr+"/vectors", "application/json",
		strings.NewReader(`{"text":"hello","config":{"task_type":"query"}}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || !strings.Contains(string(body), `"dims":32`) {
		t.Errorf("/vectors: %d %s", res.StatusCode, body)
	}

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("run: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("server did not shut down")
	}
	if !strings.Contains(logs.String(), "listening on http://"+addr) {
		t.Errorf("log does not name the address:\n%s", logs.String())
	}
}
