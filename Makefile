# triage — one Makefile for developers, CI and `sam build` (BuildMethod: makefile).
#
#   make demo    the main job, end to end, on the local AWS
#   make up      the local stack, until Ctrl-C, for triage submit and the operator CLI
#   make test    every test: lint, unit, integration against moto, short fuzz runs
#
# Both check for the tools they need and say how to get a missing one.

SHELL      := /bin/bash
GO         ?= go
FUZZTIME   ?= 60s
SHORTFUZZ  ?= 10000x
BENCHTIME  ?= 1s
export CGO_ENABLED ?= 0

.PHONY: all test unit test-bootstraps lint fuzz fuzz-short fuzz-run bench build demo up invoke tools-go tools-lint tools-local tools-browser clean

all: build

## tools ----------------------------------------------------------------------

tools-go:
	@command -v $(GO) >/dev/null || { echo "make: Go 1.26+ is required: https://go.dev/dl/" >&2; exit 1; }

tools-lint: tools-go
	@command -v cfn-lint >/dev/null || [ ! -f template.yaml ] || { echo "make: cfn-lint is required for template.yaml: pip install cfn-lint" >&2; exit 1; }

# tools-browser installs Debian's chromium when it is missing: the console's
# browser test (cmd/triage/console) drives it headless. In CI a missing
# chromium fails that test rather than skipping it.
tools-browser:
	@command -v chromium >/dev/null || command -v chromium-browser >/dev/null || { \
	  echo "make: installing chromium for the console's browser test (apt-get install -y chromium)"; \
	  sudo=""; [ "$$(id -u)" = 0 ] || sudo="sudo -n"; \
	  DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y chromium >/dev/null 2>&1 || \
	  { $$sudo apt-get update >/dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y chromium >/dev/null; } || \
	  { echo "make: could not install chromium; install it yourself (Debian/Ubuntu: apt-get install -y chromium) — the console's browser test needs it" >&2; exit 1; }; }

## quality --------------------------------------------------------------------

# cfn-lint (one Python process on one CPU, about 6 s) runs while go vet
# compiles; its output is held and printed after vet's, so the two never
# interleave, and either failing fails lint.
lint: tools-lint
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	@cfn=""; if [ -f template.yaml ]; then cfnlog=$$(mktemp); cfn-lint template.yaml >$$cfnlog 2>&1 & cfn=$$!; fi; \
	  echo "$(GO) vet ./..."; $(GO) vet ./...; vet=$$?; \
	  rc=0; if [ -n "$$cfn" ]; then wait $$cfn || rc=$$?; echo "cfn-lint template.yaml"; cat $$cfnlog; rm -f $$cfnlog; fi; \
	  [ $$vet = 0 ] && [ $$rc = 0 ]

# make test's builds are path-independent (-trimpath, added to GOFLAGS):
# without it every package of the module compiles under a key holding its
# directory, so each clean clone (a new directory) compiles the whole module
# again although go's cache holds it, and a tree's lambdatest builds do not
# share the bootstraps' compile. With it, a package compiled once, by any
# checkout of the same sources, is not compiled again. Stack traces name
# files by import path (github.com/triagehq/triage/…) instead of disk path.
TEST_GOFLAGS := $(strip $(filter-out -trimpath,$(GOFLAGS)) -trimpath)
test lint unit test-bootstraps fuzz fuzz-short fuzz-run: export GOFLAGS = $(TEST_GOFLAGS)

# The short soak (dev/soak) runs beside the other packages, in its
# own go test: it mostly waits (its LLM outage, the breakers' windows, the
# backoffs), as do the other local-stack tests (outage, cross-check, the
# walkthrough of `triage-local up`). Beside them, `make test` takes about
# the longer of the two phases, not their sum. Its output is held and
# printed after the other packages', so the two never interleave, and
# either failing fails unit.
#
# The integration tests' local stacks (demo, outage, cross-check, soak) take
# the functions' bootstraps from TEST_BOOTSTRAPS, built once per run by
# test-bootstraps (devstack.PrebuiltEnv), rather than each linking its own.
TEST_BOOTSTRAPS := $(CURDIR)/.build/test
unit: tools-go test-bootstraps
	@soaklog=$$(mktemp); trap 'rm -f $$soaklog' EXIT; \
	  TRIAGE_BOOTSTRAPS=$(TEST_BOOTSTRAPS) $(GO) test -count=1 ./dev/soak/ >$$soaklog 2>&1 & soak=$$!; \
	  echo "$(GO) test -count=1 ./dev/soak/ (beside every other package; its output follows theirs)"; \
	  echo "$(GO) test -count=1 <every package but dev/soak>"; \
	  TRIAGE_BOOTSTRAPS=$(TEST_BOOTSTRAPS) $(GO) test -count=1 $$($(GO) list ./... | grep -v '/dev/soak$$'); rc=$$?; \
	  wait $$soak; src=$$?; cat $$soaklog; \
	  [ $$rc = 0 ] && [ $$src = 0 ]

# test-bootstraps builds every function's bootstrap for this machine into
# TEST_BOOTSTRAPS/<LogicalId>/bootstrap, rules.yaml beside it, as
# `make bootstraps` lays them out: one go build (the links run in
# parallel), each binary renamed into place, so a stack still running an
# older one keeps it.
test-bootstraps: tools-go
	@set -e; mkdir -p $(TEST_BOOTSTRAPS); tmp=$$(mktemp -d $(TEST_BOOTSTRAPS)/.tmp-XXXXXX); trap 'rm -rf $$tmp' EXIT; \
	  pkgs=""; for f in $(FUNCTIONS); do pkgs="$$pkgs ./cmd/$${f#*:}"; done; \
	  echo "bootstraps $(TEST_BOOTSTRAPS)/<LogicalId>/bootstrap <-$$pkgs"; \
	  GOOS=$$($(GO) env GOHOSTOS) GOARCH=$$($(GO) env GOHOSTARCH) CGO_ENABLED=0 $(GO) build $(LAMBDA_BUILD_FLAGS) -o $$tmp/ $$pkgs; \
	  for f in $(FUNCTIONS); do id=$${f%%:*}; pkg=$${f#*:}; mkdir -p $(TEST_BOOTSTRAPS)/$$id; \
	    cp rules.yaml $$tmp/$$pkg.rules.yaml; mv -f $$tmp/$$pkg.rules.yaml $(TEST_BOOTSTRAPS)/$$id/rules.yaml; \
	    mv -f $$tmp/$$pkg $(TEST_BOOTSTRAPS)/$$id/bootstrap; done

# The short fuzz runs go beside the package tests at the lowest CPU
# priority (nice 19): they are CPU-bound, the package phase mostly waits
# (the local-stack tests wait on their pipelines), so they take the CPU the
# tests leave and yield it whenever a test wants it. Their output is held
# and printed after unit's; either failing fails test.
test: lint tools-browser
	@fuzzlog=$$(mktemp); trap 'rm -f $$fuzzlog' EXIT; \
	  nice -n 19 $(MAKE) --no-print-directory fuzz-short >$$fuzzlog 2>&1 & fuzz=$$!; \
	  echo "make fuzz-short (beside unit at nice 19; its output follows unit's)"; \
	  $(MAKE) --no-print-directory unit; rc=$$?; \
	  wait $$fuzz; frc=$$?; cat $$fuzzlog; \
	  [ $$rc = 0 ] && [ $$frc = 0 ]

# fuzz runs every fuzz target for FUZZTIME (default 60s), one at a time:
# `go test -fuzz` takes one target in one package per run. `make test` runs
# each for SHORTFUZZ executions (a count has no wall-clock deadline).
#
# Go 1.26's fuzz coordinator can fail a target with a bare "context deadline
# exceeded" when a duration -fuzztime ends while a worker is mid-call
# (go.dev/issue/75804, fixed in Go 1.27). A real finding always writes its
# input to testdata/fuzz/ and says "Failing input written"; a run that fails
# with the bare deadline and no input is reported as that race and passes.
#
# The targets are found in the test sources (`func FuzzX(f *testing.F)`), not
# by `go test -list` per package: that links every package's test binary once
# more (a minute and a half on two CPUs).
#
# The short runs minimize each new input for at most 1s (FMT) instead of the
# default 60s: minimizing one new-coverage input of FuzzParse can take over
# a minute of `make test`'s time, and a failing input is written either way.
#
# Each package's instrumented test binary is built once (`go test -c -fuzz`)
# and run for each of its targets, as `go test -fuzz` runs it: in the
# package's directory (its testdata/fuzz corpus, where a failing input is
# written) with the go command's fuzz cache (-test.fuzzcachedir). One
# `go test -fuzz` per target would link the same instrumented binary again
# for each of a package's targets (13 links for 8 packages).
fuzz: tools-go
	@$(MAKE) --no-print-directory fuzz-run FT=$(FUZZTIME) FMT=60s

fuzz-short: tools-go
	@$(MAKE) --no-print-directory fuzz-run FT=$(SHORTFUZZ) FMT=1s

fuzz-run:
	@set -e; bins=$$(mktemp -d); trap 'rm -rf $$bins' EXIT; \
	cache=$$($(GO) env GOCACHE)/fuzz; \
	for pkg in $$(git grep -l '^func Fuzz[A-Za-z0-9_]*(f \*testing\.F)' -- '*_test.go' | xargs -n1 dirname | sort -u); do \
	  pkg=./$${pkg#./}; \
	  bin=$$bins/$$(echo $${pkg#./} | tr / -).test; \
	  $(GO) test -c -fuzz . -o $$bin $$pkg; \
	  importpath=$$($(GO) list $$pkg); \
	  for t in $$(git grep -h -o '^func Fuzz[A-Za-z0-9_]*' -- ":(glob)$${pkg#./}/*_test.go" | sed 's/^func //'); do \
	    echo "fuzz $$pkg $$t ($(FT))"; \
	    log=$$(mktemp); \
	    if ! (cd $$pkg && $$bin -test.paniconexit0 -test.run '^$$' -test.fuzz "^$$t$$" -test.fuzztime $(FT) \
	        -test.fuzzminimizetime $(FMT) -test.fuzzcachedir $$cache/$$importpath) >$$log 2>&1; then \
	      if grep -q 'context deadline exceeded' $$log && ! grep -q 'Failing input written' $$log; then \
	        echo "    the -fuzztime shutdown race of go.dev/issue/75804 (no failing input): not a finding"; \
	      else cat $$log; rm -f $$log; exit 1; fi; \
	    fi; \
	    grep 'fuzz: elapsed' $$log | tail -1 | sed 's/^/    /'; rm -f $$log; \
	  done; \
	done

bench: tools-go
	$(GO) test -run '^$$' -bench . -benchmem -benchtime $(BENCHTIME) -count 3 ./...

build: tools-go
	$(GO) build ./...

## demo -----------------------------------------------------------------------

# The pipeline end to end on the local AWS: moto, the stack from template.yaml,
# the real bootstrap binaries behind a local Lambda Runtime API, fakes with a
# seeded fault mix. ITEMS=… SEED=… override the defaults.
ITEMS ?= 50
SEED  ?= 1
demo: tools-go tools-local
	$(GO) run ./dev/local/cmd/triage-local demo --items $(ITEMS) --seed $(SEED)

# up runs the local stack until Ctrl-C — moto, the stack from template.yaml,
# every function's bootstrap behind the local Lambda Runtime API with its SQS
# pollers and schedules, the fakes — and prints the exports (also in
# .build/local.env) that point triage, built into .build/bin, at it.
# UPFLAGS="--llm-base-url https://api.openai.com/v1" uses a real LLM (key in
# $$OPENAI_API_KEY).
UPFLAGS ?=
up: tools-go tools-local
	$(GO) build -o .build/bin/triage ./cmd/triage
	$(GO) run ./dev/local/cmd/triage-local up $(UPFLAGS)

# invoke runs one function once with one event, like `sam local invoke`:
#   make invoke FN=fetch EVENT=events/fetch/normal.json
invoke: tools-go tools-local
	@[ -n "$(FN)" ] && [ -n "$(EVENT)" ] || { echo "usage: make invoke FN=<function> EVENT=events/<function>/<file>.json" >&2; exit 2; }
	$(GO) run ./dev/local/cmd/triage-local invoke --function $(FN) --event $(EVENT) --seed

tools-local:
	@command -v moto_server >/dev/null || { echo 'make: moto_server is required: pip install "moto[server]"' >&2; exit 1; }

clean:
	rm -rf .build

## SAM build targets and local bootstraps -------------------------------------
#
# `sam build` (BuildMethod: makefile, CodeUri: .) runs `make build-<LogicalId>`
# with ARTIFACTS_DIR set; each target leaves the function's `bootstrap` there
# for provided.al2023 on arm64, with the bundled classification rules
# (rules.yaml, docs/design.md "Operator rules") beside it. `make bootstraps` builds the same binaries for
# this machine into .build/<LogicalId>/bootstrap for the local Lambda runtime.
#
# FUNCTIONS lists <LogicalId>:<package under ./functions>; adding a function
# (RedriveFunc:redrive, SchedulerFunc:scheduler, RecoveryFunc:recovery) is one
# word here plus its resource in template.yaml.

FUNCTIONS          := FetchFunc:fetch LLMFunc:llm NotifyFunc:notify RecoveryFunc:recovery RedriveFunc:redrive SchedulerFunc:scheduler
LAMBDA_BUILD_FLAGS := -tags lambda.norpc -trimpath -ldflags="-s -w"
fn_id               = $(word 1,$(subst :, ,$(1)))
fn_pkg              = $(word 2,$(subst :, ,$(1)))

.PHONY: bootstraps sizes $(foreach f,$(FUNCTIONS),build-$(call fn_id,$(f)))

define sam_build_target
build-$(call fn_id,$(1)):
	@[ -n "$$(ARTIFACTS_DIR)" ] || { echo "make: ARTIFACTS_DIR is not set (sam build sets it)" >&2; exit 1; }
	GOOS=linux GOARCH=arm64 CGO_ENABLED=0 $$(GO) build $$(LAMBDA_BUILD_FLAGS) -o $$(ARTIFACTS_DIR)/bootstrap ./cmd/$(call fn_pkg,$(1))
	cp rules.yaml $$(ARTIFACTS_DIR)/rules.yaml
endef
$(foreach f,$(FUNCTIONS),$(eval $(call sam_build_target,$(f))))

# sizes builds every function as Lambda runs it (linux/arm64, stripped) and
# prints its size; docs/performance.md records the figures (target ≤ 15 MB).
sizes: tools-go
	@set -e; dir=$$(mktemp -d); for f in $(FUNCTIONS); do id=$${f%%:*}; pkg=$${f#*:}; \
	  GOOS=linux GOARCH=arm64 CGO_ENABLED=0 $(GO) build $(LAMBDA_BUILD_FLAGS) -o $$dir/$$id ./cmd/$$pkg; \
	  awk -v id=$$id -v b=$$(wc -c < $$dir/$$id) 'BEGIN { printf "%-14s %6.2f MB\n", id, b / 1048576 }'; \
	done; rm -rf $$dir

bootstraps: tools-go
	@set -e; for f in $(FUNCTIONS); do id=$${f%%:*}; pkg=$${f#*:}; \
	  echo "bootstrap .build/$$id/bootstrap <- ./cmd/$$pkg"; \
	  GOOS=$$($(GO) env GOHOSTOS) GOARCH=$$($(GO) env GOHOSTARCH) CGO_ENABLED=0 \
	    $(GO) build $(LAMBDA_BUILD_FLAGS) -o .build/$$id/bootstrap ./cmd/$$pkg; \
	  cp rules.yaml .build/$$id/rules.yaml; \
	done

## simulate (the policy simulator, docs/simulation.md) ------------------------
#
# `make simulate` runs scenarios/standard-mix.json (100,000 items) through
# triage's real stage runner and the baselines in virtual time, then the
# long-outage scenarios (OUTAGES) and the poison-item scenarios (POISON),
# and writes the comparison to docs/simulation.md with its plots in
# docs/img/. SIMFLAGS adds flags, e.g. SIMFLAGS="--items 20000".

SIMFLAGS ?=
OUTAGES  ?= scenarios/outage-1h.json,scenarios/outage-6h.json,scenarios/outage-24h.json,scenarios/outage-3d.json,scenarios/quota-12h.json,scenarios/budget-0900.json
POISON   ?= scenarios/poison-401.json,scenarios/poison-403.json,scenarios/poison-500.json,scenarios/poison-timeout.json,scenarios/poison-quiet.json,scenarios/poison-outage.json

.PHONY: simulate
simulate: tools-go
	$(GO) run ./cmd/triage simulate --scenario scenarios/standard-mix.json --doc docs/simulation.md --img docs/img \
	  --outages $(OUTAGES) --poison $(POISON) $(SIMFLAGS)
## end simulate ----------------------------------------------------------------

## soak (nothing lost under faults, docs/reliability.md) ----------------------
#
# `make soak` runs the local pipeline (moto, the real bootstraps behind the
# local Lambda Runtime API, the fakes) with SOAK_ITEMS items under seeded
# random faults — upstream errors of every class, DynamoDB and SQS errors and
# lost responses between the functions and moto, killed bootstraps,
# duplicate deliveries, a DLQ outage, planted secrets — and ends with the
# conservation check; it exits non-zero on any violation. A short variant
# runs in `make test` (dev/soak TestShortSoak: a fixed seed and a
# fresh one). `make soak-report` reruns 20 seeded runs into
# docs/reliability.md (about an hour: 2–3 minutes a run). `make soak-seeds`
# runs SOAK_SEEDS runs of 300 items on fresh random seeds — seeds nobody
# tuned the code for — each printed, so a failing one can be rerun (`make
# soak SOAK_ITEMS=300 SOAK_SEED=<seed>`); its results go to
# .build/soak/seeds.json (`triage-local soak --from .build/soak/seeds.json
# --report docs/reliability.md` writes their report). 4–6 minutes a run.
# `make soak-large` is the soak at 2,000 items with the same faults (about
# 9 minutes on two CPUs; docs/reliability.md "2,000 items, once").

SOAK_ITEMS ?= 200
SOAK_SEED  ?= 1
SOAK_RUNS  ?= 1
SOAK_SEEDS ?= 20
SOAKFLAGS  ?=

.PHONY: soak soak-large soak-report soak-seeds
soak: tools-go tools-local
	$(GO) run ./dev/local/cmd/triage-local soak --items $(SOAK_ITEMS) --seed $(SOAK_SEED) --runs $(SOAK_RUNS) $(SOAKFLAGS)

soak-large: tools-go tools-local
	$(GO) run ./dev/local/cmd/triage-local soak --items 2000 --seed $(SOAK_SEED) $(SOAKFLAGS)

soak-report: tools-go tools-local
	$(GO) run ./dev/local/cmd/triage-local soak --runs 20 --items 200 --seed 1 --report docs/reliability.md \
	  --notes docs/reliability-findings.md $(SOAKFLAGS)

soak-seeds: tools-go tools-local
	@mkdir -p .build/soak
	$(GO) run ./dev/local/cmd/triage-local soak --fresh --runs $(SOAK_SEEDS) --items 300 --results .build/soak/seeds.json $(SOAKFLAGS)
## end soak --------------------------------------------------------------------

## volume (docs/performance.md, "Volume") ---------------------------------------
#
# `make test-volume` runs the stack `make up` runs and submits VOLUME_ITEMS
# items (10,000) with triage submit's producer: every item must be done or
# dead-lettered within VOLUME_DEADLINE (5 minutes) with no orphan, and
# moto's memory must stay under 1 GiB and flat while idle. It then runs
# VOLUME_COMPARE items (1,000) on moto's own SQS and DynamoDB for comparison,
# prints the figures of both and writes them to docs/performance.md. Not part
# of `make test`: it takes about 10 minutes, most of it the comparison.

VOLUME_ITEMS    ?= 10000
VOLUME_DEADLINE ?= 5m
VOLUME_COMPARE  ?= 1000
VOLUMEFLAGS     ?=

test-volume: tools-go tools-local
	$(GO) run ./dev/local/cmd/triage-local volume --items $(VOLUME_ITEMS) --deadline $(VOLUME_DEADLINE) \
	  --compare-items $(VOLUME_COMPARE) --doc docs/performance.md $(VOLUMEFLAGS)
## end volume ------------------------------------------------------------------
