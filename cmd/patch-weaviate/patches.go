package main

// Patches is every change we make to Weaviate's source: one statement
// inserted at a named anchor statement, plus a glue file of ours added to
// the same package. docs/internals.md, "What we change in Weaviate and why", lists
// the same table; `patch-weaviate -list` prints it, and `-packages` prints the
// patched packages (make test-weaviate runs their tests, see TestPackages).
var Patches = []Patch{
	{
		ID:       "register",
		File:     "adapters/handlers/rest/configure_api.go",
		Func:     "registerModules",
		Anchor:   "appState.Modules = modules.NewProvider(appState.Logger, appState.ServerConfig.Config)",
		Insert:   "registerExtraModules(appState)",
		Glue:     "rest_register.go.txt",
		GlueName: "register_extra_modules.go",
		GlueTest: "rest_register_test.go.txt",
		Requires: []Requirement{
			{"adapters/handlers/rest/middlewares.go", "func makeAddModuleHandlers(modules *modules.Provider) func(http.Handler) http.Handler {"},
			{"usecases/auth/authentication/composer/token_validation.go", "func New(config config.Authentication, namespacesEnabled bool, logger logrus.FieldLogger,"},
		},
		Why: "Weaviate has no plugin loader: registerModules is a hard-coded list. " +
			"This registers diverse-select when ENABLE_MODULES names it, before Init, validation and the GraphQL build, " +
			"and hands the module Weaviate's authenticator and authorizer for its HTTP handler, which Weaviate mounts ahead of its authentication.",
	},
	{
		ID:       "selection-argument",
		File:     "adapters/handlers/graphql/local/get/class_builder_fields.go",
		Func:     "resolveGet",
		Anchor:   "extractedParams, extractedCombinations := r.modulesProvider.ExtractSearchParams(p.Args, className)",
		Insert:   "if err := liftSelectionArguments(p.Args, extractedParams, extractedCombinations, &addlProps); err != nil {\n\treturn nil, err\n}",
		Glue:     "get_selection_args.go.txt",
		GlueName: "selection_arguments.go",
		GlueTest: "get_selection_args_test.go.txt",
		Why: "Weaviate treats every top-level module argument as a vector searcher. A module argument whose value " +
			"selects among the results (diverseSelect) moves to the additional-property params, where the explorer's " +
			"selection stage finds it as it finds the _additional field's, and is given the query's arguments (whether " +
			"a limit or an offset was given, groupBy, after), which the search params do not keep; its error is the query's.",
	},
	{
		ID:     "mutable-config",
		File:   "usecases/schema/parser.go",
		Func:   "validateModuleConfigsParityAndImmutables",
		Anchor: "for module := range updatedModConf {",
		Count:  2,
		Nth:    1,
		Insert: "if mutable, err := mutableModuleConfigUpdate(p.modules, module, initialModConf[module], updatedModConf[module], updated); err != nil {\n" +
			"\treturn err\n} else if mutable {\n\tcontinue\n}",
		Glue:     "schema_mutable.go.txt",
		GlueName: "mutable_module_config.go",
		GlueTest: "schema_mutable_test.go.txt",
		Why: "Weaviate refuses config updates for modules that are neither generative nor reranker. This lets a " +
			"module opt in (diverse-select does), so a class's selection defaults can be changed; Weaviate validates " +
			"module configs only on create, so a changed config of such a module is validated by the module here.",
	},
	{
		ID:       "rerank-options",
		File:     "adapters/handlers/grpc/v1/service.go",
		Func:     "search",
		Anchor:   "getClass := s.classGetterWithAuthzFunc(ctx, principal, req.Tenant)",
		Insert:   "ctx = withRerankPropertyOptions(ctx, req)",
		Glue:     "grpc_rerank_options.go.txt",
		GlueName: "rerank_property_options.go",
		GlueTest: "grpc_rerank_options_test.go.txt",
		Why: "Weaviate checks a gRPC rerank property as a property name before the search runs. A rerank property " +
			"may name options for the reranker after its name (\"body|<options>\": the client helpers' per-query " +
			"selection settings, which the application writes and the end user's query text cannot reach); this " +
			"moves them out of the request into the search's incoming metadata, where the module that takes the " +
			"rerank reads them, and drops a value a client sent under that key itself.",
	},
	{
		ID:       "selection-stage",
		File:     "usecases/traverser/explorer.go",
		Func:     "GetClass",
		Anchor:   "if params.KeywordRanking != nil {",
		Before:   true,
		Insert:   "if out, handled, err := e.moduleSelection(ctx, params, searchStartTime); handled {\n\treturn out, err\n}",
		Glue:     "explorer_selection.go.txt",
		GlueName: "module_selection.go",
		GlueTest: "explorer_selection_test.go.txt",
		Requires: []Requirement{
			{"usecases/traverser/explorer.go", "func (e *Explorer) getClassKeywordBased(ctx context.Context, params dto.GetParams) ([]search.Result, error) {"},
			{"usecases/traverser/explorer.go", "func (e *Explorer) getClassVectorSearch(ctx context.Context, params dto.GetParams, ) ([]search.Result, models.Vector, error) {"},
			{"usecases/traverser/explorer.go", "func (e *Explorer) getClassList(ctx context.Context, params dto.GetParams, ) ([]search.Result, error) {"},
			{"usecases/traverser/explorer.go", "func (e *Explorer) searchResultsToGetResponse(ctx context.Context, input []search.Result, searchVector models.Vector, params dto.GetParams, searchStartTime time.Time) ([]interface{}, error) {"},
			{"usecases/traverser/explorer.go", "GetExploreAdditionalExtend(ctx context.Context, in []search.Result, moduleParams map[string]interface{}, searchVector models.Vector, argumentModuleParams map[string]interface{}) ([]search.Result, error)"},
			{"usecases/traverser/explorer.go", "ListExploreAdditionalExtend(ctx context.Context, in []search.Result, moduleParams map[string]interface{}, argumentModuleParams map[string]interface{}) ([]search.Result, error)"},
			{"usecases/modules/modules.go", "func (p *Provider) GetAll() []modulecapabilities.Module {"},
			{"usecases/modulecomponents/additional/provider_ranker.go", `const PropertyRerank = "rerank"`},
		},
		Why: "Weaviate's own selection (MMR) is a stage of the explorer; a module has no such place, only result hooks, " +
			"which run in random order, cannot search again and get the pool as loaded. This offers each Get query with " +
			"module params to the modules that implement ResultSelector, once its pagination is settled: the module " +
			"that takes it runs the search for its pool (rerankers included) as often as it needs, " +
			"and returns the selection; every other hook (generate, annotations) then runs on the selected results only, and the response is " +
			"built with the query's own params. Every route enters it: both GraphQL forms, gRPC rerank and generative search.",
	},
	{
		ID:       "grpc-bind",
		File:     "adapters/handlers/grpc/server.go",
		Func:     "StartAndListen",
		Anchor:   `lis, err := net.Listen("tcp", fmt.Sprintf(":%d",`,
		Before:   true,
		Insert:   "if lis, handled, err := bindAddrListener(state); handled {\n\treturn serveOn(s, lis, err, state)\n}",
		Glue:     "grpc_bind.go.txt",
		GlueName: "grpc_bind_addr.go",
		GlueTest: "grpc_bind_test.go.txt",
		Why: "Weaviate's gRPC listener binds every interface (\":port\") and has no setting for its address, so a " +
			"server meant for this host only (make run) is reachable from the network on its gRPC port. GRPC_BIND_ADDR " +
			"(an IP address) moves it; unset, Weaviate's own listener is used.",
	},
	{
		ID:       "cluster-api-bind",
		File:     "adapters/handlers/rest/clusterapi/serve.go",
		Func:     "Serve",
		Anchor:   "return s.server.ListenAndServe()",
		Before:   true,
		Insert:   "s.server.Addr = bindAddr(s.server.Addr, s.appState.ServerConfig.Config.Cluster.BindAddr)",
		Glue:     "clusterapi_bind.go.txt",
		GlueName: "cluster_api_bind_addr.go",
		GlueTest: "clusterapi_bind_test.go.txt",
		Why: "CLUSTER_BIND_ADDR binds Weaviate's gossip and Raft listeners, but the cluster API (the data port) " +
			"binds every interface (\":port\") whatever it says. This binds it to CLUSTER_BIND_ADDR too; unset, nothing changes.",
	},
}

// TestPackage is a Weaviate package whose own tests `make test-weaviate` runs
// on the patched tree (patch-weaviate -test).
type TestPackage struct {
	Dir string // relative to the Weaviate source root
	Why string
	// Skip lists top-level tests left out of the run, each with its reason.
	// Keep it empty unless a test cannot run here (it needs Docker, network
	// or cloud credentials); a test that fails is never skipped to hide it.
	Skip []SkippedTest
}

// SkippedTest is a top-level test left out of a package's run, and why.
type SkippedTest struct{ Test, Why string }

// ReliedOn are the Weaviate packages whose behaviour the module depends on
// beyond what we patch. Their tests run with the patched packages' so that a
// Weaviate upgrade which changes them fails a Weaviate test here, not a
// user's query.
var ReliedOn = []TestPackage{
	{
		Dir: "usecases/modules",
		Why: "the module provider: registration, Init, class-config validation on create, ClassByModuleName, " +
			"GetAll (the selection stage finds the modules that select), GetByName (our config-update patch) and the " +
			"additional-property dispatch that runs rerankers on the pool and generate on the selection",
	},
	{
		Dir: "adapters/handlers/grpc/v1",
		Why: "the gRPC route: SearchRequest.rerank reaches our reranker-typed module, and prepare_reply " +
			"casts the rerank additional property each selected result must carry",
	},
	{
		Dir: "usecases/modulecomponents/additional/rank",
		Why: "the reranker module reuses its GraphQL field and takes the *rank.Params the gRPC parser builds",
	},
	{
		Dir: "usecases/modulecomponents/additional/generate",
		Why: "generate, run after the selection stage, sends the objects it gets in their order and puts " +
			"the grouped answer on the first one",
	},
	{
		Dir: "usecases/modulecomponents/generative",
		Why: "the grouped task's and the single prompt's text are built from the hook's objects in order (MakeTaskPrompt, MakeSinglePrompt)",
	},
	{
		Dir: "usecases/modulecomponents/arguments/nearText",
		Why: "the selection reads the search's query text, target vectors and threshold from its NearTextParams",
	},
}

// TestPackages is every package `make test-weaviate` runs: the patched ones,
// derived from Patches so the list cannot drift, then ReliedOn (a relied-on
// package that is also patched keeps both reasons).
func TestPackages() []TestPackage {
	var out []TestPackage
	at := map[string]int{}
	for _, p := range Patches {
		if i, ok := at[p.Package()]; ok {
			out[i].Why += ", " + p.ID
			continue
		}
		at[p.Package()] = len(out)
		out = append(out, TestPackage{Dir: p.Package(), Why: "patched: " + p.ID})
	}
	for _, r := range ReliedOn {
		if i, ok := at[r.Dir]; ok {
			out[i].Why += "; relied on: " + r.Why
			out[i].Skip = append(out[i].Skip, r.Skip...)
			continue
		}
		at[r.Dir] = len(out)
		out = append(out, r)
	}
	return out
}
