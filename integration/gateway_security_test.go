package integration

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	pb "github.com/weaviate/weaviate/grpc/generated/protocol/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/diverse-select/diverse-select/integration/stack"
)

// The gateway's security: it holds no credentials, forwards the caller's
// unchanged, and Weaviate's authentication and RBAC decide; the module's
// limits refuse a request before the upstream hears of it; an upstream
// that is down is Unavailable within the caller's deadline.

// TestGatewayAuthorization: a stock Weaviate with API keys and RBAC behind
// the gateway, three users (admin root; reader: AuthDocs and tenant alpha
// of AuthTenants; outsider: another collection only). Every selecting
// search through the gateway, as each user, on every collection and
// tenant: where the user may read, the admin's selection; where not,
// Weaviate's PermissionDenied - also right after the admin's query warmed
// the gateway's feature cache with the objects the user may not read.
func TestGatewayAuthorization(t *testing.T) {
	users := []authUser{authAdmin, authReader, authOutsider}
	var keys, names []string
	for _, u := range users {
		keys, names = append(keys, u.key), append(names, u.name)
	}
	gs := startGatewayStack(t, "gateway-auth", gatewayOptions{
		env: map[string]string{
			"AUTHENTICATION_ANONYMOUS_ACCESS_ENABLED": "false",
			"AUTHENTICATION_APIKEY_ENABLED":           "true",
			"AUTHENTICATION_APIKEY_ALLOWED_KEYS":      strings.Join(keys, ","),
			"AUTHENTICATION_APIKEY_USERS":             strings.Join(names, ","),
			"AUTHORIZATION_RBAC_ENABLED":              "true",
			"AUTHORIZATION_RBAC_ROOT_USERS":           authAdmin.name,
		},
		config: map[string]any{authDocs: authCfg, authTenants: authCfg, authOther: authCfg},
	})
	a := &authEnv{t: t, s: gs.up}
	a.setupStock()

	search := func(u authUser, class, tenant string) ([]string, error) {
		c := context.Background()
		if u.key != "" {
			c = metadata.AppendToOutgoingContext(c, "authorization", "Bearer "+u.key)
		}
		c, cancel := context.WithTimeout(c, 30*time.Second)
		defer cancel()
		alpha := float32(0.5)
		req := rerankRequest(class, 10)
		req.Tenant = tenant
		req.HybridSearch = &pb.Hybrid{Query: healthQuery, AlphaParam: &alpha, UseAlphaParam: true}
		reply, err := gs.search(c, req)
		if err != nil {
			return nil, err
		}
		return replyIDs(reply), nil
	}
	if _, err := search(authUser{}, authDocs, ""); status.Code(err) != codes.Unauthenticated {
		t.Errorf("anonymous through the gateway: %v, want Unauthenticated", err)
	}
	checked := 0
	for _, tc := range []struct {
		class, tenant string
		reader        bool
	}{
		{authDocs, "", true},
		{authTenants, "alpha", true},
		{authTenants, "beta", false},
		{authOther, "", false},
	} {
		want, err := search(authAdmin, tc.class, tc.tenant) // warms the feature cache
		if err != nil || len(want) == 0 {
			t.Fatalf("admin, %s/%s: %v %v\n%s", tc.class, tc.tenant, want, err, gs.logTail())
		}
		for _, u := range []authUser{authReader, authOutsider} {
			allowed := u == authReader && tc.reader || u == authOutsider && tc.class == authOther
			got, err := search(u, tc.class, tc.tenant)
			switch {
			case allowed && err != nil:
				t.Errorf("%s, %s/%s: refused: %v", u.name, tc.class, tc.tenant, err)
			case allowed && !slices.Equal(got, want):
				t.Errorf("%s, %s/%s: selection %v, the admin's %v", u.name, tc.class, tc.tenant, got, want)
			case !allowed && err == nil:
				t.Errorf("%s, %s/%s: got objects %v it may not read", u.name, tc.class, tc.tenant, got)
			case !allowed && (status.Code(err) != codes.PermissionDenied || !isForbidden(err.Error(), u.name)):
				t.Errorf("%s, %s/%s: %v, want Weaviate's PermissionDenied", u.name, tc.class, tc.tenant, err)
			}
			checked++
		}
	}
	t.Logf("%d user x collection checks through the gateway, RBAC decided each", checked)
}

// limitCases are requests over one of the module's limits each, with the
// status both the module and the gateway give.
func limitCases() []struct {
	name string
	req  *pb.SearchRequest
	code codes.Code
} {
	huge := strings.Repeat("statins ", 1<<17) // 1 MiB
	withQuery := func(class, q string) *pb.SearchRequest {
		r := rerankRequest(class, 10)
		r.NearText = &pb.NearTextSearch{Query: []string{healthQuery}}
		r.Rerank.Query = &q
		return r
	}
	withProperty := func(class, p string) *pb.SearchRequest {
		r := withQuery(class, healthQuery)
		r.Rerank.Property = p
		return r
	}
	return []struct {
		name string
		req  *pb.SearchRequest
		code codes.Code
	}{
		{"query-1MiB", withQuery(gwClass, huge), codes.InvalidArgument},
		{"property-over-4096", withProperty(gwClass, settingsProperty("body", map[string]any{"strategy": strings.Repeat("x", 5000)})), codes.InvalidArgument},
		{"bad-budget", withProperty(gwClass, settingsProperty("body", map[string]any{"tokenBudget": -5})), codes.InvalidArgument},
		{"unknown-key", withProperty(gwClass, settingsProperty("body", map[string]any{"tokenBugdet": 5})), codes.InvalidArgument},
		{"deep-settings", withProperty(gwClass, settingsProperty("body", map[string]any{"lambda": map[string]any{"a": map[string]any{"b": []any{[]any{1}}}}})), codes.InvalidArgument},
		{"candidates-over-cap", func() *pb.SearchRequest { r := withQuery(gwClass, healthQuery); r.Limit = 1 << 20; return r }(), codes.ResourceExhausted},
	}
}

// TestGRPCStatusCodes: the module's own gRPC route answers bad input
// InvalidArgument and an exhausted limit ResourceExhausted (it answered
// UNKNOWN), and the gateway answers the same, with the same message.
func TestGRPCStatusCodes(t *testing.T) {
	gs := startGatewayEq(t)
	for _, c := range limitCases() {
		t.Run(c.name, func(t *testing.T) {
			_, merr := eqModuleSearch(t, c.req)
			if status.Code(merr) != c.code {
				t.Errorf("module: %v (%s), want %s", status.Code(merr), clip(merr), c.code)
			}
			t.Logf("module: %s", clip(merr))
			_, gerr := gs.search(ctx(t), c.req)
			if status.Code(gerr) != c.code {
				t.Errorf("gateway: %v (%s), want %s", status.Code(gerr), clip(gerr), c.code)
			}
			if merr != nil && gerr != nil && status.Convert(merr).Message() != status.Convert(gerr).Message() {
				// Weaviate's handler may wrap the module's message; the module's must be in it.
				t.Errorf("messages differ:\nmodule  %s\ngateway %s", clip(merr), clip(gerr))
			}
		})
	}
}

// TestGatewayLimitsBeforeUpstream: a gateway whose upstream is not there
// refuses every over-limit request with the module's status - it never
// needed the upstream to refuse them - and answers a valid one
// Unavailable within the caller's deadline.
func TestGatewayLimitsBeforeUpstream(t *testing.T) {
	dead, err := stack.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	gs := startBareGateway(t, fmt.Sprintf("127.0.0.1:%d", dead), fmt.Sprintf("http://127.0.0.1:%d", dead))
	client := pb.NewWeaviateClient(gs)
	for _, c := range limitCases() {
		if _, err := client.Search(ctx(t), c.req); status.Code(err) != c.code {
			t.Errorf("%s: %v (%s), want %s before any upstream call", c.name, status.Code(err), clip(err), c.code)
		}
	}
	for _, deadline := range []time.Duration{2 * time.Second, 200 * time.Millisecond} {
		c, cancel := context.WithTimeout(context.Background(), deadline)
		start := time.Now()
		_, err := client.Search(c, eqRequest(10, map[string]any{"strategy": "mmr"}, nil))
		took := time.Since(start)
		cancel()
		if code := status.Code(err); code != codes.Unavailable && code != codes.DeadlineExceeded {
			t.Errorf("dead upstream, deadline %s: %v, want Unavailable", deadline, err)
		}
		if took > deadline+time.Second {
			t.Errorf("dead upstream, deadline %s: answered after %s", deadline, took)
		}
		t.Logf("dead upstream, deadline %s: %s after %s", deadline, status.Code(err), took.Round(time.Millisecond))
	}
	// A search without settings passes through: Unavailable too.
	plain := eqRequest(10, nil, nil)
	plain.Rerank = nil
	if _, err := client.Search(ctx(t), plain); status.Code(err) != codes.Unavailable {
		t.Errorf("pass-through to a dead upstream: %v, want Unavailable", err)
	}
}

// startBareGateway starts bin/gateway in front of the given upstream
// addresses (no Weaviate started) and returns a connection to it.
func startBareGateway(t *testing.T, upGRPC, upHTTP string) *grpc.ClientConn {
	t.Helper()
	gs := &gatewayStack{up: &stack.Stack{GRPCAddr: upGRPC, HTTPURL: upHTTP}}
	gs.launch(t, "gateway-bare", map[string]any{gwClass: gwCfg}, nil, t.Cleanup)
	return gs.conn
}

func clip(err error) string {
	if err == nil {
		return "no error"
	}
	s := err.Error()
	if len(s) > 300 {
		s = s[:300] + "..."
	}
	return s
}
