# diverse-select: every entry point. `make run` and `make test` are the two
# set-up commands of the README.
GO      ?= go
BUILD   := build
BIN     := bin
export GOFLAGS := -buildvcs=false

# Data the demo and the evaluation read in place (never copied into the repo).
SHARED_DATA ?= $(abspath ../shared/data)
GLOVE_DIR   ?= $(SHARED_DATA)/glove-6b-100d-top100k

.PHONY: all build weaviate embedder run test test-unit test-integration test-weaviate vet clean

all: build

## build: the patched Weaviate server with the module, and the local embedder
build: weaviate embedder

## weaviate: copy the pinned Weaviate source, patch it (no-op when up to date), build incrementally
weaviate:
	$(GO) run ./cmd/patch-weaviate -out $(BUILD)
	cd $(BUILD) && GOWORK=$(CURDIR)/$(BUILD)/go.work $(GO) build -o $(CURDIR)/$(BIN)/weaviate-server github.com/weaviate/weaviate/cmd/weaviate-server

embedder:
	$(GO) build -o $(BIN)/embedder ./cmd/embedder

## run: start the embedder and Weaviate with the module on the demo corpus, show top-k next to diverse selection
run: build
	$(GO) run ./cmd/demo -glove-dir "$(GLOVE_DIR)"

## test: unit tests and integration tests against the real server
test: build vet
	$(GO) test -count=1 ./...

test-unit: vet
	$(GO) test -count=1 $$($(GO) list ./... | grep -v /integration)

test-integration: build
	$(GO) test -count=1 -v ./integration/...

## test-weaviate: Weaviate's own tests of the packages we patch or rely on, in the patched tree (cmd/patch-weaviate TestPackages)
test-weaviate:
	$(GO) run ./cmd/patch-weaviate -out $(BUILD) -test

vet:
	$(GO) vet ./...
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || (echo "gofmt needed:"; gofmt -l $$(git ls-files '*.go'); exit 1)

clean:
	rm -rf $(BUILD) $(BIN) .data
