package integration

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-openapi/strfmt"
	"github.com/weaviate/weaviate-go-client/v5/weaviate"
	"github.com/weaviate/weaviate/entities/models"
	pb "github.com/weaviate/weaviate/grpc/generated/protocol/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/diverse-select/diverse-select/integration/stack"
)

// The gateway's stacks: a stock Weaviate (bin/weaviate-server-stock, or an
// older stock build) with bin/gateway in front, the process users run,
// started with its flags and a config file of per-collection defaults.

// stockModules are the modules the stock servers enable: the test stack's
// but ours, which a stock Weaviate does not have.
const stockModules = "text2vec-transformers,generative-dummy,generative-openai"

// gatewayStack is a stock Weaviate and the gateway in front of it.
type gatewayStack struct {
	up       *stack.Stack
	upClient *weaviate.Client
	// GRPCAddr and HTTPURL are the gateway's.
	GRPCAddr, HTTPURL string
	gw                *stack.Gateway
	logPath           string
	conn              *grpc.ClientConn
}

// gatewayOptions configure startGatewayStack.
type gatewayOptions struct {
	server string            // the stock binary in bin/ (default weaviate-server-stock)
	env    map[string]string // more upstream environment
	config map[string]any    // the gateway's collections
	gwEnv  map[string]string // the gateway's environment (DIVERSE_SELECT_*)
}

// startGatewayStack starts a stock Weaviate sharing the test stack's
// embedder (so the same texts get the same vectors) and the gateway.
func startGatewayStack(t *testing.T, name string, o gatewayOptions) *gatewayStack {
	t.Helper()
	if o.server == "" {
		o.server = "weaviate-server-stock"
	}
	root, err := stack.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range []string{o.server, "gateway"} {
		if _, err := os.Stat(filepath.Join(root, "bin", b)); err != nil {
			t.Fatalf("bin/%s is missing: run `make build weaviate-stock` (make test does)", b)
		}
	}
	env := map[string]string{"ENABLE_MODULES": stockModules}
	for k, v := range o.env {
		env[k] = v
	}
	up, upClient, _ := startOwnStack(t, name, stack.Options{Server: o.server, EmbedderURL: srv.EmbedderURL, Env: env})
	t.Cleanup(up.Stop)
	gs := &gatewayStack{up: up, upClient: upClient}
	gs.launch(t, name, o.config, o.gwEnv, t.Cleanup)
	return gs
}

// launch starts bin/gateway in front of gs.up with the config file of
// collections; cleanup registers what stops it (t.Cleanup, or
// addSuiteCleanup for a stack the tests share).
func (gs *gatewayStack) launch(t testing.TB, name string, collections map[string]any, gwEnv map[string]string, cleanup func(func())) {
	t.Helper()
	log, err := os.CreateTemp("", "diverse-select-gateway-"+name+"-*.log")
	if err != nil {
		t.Fatal(err)
	}
	cleanup(func() { log.Close() })
	gs.logPath = log.Name()
	env := map[string]string{"DIVERSE_SELECT_FEATURE_CACHE_SETTLE": "0"}
	for k, v := range gwEnv {
		env[k] = v
	}
	c, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	gs.gw, err = stack.StartGateway(c, stack.GatewayOptions{UpstreamGRPC: gs.up.GRPCAddr, UpstreamHTTP: gs.up.HTTPURL,
		Collections: collections, Args: []string{"--query-defaults-limit", "25"}, Env: env, Log: log})
	if err != nil {
		t.Fatalf("%v (log %s):\n%s", err, gs.logPath, tail(gs.logPath, 30))
	}
	cleanup(gs.gw.Stop)
	gs.GRPCAddr, gs.HTTPURL = gs.gw.GRPCAddr, gs.gw.HTTPURL
	gs.conn, err = grpc.NewClient(gs.GRPCAddr, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(64<<20)))
	if err != nil {
		t.Fatal(err)
	}
	cleanup(func() { gs.conn.Close() })
	t.Logf("%s gateway log: %s", name, gs.logPath)
}

var suiteCleanups []func()

// addSuiteCleanup registers f to run after every test (TestMain).
func addSuiteCleanup(f func()) { suiteCleanups = append(suiteCleanups, f) }

func runSuiteCleanups() {
	for i := len(suiteCleanups) - 1; i >= 0; i-- {
		suiteCleanups[i]()
	}
}

// writeConfig writes the gateway's config file (it reloads it).
func (gs *gatewayStack) writeConfig(t testing.TB, collections map[string]any) {
	t.Helper()
	if err := gs.gw.WriteConfig(collections); err != nil {
		t.Fatal(err)
	}
}

func (gs *gatewayStack) writeConfigBytes(t testing.TB, b []byte) {
	t.Helper()
	if err := gs.gw.WriteConfigBytes(b); err != nil {
		t.Fatal(err)
	}
}

type gatewayStatus = stack.GatewayStatus

func (gs *gatewayStack) status() (gatewayStatus, error) { return gs.gw.Status() }

// search sends req to the gateway.
func (gs *gatewayStack) search(ctx context.Context, req *pb.SearchRequest) (*pb.SearchReply, error) {
	return pb.NewWeaviateClient(gs.conn).Search(ctx, req)
}

// moduleSearch sends req to the module's server (the test stack).
func moduleSearch(ctx context.Context, t testing.TB, req *pb.SearchRequest) (*pb.SearchReply, error) {
	return pb.NewWeaviateClient(moduleConn(t)).Search(ctx, req)
}

var moduleConnOnce = struct {
	conn *grpc.ClientConn
	err  error
	done bool
}{}

func moduleConn(t testing.TB) *grpc.ClientConn {
	t.Helper()
	if !moduleConnOnce.done {
		moduleConnOnce.conn, moduleConnOnce.err = grpc.NewClient(srv.GRPCAddr,
			grpc.WithTransportCredentials(insecure.NewCredentials()), grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(64<<20)))
		moduleConnOnce.done = true
	}
	if moduleConnOnce.err != nil {
		t.Fatal(moduleConnOnce.err)
	}
	return moduleConnOnce.conn
}

// createOn (re)creates a class on another server.
func createOn(t testing.TB, c *weaviate.Client, class *models.Class) {
	t.Helper()
	_ = c.Schema().ClassDeleter().WithClassName(class.Class).Do(ctx(t))
	if err := c.Schema().ClassCreator().WithClass(class).Do(ctx(t)); err != nil {
		t.Fatalf("create class %s: %v", class.Class, err)
	}
}

// importOn imports docs into class on another server, with the ids
// importDocs gives them.
func importOn(t testing.TB, c *weaviate.Client, class string, docs []Doc) {
	t.Helper()
	objs := make([]*models.Object, len(docs))
	for i, d := range docs {
		props := map[string]any{"body": d.Body, "grp": d.Group}
		for k, v := range d.Props {
			props[k] = v
		}
		objs[i] = &models.Object{Class: class, ID: strfmt.UUID(uuidOf(class, d.Tenant+"/"+d.Key)), Properties: props,
			Tenant: d.Tenant, Vector: d.Vector}
	}
	for from := 0; from < len(objs); from += 500 {
		to := min(from+500, len(objs))
		res, err := c.Batch().ObjectsBatcher().WithObjects(objs[from:to]...).Do(ctx(t))
		if err != nil {
			t.Fatalf("batch import into %s: %v", class, err)
		}
		for i, r := range res {
			if r.Result != nil && r.Result.Errors != nil && len(r.Result.Errors.Error) > 0 {
				t.Fatalf("batch import into %s, object %q: %s", class, docs[from+i].Key, r.Result.Errors.Error[0].Message)
			}
		}
	}
}

// upSearch sends req to the upstream Weaviate directly.
func (gs *gatewayStack) upSearch(t testing.TB, req *pb.SearchRequest) (*pb.SearchReply, error) {
	t.Helper()
	conn, err := grpc.NewClient(gs.up.GRPCAddr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	return pb.NewWeaviateClient(conn).Search(ctx(t), req)
}

// gatewayLogTail is the gateway's log end, for failures.
func (gs *gatewayStack) logTail() string { return tail(gs.logPath, 20) }
