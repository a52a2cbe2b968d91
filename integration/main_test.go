// Package integration tests diverse-select through a real Weaviate server
// built with the module (make build): one stack (bin/embedder +
// bin/weaviate-server) is started by TestMain and shared by every test.
// Schemas and imports go through the official Go client; queries are raw
// GraphQL over HTTP, decoded and checked for the selections they return.
package integration

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/weaviate/weaviate-go-client/v5/weaviate"

	"github.com/diverse-select/diverse-select/integration/stack"
	_ "github.com/diverse-select/diverse-select/selectors/all" // selectors.Names() lists every strategy
)

var (
	// srv is the shared stack, client the Go client connected to it.
	srv    *stack.Stack
	client *weaviate.Client
	// httpc sends the raw GraphQL queries.
	httpc = &http.Client{Timeout: 60 * time.Second}
	// logPath holds both processes' output.
	logPath string
)

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	root, err := stack.RepoRoot()
	if err != nil {
		fmt.Fprintln(os.Stderr, "integration:", err)
		return 1
	}
	bin := filepath.Join(root, "bin")
	for _, b := range []string{"weaviate-server", "embedder"} {
		if _, err := os.Stat(filepath.Join(bin, b)); err != nil {
			fmt.Fprintf(os.Stderr, "integration: %s is missing: run `make build` first "+
				"(it builds the patched Weaviate server and the embedder into bin/; `make test` does it for you)\n",
				filepath.Join(bin, b))
			return 1
		}
	}
	dataDir, err := os.MkdirTemp("", "diverse-select-it-data-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "integration:", err)
		return 1
	}
	defer os.RemoveAll(dataDir)
	logFile, err := os.CreateTemp("", "diverse-select-it-*.log")
	if err != nil {
		fmt.Fprintln(os.Stderr, "integration:", err)
		return 1
	}
	logPath = logFile.Name()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	// Metrics and debug logs on: observe_test.go checks both. The
	// reranker-transformers module, on a local rerank server: pipeline_test.go.
	srv, err = stack.Start(ctx, stack.Options{BinDir: bin, DataDir: dataDir, Log: logFile, Metrics: true, Reranker: true,
		Env: map[string]string{"LOG_LEVEL": "debug",
			// The tests query right after they import and check what the
			// feature cache held; the settle time has a unit test of its own
			// (module TestFeatureKeyVersions), the hostile-input suite runs
			// with the default.
			"DIVERSE_SELECT_FEATURE_CACHE_SETTLE": "0"}})
	if err != nil {
		fmt.Fprintf(os.Stderr, "integration: start the stack: %v\nserver log: %s\n%s", err, logPath, tail(logPath, 40))
		logFile.Close()
		return 1
	}
	client, err = weaviate.NewClient(weaviate.Config{
		Host:   fmt.Sprintf("127.0.0.1:%d", srv.HTTPPort),
		Scheme: "http",
	})
	if err != nil {
		srv.Stop()
		fmt.Fprintln(os.Stderr, "integration: client:", err)
		return 1
	}
	code := m.Run()
	runSuiteCleanups()
	alive := srv.Alive()
	srv.Stop()
	logFile.Close()
	if !alive {
		fmt.Fprintf(os.Stderr, "integration: the Weaviate server died during the tests\n")
		code = 1
	}
	if code != 0 {
		fmt.Fprintf(os.Stderr, "integration: server log: %s; its last errors:\n%s", logPath, errorLines(logPath, 20))
	} else {
		os.Remove(logPath)
	}
	return code
}

// errorLines returns the last n error, fatal or panic lines of a log file.
func errorLines(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if strings.Contains(l, `"level":"error"`) || strings.Contains(l, `"level":"fatal"`) || strings.Contains(l, "panic") {
			out = append(out, l)
		}
	}
	if len(out) > n {
		out = out[len(out)-n:]
	}
	return strings.Join(out, "\n") + "\n"
}

// tail returns the last n lines of a file.
func tail(path string, n int) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	b, _ := io.ReadAll(f)
	lines := 0
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] == '\n' {
			lines++
			if lines > n {
				return string(b[i+1:])
			}
		}
	}
	return string(b)
}
