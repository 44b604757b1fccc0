#!/usr/bin/env bash
# Runs every test layer `make test` covers and ends with one line,
# "N passed, N failed", summed over all of them. Exits non-zero on any
# failure. Every layer runs even when an earlier one fails, so one run shows
# everything that is broken.
#
# Environment: GOTEST_TIMEOUT (default 15m), STATICCHECK (the module@version
# `make lint` runs), FUZZTIME per fuzz target
# (default 3000x, an execution count; 0 skips fuzzing), E2E=0 skips the
# browser end-to-end layer, DESKTOP=0 the desktop smoke test.
set -uo pipefail
cd "$(dirname "$0")/../.."

art=build/test-artifacts
rm -rf "$art/summary"
mkdir -p "$art"
go build -o "$art/testsummary" ./backend/tools/testsummary || exit 1
summary() { "$art/testsummary" -dir "$art/summary" "$@"; }
step() { printf '\n== %s\n' "$*"; }

step "go vet"
summary check "go vet" -- go vet ./...

# gofmt and staticcheck, as `make lint` runs them (go mod tidy stays in
# `make lint`: it downloads the test dependencies of every module).
step "lint: gofmt, staticcheck"
summary check "lint" -- sh -c 'out=$(git ls-files -co --exclude-standard -- "*.go" | xargs gofmt -l); [ -z "$out" ] || { echo "needs gofmt:"; echo "$out"; exit 1; }'
summary check "lint" -- go run "${STATICCHECK:-honnef.co/go/tools/cmd/staticcheck@v0.8.2}" ./...

step "builds: headless binary, desktop (Wails) package"
summary check "go build" -- go build -tags headless -o /dev/null .
summary check "go build" -- go vet -tags webkit2_41,desktop,production .

step "go test"
summary go "go test" -- go test -json -count=1 -timeout "${GOTEST_TIMEOUT:-15m}" ./...

# A count, not a duration: Go 1.26's fuzz coordinator can report "context
# deadline exceeded" as a failure when a duration runs out while a worker is
# mid-input (go.dev/issue/75804, fixed in Go 1.27), which a loaded machine
# hits now and then with nothing found.
fuzztime=${FUZZTIME:-3000x}
if [[ $fuzztime != 0 ]]; then
	# `go test -list` prints a package's matching names, then its ok/FAIL
	# line; pair each Fuzz name with that package. Packages that fail to
	# build are already counted by the go test layer.
	targets=$(go test -list '^Fuzz' ./... 2>/dev/null |
		awk '/^Fuzz/ { names = names " " $1; next }
		     /^(ok|FAIL|\?)[ \t]/ { if (names != "") print $2 names; names = "" }')
	step "fuzz (${fuzztime} per target)"
	if [[ -z $targets ]]; then
		echo "no fuzz targets"
	fi
	while read -r pkg names; do
		[[ -z $pkg ]] && continue
		for name in $names; do
			echo "-- $pkg $name"
			summary go "fuzz" -- go test -json -run '^$' -fuzz "^${name}\$" -fuzztime "$fuzztime" "$pkg"
		done
	done <<<"$targets"
fi

step "frontend: build, svelte-check, vitest"
summary -C frontend check "frontend" -- npm run --silent build
summary -C frontend check "frontend" -- npm run --silent check
summary -C frontend vitest "vitest" "../$art/vitest.json" -- \
	npx vitest run --reporter=default --reporter=json --outputFile.json="../$art/vitest.json"

if [[ ${E2E:-1} != 0 ]]; then
	# DESIGN §7.4: each test file starts build/bin/hearth-headless serve on a
	# random loopback port with a temp data dir and drives Debian's
	# Chromium with playwright-core, one file at a time. node's spec
	# summary goes to the log, its TAP report is what is counted.
	step "browser end-to-end: hearth serve + Chromium (frontend/e2e)"
	rm -rf "$art/e2e"
	mkdir -p "$art/e2e"
	summary check "e2e" -- go build -tags headless -o build/bin/hearth-headless .
	summary -C frontend node "e2e" "../$art/e2e/report.tap" -- \
		node --test --test-concurrency=1 --test-reporter=spec --test-reporter-destination=stdout \
		--test-reporter=tap --test-reporter-destination="../$art/e2e/report.tap" e2e/
fi

if [[ ${DESKTOP:-1} != 0 ]]; then
	# DESIGN §7.5: the real `wails build -tags webkit2_41` binary under Xvfb
	# with --self-test; every check of its report counts. The self-test
	# ends itself (90 s deadline); timeout(1) only guards a window that
	# never starts.
	step "desktop smoke: make build, hearth --self-test under Xvfb"
	rm -rf "$art/desktop"
	mkdir -p "$art/desktop"
	summary check "desktop" -- make --no-print-directory build
	summary checks "desktop" "$art/desktop/selftest.json" -- \
		timeout -k 10 180 xvfb-run -a -s "-screen 0 1280x900x24" \
		build/bin/hearth --self-test "$art/desktop/selftest.json"
fi

summary total
