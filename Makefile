# Hearth — `make run` and `make test` are all a newcomer needs; both install
# what is missing first (make deps).

SHELL := /bin/bash
.SHELLFLAGS := -o pipefail -c
.DEFAULT_GOAL := help

APT_PACKAGES  := libgtk-3-dev libwebkit2gtk-4.1-dev xvfb chromium imagemagick
WAILS_VERSION := v2.12.0
STATICCHECK   := honnef.co/go/tools/cmd/staticcheck@v0.8.2
WAILS         := $(shell go env GOPATH)/bin/wails
VERSION       := $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS       := -X main.version=$(VERSION)

# Overridable: make serve ADDR=0.0.0.0:8000 PASSWORD_FILE=~/.hearth-pw DATA_DIR=/srv/hearth
ADDR          ?= 127.0.0.1:8000
DATA_DIR      ?=
PASSWORD_FILE ?=
BENCHTIME     ?= 500ms
BENCHCOUNT    ?= 5
BENCH_DESKTOP_RUNS ?= 5
BENCH_DESKTOP_EXT_RUNS ?= 3
BENCH_DESKTOP_PAGE_RUNS ?= 9
BENCH_SERVE_RUNS ?= 3
SOAK_KILLS    ?= 200
SOAK_FLAGS    ?=

serve_flags = --addr $(ADDR) $(if $(DATA_DIR),--data-dir $(DATA_DIR)) $(if $(PASSWORD_FILE),--password-file $(PASSWORD_FILE))

.PHONY: help deps deps-node frontend build build-headless run serve test e2e selftest lint bench soak clean

help: ## list the targets
	@grep -E '^[a-z0-9-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{ printf "  make %-15s %s\n", $$1, $$2 }'

deps: deps-node ## install what is missing: Debian packages, the Wails CLI, frontend packages
	@missing=$$(for p in $(APT_PACKAGES); do \
		dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		sudo=; [ "$$(id -u)" -eq 0 ] || sudo=sudo; \
		echo "Installing Debian packages:" $$missing; \
		$$sudo apt-get update && \
		DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y --no-install-recommends $$missing; \
	fi
	@if ! "$(WAILS)" version 2>/dev/null | grep -q '^$(WAILS_VERSION)$$'; then \
		echo "Installing the Wails CLI $(WAILS_VERSION)"; \
		go install github.com/wailsapp/wails/v2/cmd/wails@$(WAILS_VERSION); \
	fi

deps-node: ## install frontend packages (npm ci) when node_modules is missing or stale
	@if [ ! -d frontend/node_modules ] || [ frontend/package-lock.json -nt frontend/node_modules ]; then \
		echo "Installing frontend packages (npm ci)"; \
		(cd frontend && npm ci --no-audit --no-fund) && touch frontend/node_modules; \
	fi

frontend: deps-node ## build the frontend into frontend/dist
	cd frontend && npm run --silent build

build: deps frontend ## build the desktop app: build/bin/hearth (web inspector enabled)
	$(WAILS) build -tags webkit2_41 -devtools -s -m -nosyncgomod -skipbindings -ldflags "$(LDFLAGS)"
	@echo "Built build/bin/hearth"

build-headless: deps-node frontend ## build build/bin/hearth-headless: `serve` only, no GTK/WebKit needed
	go build -tags headless -ldflags "$(LDFLAGS)" -o build/bin/hearth-headless .
	@echo "Built build/bin/hearth-headless"

run: deps ## open the desktop window, or serve to a browser when there is no display
	@if [ -z "$$DISPLAY" ] && [ -z "$$WAYLAND_DISPLAY" ]; then \
		echo "This machine is headless (\$$DISPLAY and \$$WAYLAND_DISPLAY are empty): running 'hearth serve' instead; open the address below in a browser."; \
		$(MAKE) --no-print-directory serve; \
	else \
		$(MAKE) --no-print-directory build && \
		./build/bin/hearth $(if $(DATA_DIR),--data-dir $(DATA_DIR)); \
	fi

serve: build-headless ## serve the UI to a browser (ADDR, DATA_DIR, PASSWORD_FILE)
	./build/bin/hearth-headless serve $(serve_flags)

test: deps ## every layer: vet, lint, Go tests, fuzzing, frontend checks, Vitest, browser e2e, desktop smoke; ends with "N passed, N failed"
	STATICCHECK=$(STATICCHECK) ./backend/tools/test.sh

e2e: build-headless ## browser end-to-end tests only (hearth serve + Chromium); screenshots in build/test-artifacts/e2e
	cd frontend && npm run --silent e2e

selftest: build ## desktop smoke test only: hearth --self-test under Xvfb; report and screenshot in build/test-artifacts/desktop
	xvfb-run -a -s "-screen 0 1280x900x24" ./build/bin/hearth --self-test build/test-artifacts/desktop/selftest.json

lint: deps-node ## go mod tidy, gofmt, go vet (all build tags), staticcheck, svelte-check; reports every problem
	@fail=0; \
	echo "== go mod tidy"; go mod tidy -diff || { echo "go.mod/go.sum are not tidy: run 'go mod tidy' and commit the result"; fail=1; }; \
	echo "== gofmt"; unformatted=$$(git ls-files -co --exclude-standard -- '*.go' | xargs gofmt -l); \
	if [ -n "$$unformatted" ]; then echo "needs gofmt:"; echo "$$unformatted"; fail=1; fi; \
	echo "== go vet"; go vet ./... || fail=1; \
	go vet -tags headless . || fail=1; \
	go vet -tags webkit2_41,desktop,production . || fail=1; \
	echo "== staticcheck"; go run $(STATICCHECK) ./... || fail=1; \
	echo "== svelte-check"; (cd frontend && npm run --silent check) || fail=1; \
	exit $$fail

bench: build-headless $(if $(filter 0,$(DESKTOP)),,build) ## Go benchmarks, hearth serve's import and memory, the desktop self-test's chat timings (BENCHTIME, BENCHCOUNT, BENCH_SERVE_RUNS, BENCH_DESKTOP_RUNS, BENCH_DESKTOP_EXT_RUNS, BENCH_DESKTOP_PAGE_RUNS; DESKTOP=0 skips the desktop); table + build/bench/results.json
	{ go test -p 1 -run '^$$' -bench . -benchtime=$(BENCHTIME) -count $(BENCHCOUNT) -timeout 90m ./backend/...; \
	  go run ./backend/tools/servebench -runs $(BENCH_SERVE_RUNS); \
	  if [ "$(DESKTOP)" != 0 ]; then go run ./backend/tools/desktopbench -runs $(BENCH_DESKTOP_RUNS) -ext-runs $(BENCH_DESKTOP_EXT_RUNS) -page-runs $(BENCH_DESKTOP_PAGE_RUNS); fi; } \
		| go run ./backend/tools/benchreport -o build/bench/results.json

soak: ## crash soak, not part of test: SOAK_KILLS (200) SIGKILLs of hearth serve mid-write, then 0 lost, 0 half-imported, integrity_check ok (SOAK_FLAGS: more flags, e.g. -dir, -seed)
	go build -tags headless -ldflags "$(LDFLAGS)" -o build/bin/hearth-soak .
	go run ./backend/tools/soak -bin build/bin/hearth-soak -kills $(SOAK_KILLS) $(SOAK_FLAGS)

clean: ## remove build outputs
	rm -rf build/bin build/bench build/test-artifacts
	cd frontend && node scripts/clean-dist.mjs
