# rebasegen: see README.md. Every tool the targets need is built by the repo itself into .cache/.
GO       ?= go
VERSION  ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
# kustomize_disable_go_plugin_support: Argo CD's packages link kustomize (through
# k8s.io/cli-runtime), whose Go plugin loader imports package plugin, and a binary linking plugin
# keeps every method of every type it links (the linker cannot drop any a plugin might call).
# rebasegen runs no kustomize plugin; kustomize's tag leaves the loader out.
export GOFLAGS := -buildvcs=false -tags=kustomize_disable_go_plugin_support
# go.mod needs Go 1.27 (Argo CD's modules do) and names toolchain go1.27.3: auto switches to it
# where the installed go is older, and an environment's GOTOOLCHAIN=local would refuse instead.
export GOTOOLCHAIN := auto
MODULE   := github.com/rebasegen/rebasegen

.PHONY: build test race e2e tools fixtures bench fuzz lint demo clean

build: ## the rebasegen binary in bin/
	$(GO) build -ldflags "-X main.version=$(VERSION)" -o bin/rebasegen ./cmd/rebasegen

test: ## unit and golden tests; no cluster (e2e tests skip themselves)
	$(GO) test -timeout 30m ./...

# The race detector slows a test 5 to 10 times. Every package runs whole but the two that put the
# whole pipeline through hundreds of variations of the same scenarios (generator, cmd/rebasegen,
# 45 minutes under it): there, the tests that run every captured scenario through generate, check
# and verify, in every order, reach every worker and lock those variations reach.
RACE_PIPELINE := ^(TestGenerateVerifiesEveryScenario|TestGenerateAndCheckAgree|TestDeterministic)$$
race: ## the unit tests under the race detector: every package whole, but generator and cmd/rebasegen by their tests of every scenario
	$(GO) test -race -timeout 30m $$($(GO) list ./... | grep -vx -e '$(MODULE)/generator' -e '$(MODULE)/cmd/rebasegen')
	$(GO) test -race -timeout 30m -run '$(RACE_PIPELINE)' ./generator ./cmd/rebasegen

tools: ## kapp, ytt, kube-apiserver, kube-controller-manager, etcd, kapp-controller, vendir, built once into .cache/bin
	bash hack/tools.sh

# Only the packages whose tests start a real cluster (those importing internal/testcluster): every
# other test runs the same with or without REBASEGEN_E2E, and make test has run it already.
e2e: tools ## tests against a real kube-apiserver + controller-manager, kapp-controller and the real kapp binary; then the controller scene (hack/comparebench, a module of its own)
	pkgs=$$($(GO) list -f '{{.ImportPath}} {{join .TestImports " "}} {{join .XTestImports " "}}' ./... | awk '/\/internal\/testcluster/ {print $$1}') && test -n "$$pkgs" && \
	REBASEGEN_E2E=1 $(GO) test -count=1 -p 1 -timeout 60m $$pkgs
	cd hack/comparebench && REBASEGEN_E2E=1 $(GO) test -count=1 -timeout 30m ./...

fixtures: tools ## re-capture every scenario under fixtures/ from a fresh real cluster
	bash hack/fixtures.sh

BENCH_SIZES ?= 100,1000,10000
bench: ## fleet-scale benchmarks (fixture mix and Deployment+HPA fleet): per stage time and peak heap, kapp engine with and without the rules, ratios against their targets; then compare beside objectmatcher, DeepDerivative and always writing on the compare corpus
	$(GO) run ./hack/bench -sizes $(BENCH_SIZES)
	cd hack/comparebench && $(GO) run .

FUZZTIME ?= 60s
FUZZ_TARGETS := ./generator/load:FuzzLoad ./generator/pair:FuzzPair ./generator/fielddiff:FuzzDiff \
	./generator/emit:FuzzRulesRoundTrip ./generator/classify:FuzzManagedFields ./generator/load:FuzzExpansion \
	./generator/load:FuzzSplitAsKapp
fuzz: ## run every fuzz target for FUZZTIME each (default 60s); a crasher is saved under the package's testdata/fuzz/ and replays in make test
	@set -e; for t in $(FUZZ_TARGETS); do \
		echo "== $${t##*:} ($${t%%:*}) for $(FUZZTIME)"; \
		$(GO) test -run '^$$' -fuzz "^$${t##*:}$$" -fuzztime $(FUZZTIME) $${t%%:*}; \
	done

lint: ## go vet and staticcheck (pinned as a go tool)
	$(GO) vet ./...
	$(GO) tool staticcheck ./...

demo: build ## explain and generate rules for the captured Deployment + HPA scenario
	bin/rebasegen explain --color never -d fixtures/hpa-replicas/desired.yaml -l fixtures/hpa-replicas/live.yaml -n hpa-replicas
	bin/rebasegen generate -d fixtures/hpa-replicas/desired.yaml -l fixtures/hpa-replicas/live.yaml -n hpa-replicas

clean:
	rm -rf bin
