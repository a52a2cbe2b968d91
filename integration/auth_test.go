package integration

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-openapi/strfmt"
	"github.com/weaviate/weaviate-go-client/v5/weaviate"
	"github.com/weaviate/weaviate-go-client/v5/weaviate/auth"
	"github.com/weaviate/weaviate-go-client/v5/weaviate/connection"
	"github.com/weaviate/weaviate/entities/models"
	pb "github.com/weaviate/weaviate/grpc/generated/protocol/v1"

	"github.com/diverse-select/diverse-select/integration/stack"
)

// Authorization: a production Weaviate runs with API keys (or OIDC) and RBAC.
// The module must never widen what a user can read: not through the GraphQL
// forms, and not through the gRPC route, whose hook re-fetches vectors and
// text by id straight from the database (module/reranker.go, load) - below
// Weaviate's authorization, so it must only ever run for a search Weaviate
// already authorized, on that search's collection and tenant.
//
// TestAuthorization starts its own server with API-key authentication and
// RBAC (anonymous access off) and three users: admin (root), reader (a role
// that may read AuthDocs and tenant alpha of AuthTenants) and outsider (a
// role that may read another collection only). Each query form - the
// top-level diverseSelect argument, _additional { diverseSelect }, GraphQL's
// _additional { rerank } and the gRPC rerank route (hybrid searches, so the
// hook re-fetches the vectors) - is sent as each user: where the user may not
// read, the answer is Weaviate's authorization error; where it may, the
// selection equals the admin's.

const (
	authDocs    = "AuthDocs"
	authTenants = "AuthTenants"
	authOther   = "AuthOther"
)

// authCfg needs vectors (dedupThreshold), so every route must load or
// re-fetch them.
var authCfg = map[string]any{"strategy": "mmr", "tokenBudget": 100, "dedupThreshold": 0.8}

type authUser struct{ name, key string }

var (
	authAdmin    = authUser{"admin", "admin-key-0001"}
	authReader   = authUser{"reader", "reader-key-0002"}
	authOutsider = authUser{"outsider", "outsider-key-0003"}
)

func TestAuthorization(t *testing.T) {
	users := []authUser{authAdmin, authReader, authOutsider}
	var keys, names []string
	for _, u := range users {
		keys, names = append(keys, u.key), append(names, u.name)
	}
	logFile, err := os.CreateTemp("", "diverse-select-auth-*.log")
	if err != nil {
		t.Fatal(err)
	}
	defer os.Remove(logFile.Name())
	defer logFile.Close()
	sctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	s, err := stack.Start(sctx, stack.Options{Log: logFile, Metrics: true, Env: map[string]string{
		"DIVERSE_SELECT_FEATURE_CACHE_SETTLE":     "0", // as the shared stack (main_test.go)
		"AUTHENTICATION_ANONYMOUS_ACCESS_ENABLED": "false",
		"AUTHENTICATION_APIKEY_ENABLED":           "true",
		"AUTHENTICATION_APIKEY_ALLOWED_KEYS":      strings.Join(keys, ","),
		"AUTHENTICATION_APIKEY_USERS":             strings.Join(names, ","),
		"AUTHORIZATION_RBAC_ENABLED":              "true",
		"AUTHORIZATION_RBAC_ROOT_USERS":           authAdmin.name,
	}})
	if err != nil {
		t.Fatalf("start the server with authentication and RBAC: %v\n%s", err, tail(logFile.Name(), 30))
	}
	defer s.Stop()
	a := &authEnv{t: t, s: s}
	a.setup()

	// Anonymous requests are refused before any module code runs.
	if res, status := a.graphql(authUser{}, a.argumentQuery(authDocs, "")); status != http.StatusUnauthorized {
		t.Errorf("anonymous GraphQL: status %d, errors %q; want 401", status, res.errText())
	}

	for _, tc := range []struct {
		class, tenant string
		reader        bool // reader may read it; outsider never may
	}{
		{authDocs, "", true},
		{authTenants, "alpha", true},
		{authTenants, "beta", false},
	} {
		name := tc.class
		if tc.tenant != "" {
			name += "/" + tc.tenant
		}
		t.Run(name, func(t *testing.T) {
			a.t = t
			want := a.allRoutes(authAdmin, tc.class, tc.tenant)
			for _, route := range authRoutes {
				if len(want[route]) == 0 || want[route][0] == "error" {
					t.Fatalf("admin: %s selected nothing: %v", route, want[route])
				}
			}
			// The gRPC search loaded the vectors for the hook, from its
			// tenant: its selection is the field form's, whose search loaded
			// them too (beta holds other texts under the same ids).
			if !slices.Equal(want["grpc-rerank"], want["field"]) || !slices.Equal(want["argument"], want["field"]) {
				t.Errorf("admin: selections differ between routes: %v", want)
			}
			for _, u := range []authUser{authReader, authOutsider} {
				allowed := u == authReader && tc.reader
				for route, got := range a.allRoutes(u, tc.class, tc.tenant) {
					switch {
					case allowed && got[0] == "error":
						t.Errorf("%s, %s: refused: %s", u.name, route, got[1])
					case allowed && !slices.Equal(got, want[route]):
						t.Errorf("%s, %s: selection %v, the admin's %v", u.name, route, got, want[route])
					case !allowed && got[0] != "error":
						t.Errorf("%s, %s: got a selection %v without read permission", u.name, route, got)
					case !allowed && !isForbidden(got[1], u.name):
						t.Errorf("%s, %s: error %q is not Weaviate's authorization error", u.name, route, got[1])
					}
				}
			}
		})
	}
	if !s.Alive() {
		t.Fatal("the server died")
	}
	// Hybrid results carry no vectors, and these searches load neither the
	// pool's properties nor its vectors (README, "Properties and vectors are
	// read for the selected objects only"): each route read by id, from the
	// search's tenant, the candidates the feature cache did not hold and the
	// selected objects - for the readers as for the admin, with the
	// selections above equal to the admin's - and none took the re-fetch path.
	mfs := scrapeURL(t, s.MetricsURL)
	if n := sample(mfs, "diverse_select_deferred_reads_total", "reason", "uncached"); n == 0 {
		t.Errorf("no candidate read by id for its text and vector: the test did not exercise the path it guards")
	}
	if n := sample(mfs, "diverse_select_deferred_reads_total", "reason", "selected"); n == 0 {
		t.Errorf("no selected object read by id: the test did not exercise the path it guards")
	}
	log, _ := os.ReadFile(logFile.Name())
	for _, class := range []string{authDocs, authTenants} {
		if slices.ContainsFunc(strings.Split(string(log), "\n"), func(l string) bool {
			return strings.Contains(l, `"class":"`+class+`"`) && strings.Contains(l, "loading it again by id")
		}) {
			t.Errorf("a re-fetch was logged for %s: a route read the candidates a second time", class)
		}
	}
}

// isForbidden tells Weaviate's authorization error for user (usecases/auth/
// authorization/errors: "authorization, forbidden action: user 'X' has
// insufficient permissions to read_data ...").
func isForbidden(msg, user string) bool {
	return strings.Contains(msg, "forbidden") && strings.Contains(msg, "'"+user+"'") && strings.Contains(msg, "insufficient permissions")
}

type authEnv struct {
	t testing.TB
	s *stack.Stack
}

var authRoutes = []string{"argument", "field", "graphql-rerank", "grpc-rerank"}

// allRoutes runs the same selection through every route as user u; each
// entry is the selected ids, or {"error", message}.
func (a *authEnv) allRoutes(u authUser, class, tenant string) map[string][]string {
	out := map[string][]string{}
	out["argument"] = a.gqlIDs(u, class, a.argumentQuery(class, tenant))
	out["field"] = a.gqlIDs(u, class, a.fieldQuery(class, tenant))
	out["graphql-rerank"] = a.gqlIDs(u, class, a.rerankQuery(class, tenant))
	out["grpc-rerank"] = a.grpcIDs(u, class, tenant)
	return out
}

func tenantArg(tenant string) string {
	if tenant == "" {
		return ""
	}
	return fmt.Sprintf("tenant: %q, ", tenant)
}

// The three GraphQL forms over one hybrid search of 10 candidates, whose pool
// the selection stage reads as ids and scores, and the candidates' texts and
// vectors by id.
func (a *authEnv) argumentQuery(class, tenant string) string {
	return fmt.Sprintf(`{ Get { %s(%shybrid: {query: %q, alpha: 0.5}, limit: 10, diverseSelect: {candidates: 10, query: %q}) { body _additional { id } } } }`,
		class, tenantArg(tenant), healthQuery, healthQuery)
}

func (a *authEnv) fieldQuery(class, tenant string) string {
	return fmt.Sprintf(`{ Get { %s(%shybrid: {query: %q, alpha: 0.5}, limit: 10) { body _additional { id diverseSelect(query: %q) { rank } } } } }`,
		class, tenantArg(tenant), healthQuery, healthQuery)
}

// rerankQuery: on a tenant, nearText (which loads the vectors) - GraphQL's
// rerank hook is not told the tenant, so it cannot re-fetch there (a
// documented limit: TestGRPCMultiTenant).
func (a *authEnv) rerankQuery(class, tenant string) string {
	search := fmt.Sprintf("hybrid: {query: %q, alpha: 0.5}", healthQuery)
	if tenant != "" {
		search = fmt.Sprintf("nearText: {concepts: [%q]}", healthQuery)
	}
	return fmt.Sprintf(`{ Get { %s(%s%s, limit: 10) { body _additional { id rerank(property: "body", query: %q) { score } } } } }`,
		class, tenantArg(tenant), search, healthQuery)
}

// gqlIDs posts query as u and returns the ids of class's objects, or
// {"error", message}.
func (a *authEnv) gqlIDs(u authUser, class, query string) []string {
	res, status := a.graphql(u, query)
	if len(res.Errors) > 0 {
		return []string{"error", res.errText()}
	}
	if status != http.StatusOK {
		return []string{"error", fmt.Sprintf("status %d", status)}
	}
	var out []string
	for _, o := range res.Data.Get[class] {
		add, _ := o["_additional"].(map[string]any)
		id, _ := add["id"].(string)
		out = append(out, id)
	}
	if out == nil {
		return []string{} // an empty selection, not an error
	}
	return out
}

// graphql posts query with u's API key (none for the zero user).
func (a *authEnv) graphql(u authUser, query string) (gqlResult, int) {
	a.t.Helper()
	b, _ := json.Marshal(map[string]any{"query": query})
	req, err := http.NewRequestWithContext(ctx(a.t), http.MethodPost, a.s.HTTPURL+"/v1/graphql", bytes.NewReader(b))
	if err != nil {
		a.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if u.key != "" {
		req.Header.Set("Authorization", "Bearer "+u.key)
	}
	resp, err := httpc.Do(req)
	if err != nil {
		a.t.Fatalf("POST /v1/graphql: %v", err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var out gqlResult
	_ = json.Unmarshal(raw, &out)
	if resp.StatusCode != http.StatusOK && len(out.Errors) == 0 {
		out.Errors = append(out.Errors, struct {
			Message string `json:"message"`
		}{Message: fmt.Sprintf("status %d: %s", resp.StatusCode, raw)})
	}
	return out, resp.StatusCode
}

// grpcIDs runs the gRPC rerank route as u: a hybrid search of 10
// candidates, which asks for the vectors the hook compares.
func (a *authEnv) grpcIDs(u authUser, class, tenant string) []string {
	conn, err := connection.NewGrpcClient(a.s.GRPCAddr, false, map[string]string{"authorization": "Bearer " + u.key},
		nil, time.Minute, 30*time.Second)
	if err != nil {
		a.t.Fatalf("gRPC connection: %v", err)
	}
	alpha := float32(0.5)
	req := rerankRequest(class, 10)
	req.Tenant = tenant
	req.HybridSearch = &pb.Hybrid{Query: healthQuery, AlphaParam: &alpha, UseAlphaParam: true}
	reply, err := conn.Search(ctx(a.t), req)
	if err != nil {
		return []string{"error", err.Error()}
	}
	out := []string{}
	for _, r := range reply.Results {
		out = append(out, r.GetMetadata().GetId())
	}
	return out
}

// setup creates the classes as admin, imports the Health corpus (both
// tenants get the same objects: same ids, different texts in beta, so a
// re-fetch from the wrong tenant would change the selection), and creates
// and assigns the roles.
func (a *authEnv) setup() {
	mc := withReranker(authCfg)
	mc["diverse-select"] = authCfg
	a.setupWith(mc)
}

// setupStock is setup on a stock server: the same classes without the
// module's config (the gateway's file holds it), objects and roles.
func (a *authEnv) setupStock() { a.setupWith(transformers()) }

// setupWith is setup with mc as every class's moduleConfig.
func (a *authEnv) setupWith(mc map[string]any) {
	t := a.t
	admin, err := weaviate.NewClient(weaviate.Config{Host: strings.TrimPrefix(a.s.HTTPURL, "http://"), Scheme: "http",
		AuthConfig: auth.ApiKey{Value: authAdmin.key}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []*models.Class{
		{Class: authDocs, Vectorizer: "text2vec-transformers", ModuleConfig: mc, Properties: bodyProps()},
		{Class: authTenants, Vectorizer: "text2vec-transformers", ModuleConfig: mc, Properties: bodyProps(),
			MultiTenancyConfig: &models.MultiTenancyConfig{Enabled: true}},
		{Class: authOther, Vectorizer: "text2vec-transformers", ModuleConfig: mc, Properties: bodyProps()},
	} {
		if err := admin.Schema().ClassCreator().WithClass(c).Do(ctx(t)); err != nil {
			t.Fatalf("create %s: %v", c.Class, err)
		}
	}
	if err := admin.Schema().TenantsCreator().WithClassName(authTenants).
		WithTenants(models.Tenant{Name: "alpha"}, models.Tenant{Name: "beta"}).Do(ctx(t)); err != nil {
		t.Fatalf("create tenants: %v", err)
	}
	var objs []*models.Object
	for i, d := range healthDocs {
		props := map[string]any{"body": d.Body, "grp": d.Group, "ntok": d.Props["ntok"]}
		id := strfmt.UUID(uuidOf(authDocs, d.Key))
		objs = append(objs,
			&models.Object{Class: authDocs, ID: id, Properties: props},
			&models.Object{Class: authOther, ID: id, Properties: props},
			&models.Object{Class: authTenants, ID: id, Properties: props, Tenant: "alpha"},
			&models.Object{Class: authTenants, ID: id, Tenant: "beta", Properties: map[string]any{
				"body": healthDocs[len(healthDocs)-1-i].Body, "grp": d.Group, "ntok": d.Props["ntok"]}})
	}
	res, err := admin.Batch().ObjectsBatcher().WithObjects(objs...).Do(ctx(t))
	if err != nil {
		t.Fatalf("import: %v", err)
	}
	if err := stack.BatchError(res); err != nil {
		t.Fatalf("import: %v", err)
	}
	readData := func(class, tenant string) map[string]any {
		return map[string]any{"action": "read_data", "data": map[string]any{"collection": class, "tenant": tenant, "object": "*"}}
	}
	// GraphQL needs read_collections on every collection (its schema is
	// introspected); reading objects is read_data, per collection and tenant.
	readSchema := map[string]any{"action": "read_collections", "collections": map[string]any{"collection": "*"}}
	a.rest(http.MethodPost, "/v1/authz/roles", map[string]any{"name": "docs-reader", "permissions": []any{
		readSchema, readData(authDocs, "*"), readData(authTenants, "alpha"),
	}})
	a.rest(http.MethodPost, "/v1/authz/roles", map[string]any{"name": "other-reader", "permissions": []any{
		readSchema, readData(authOther, "*"),
	}})
	a.rest(http.MethodPost, "/v1/authz/users/"+authReader.name+"/assign", map[string]any{"roles": []string{"docs-reader"}, "userType": "db"})
	a.rest(http.MethodPost, "/v1/authz/users/"+authOutsider.name+"/assign", map[string]any{"roles": []string{"other-reader"}, "userType": "db"})
}

// rest sends an admin REST request that must succeed.
func (a *authEnv) rest(method, path string, body any) {
	a.t.Helper()
	b, _ := json.Marshal(body)
	req, err := http.NewRequestWithContext(ctx(a.t), method, a.s.HTTPURL+path, bytes.NewReader(b))
	if err != nil {
		a.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+authAdmin.key)
	resp, err := httpc.Do(req)
	if err != nil {
		a.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode/100 != 2 {
		a.t.Fatalf("%s %s: status %d: %s", method, path, resp.StatusCode, raw)
	}
}
