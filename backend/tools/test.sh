#!/usr/bin/env bash
# Runs every test layer `make test` covers and ends with one line,
# "N passed, N failed", summed over all of them. Exits non-zero on any
# failure. Every layer runs even when an earlier one fails, so one run shows
# everything that is broken.
#
# Environment: GOTEST_TIMEOUT (default 15m), FUZZTIME per fuzz target
# (default 10s; 0 skips fuzzing).
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

step "builds: headless binary, desktop (Wails) package"
summary check "go build" -- go build -tags headless -o /dev/null .
summary check "go build" -- go vet -tags webkit2_41,desktop,production .

step "go test"
summary go "go test" -- go test -json -count=1 -timeout "${GOTEST_TIMEOUT:-15m}" ./...

fuzztime=${FUZZTIME:-10s}
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

summary total
