# tpsreport — `make help` lists the targets.
SHELL := /bin/bash
GO ?= go
BIN := bin/tpsreport
PKG := ./cmd/tpsreport
GOBIN := $(shell $(GO) env GOPATH)/bin
STATICCHECK_VERSION := v0.8.2
FUZZTIME ?= 10s
# The build names itself (tpsreport --version, manifest.json, the report footer).
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
# Every go command here builds with DuckDB's Arrow interface (duckdb-go's
# duckdb_arrow tag): a large run's concurrency curve is merged in Go and
# streamed to DuckDB as Arrow batches (analyze/curve_merge.go). A build
# without it is correct, and slower on runs of over 20 M spans.
export GOFLAGS := $(strip $(GOFLAGS) -tags=duckdb_arrow)

.PHONY: help build test test-short demo demo-data hostile bench bench-scale calibrate calibrate-history lint update-golden tidy-check e2e fuzz clean

## build: build bin/tpsreport
build:
	$(GO) build -ldflags "-X main.version=$(VERSION)" -o $(BIN) $(PKG)

## demo: build, then run the whole pipeline on the shipped sample logs into ./tpsreport-demo/
demo: build
	./$(BIN) demo --out tpsreport-demo

## hostile: build, then run hostile inputs, concurrent jobs and SIGKILLs against bin/tpsreport, each bounded (60 s, 1 GiB)
hostile: build
	scripts/hostile.sh $(BIN)

## demo-data: regenerate the shipped sample logs in testdata/demo with the simulator
demo-data: build
	./$(BIN) simulate --scenario stall --seed 1 --duration 30m --run baseline --out testdata/demo/baseline
	./$(BIN) simulate --scenario fixed --seed 1 --duration 30m --run candidate --out testdata/demo/candidate
	for r in baseline candidate; do \
		rm -f testdata/demo/$$r/spans.jsonl testdata/demo/$$r/samples.jsonl testdata/demo/$$r/litellm-metrics.jsonl testdata/demo/$$r/sglang-request-metrics.log; \
		gzip -9 -n -f testdata/demo/$$r/litellm.jsonl testdata/demo/$$r/vllm-otel.jsonl testdata/demo/$$r/vllm.log; \
	done

## test: unit, property, differential, golden and CLI script tests
test:
	$(GO) test -count=1 ./...

## test-short: the inner loop (go test -short), one fast case of each slow kind; about a minute once built
test-short:
	$(GO) test -short ./...

## e2e: render the reports in headless Chromium (installs Debian's chromium if missing)
e2e:
	@command -v chromium >/dev/null || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null)
	$(GO) test -count=1 -tags e2e,duckdb_arrow -run E2E ./report/

## fuzz: run every fuzz target for FUZZTIME each (default 10s)
# Go 1.26's fuzzing coordinator can fail a target with "context deadline
# exceeded" as -fuzztime ends, with no failing input (golang/go#75804, fixed
# in Go 1.27): such a run is tried again, up to three times in all. A failing
# input always fails.
fuzz:
	@set -e; for pkg in $$($(GO) list ./...); do \
	  for t in $$($(GO) test -list 'Fuzz.*' $$pkg | grep '^Fuzz' || true); do \
	    echo "fuzz $$pkg $$t"; \
	    for try in 1 2 3; do \
	      if out=$$($(GO) test -run '^$$' -fuzz "^$$t$$" -fuzztime $(FUZZTIME) $$pkg 2>&1); then echo "$$out" | tail -n 2; break; fi; \
	      echo "$$out"; \
	      if [ $$try = 3 ] || ! grep -q 'context deadline exceeded' <<<"$$out" || grep -q 'Failing input written' <<<"$$out"; then exit 1; fi; \
	      echo "fuzz: $$t ended on Go's -fuzztime race (golang/go#75804) with no failing input; running it again"; \
	    done; \
	  done; \
	done

## bench: generate large inputs with the simulator and measure ingest, analyze and report against DuckDB's own readers
bench: build
	$(GO) run ./tools/bench -bin $(BIN) -out bench/out -md BENCHMARKS.md

## bench-scale: 10 M and 100 M spans simulated straight into run datasets under bench/scale, analyzed, the 100 M run reported and compared (most of an hour or more; refuses a step the free disk cannot hold, about 40 GB at 100 M; SCALE_KEEP=1 keeps the 100 M dataset)
bench-scale: build
	$(GO) run ./tools/bench -scale -bin $(BIN) -scale-dir bench/scale -md BENCHMARKS.md

## calibrate: measure how often compare's verdict is wrong: simulated A/A and known-effect pairs, and canaries (compare --canary) with and without a change, through the whole pipeline, the tables printed and written into docs/acceptance.md (CALIBRATE_PAIRS pairs each and CALIBRATE_CANARY seeds of each canary case, default 40: about an hour on 2 cores)
CALIBRATE_PAIRS ?= 40
CALIBRATE_CANARY ?= 40
CALIBRATE_MD ?= docs/acceptance.md
calibrate:
	$(GO) run ./tools/calibrate -pairs $(CALIBRATE_PAIRS) -canary $(CALIBRATE_CANARY) -md "$(CALIBRATE_MD)"

## calibrate-history: how often tpsreport history's change points find a change and only it, over CALIBRATE_HISTORIES (default 20, about 40 minutes on 2 cores) simulated 40-night histories of each kind (flat, a step in capacity, a step in TPOT, a drift) through the whole pipeline; two tables printed: the change points, and the nightly gate (run --gate history) run night by night
CALIBRATE_HISTORIES ?= 20
calibrate-history:
	$(GO) run ./tools/calibrate -history $(CALIBRATE_HISTORIES)

## lint: gofmt, go vet (analyze/ also without the duckdb_arrow tag) and staticcheck
lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) vet -tags= ./analyze/
	@test -x $(GOBIN)/staticcheck || $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)
	$(GOBIN)/staticcheck ./...

## update-golden: regenerate every golden file (then read the diff)
update-golden:
	UPDATE_GOLDEN=1 $(GO) test -count=1 ./...

## tidy-check: go.mod and go.sum are tidy
tidy-check:
	$(GO) mod tidy
	git diff --exit-code go.mod go.sum

## clean: remove build and demo outputs
clean:
	rm -rf bin tpsreport-demo bench/out bench/scale

help:
	@grep -E '^## ' $(MAKEFILE_LIST) | sed 's/^## //' | column -t -s ':'
