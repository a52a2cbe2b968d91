package main

// Patches is every change we make to Weaviate's source: one statement
// inserted after a named anchor statement, plus a glue file of ours added to
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
		GlueName: "zz_diverse_select_register.go",
		Why: "Weaviate has no plugin loader: registerModules is a hard-coded list. " +
			"This registers diverse-select when ENABLE_MODULES names it, before Init, validation and the GraphQL build.",
	},
	{
		ID:       "route",
		File:     "adapters/handlers/graphql/local/get/class_builder_fields.go",
		Func:     "resolveGet",
		Anchor:   "extractedParams, extractedCombinations := r.modulesProvider.ExtractSearchParams(p.Args, className)",
		Insert:   "if pagination, err = liftPostProcessorArgs(className, tenant, p.Args, extractedParams, extractedCombinations, &properties, &addlProps, pagination); err != nil {\n\treturn nil, err\n}",
		Glue:     "get_postprocess.go.txt",
		GlueName: "zz_diverse_select_postprocess.go",
		Why: "Weaviate treats every top-level module argument as a vector searcher. This moves the diverseSelect " +
			"argument to the result hooks, widens the search limit to the candidate pool, asks for the vectors and " +
			"properties the selection needs (named vectors, hybrid, unselected text) and hands over the tenant; a bad argument is a GraphQL error.",
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
		GlueName: "zz_diverse_select_mutable.go",
		Why: "Weaviate refuses config updates for modules that are neither generative nor reranker. This lets a " +
			"module opt in (diverse-select does), so a class's selection defaults can be changed; Weaviate validates " +
			"module configs only on create, so a changed config of such a module is validated by the module here.",
	},
	{
		ID:       "grpc-search",
		File:     "adapters/handlers/grpc/v1/service.go",
		Func:     "search",
		Anchor:   "getClass := s.classGetterWithAuthzFunc(ctx, principal, req.Tenant)",
		Insert:   "ctx = withSearchRequest(ctx, req, getClass)",
		Glue:     "grpc_search.go.txt",
		GlueName: "zz_diverse_select_search.go",
		Why: "The gRPC rerank route (reranker-diverse-select) runs as a result hook, which Weaviate gives neither the " +
			"request's tenant nor, on hybrid and named-vector searches, the vectors. This puts the tenant in the search's " +
			"context; for a rerank on a collection that configures the module (read through Weaviate's authorizing getter, so nothing is read for a caller without access), it asks the search for the vector the " +
			"selection compares (removed again from the reply unless the request asked for it), so the hook does not read " +
			"the candidates a second time by id, and it moves the search's offset to the selection, so the offset pages " +
			"the selection over the same pool instead of skipping the pool's first results.",
	},
	{
		ID:       "hook-order",
		File:     "usecases/modules/modules.go",
		Func:     "additionalExtend",
		Anchor:   "toBeExtended := in",
		Insert:   "if len(moduleParams) > 1 {\n\treturn p.extendInPipelineOrder(ctx, in, moduleParams, searchVector, capability, argumentModuleParams)\n}",
		Glue:     "modules_order.go.txt",
		GlueName: "zz_diverse_select_order.go",
		GlueTest: "modules_order_test.go.txt",
		Why: "Weaviate runs a query's result hooks (rerank, diverseSelect, generate) in Go map order, which is random: " +
			"generate could run over the whole candidate pool before the selection dropped most of it. With more than one hook, " +
			"this runs them one at a time in the RAG pipeline's order (package hookorder): rerankers, diverse selection, other hooks, " +
			"generate - on every route (both GraphQL forms, gRPC rerank and generative search).",
	},
	{
		ID:       "widen",
		File:     "usecases/traverser/explorer.go",
		Func:     "GetClass",
		Anchor:   "searchStartTime := time.Now()",
		Insert:   "if out, handled, err := widenDiverseSelectPool(ctx, e, params); handled {\n\treturn out, err\n}",
		Glue:     "explorer_widen.go.txt",
		GlueName: "zz_diverse_select_widen.go",
		Why: "A result hook cannot search again. With widenTo set, when the selection spent its pool on near-copies " +
			"with room left, this runs the search once more with widenTo candidates and returns the selection on that pool " +
			"(every route: both GraphQL forms and gRPC rerank); searches without module hooks pass straight through.",
	},
	{
		ID:       "vector",
		File:     "usecases/traverser/explorer.go",
		Func:     "searchForTargets",
		Anchor:   "params.AdditionalProperties.Vector = true",
		Insert:   "params.AdditionalProperties.Vector = diverseSelectLoadsVector(ctx, params)",
		Glue:     "explorer_vector.go.txt",
		GlueName: "zz_diverse_select_vector.go",
		Why: "Weaviate loads every candidate's vector for a vector search with any module additional property, in case the " +
			"module needs it (a 3 KB copy per candidate at 768 dimensions: at a pool of 1000, 60% of the query's allocations). " +
			"This keeps it unloaded when the selection takes the vector it compares from its feature cache (set up by the widen " +
			"glue: docs/internals.md, \"Properties and vectors are read for the selected objects only\") and the query did not ask for it; every other search loads it as before.",
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
		Dir: "usecases/traverser",
		Why: "the explorer runs the search with the limit our route patch widens, loads the vectors and " +
			"properties PreparePostProcess asks for, and calls our result hooks (ExploreGet/ExploreList) on the merged list",
	},
	{
		Dir: "usecases/modules",
		Why: "the module provider: registration, Init, class-config validation on create, ClassByModuleName, " +
			"GetByName (our config-update patch) and the additional-property dispatch to our hooks (hook-order patch)",
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
		Why: "generate, run after our selection (hook-order patch), sends the objects it gets in their order and puts " +
			"the grouped answer on the first one",
	},
	{
		Dir: "usecases/modulecomponents/generative",
		Why: "the grouped task's and the single prompt's text are built from the hook's objects in order (MakeTaskPrompt, MakeSinglePrompt)",
	},
	{
		Dir: "usecases/modulecomponents/arguments/nearText",
		Why: "the hook reads the search's target vectors from its NearTextParams",
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
