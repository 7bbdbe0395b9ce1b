#!/bin/sh
# The whole test suite: system packages, vet, gofmt, then every test with the
# race detector, under Xvfb so the GL tests run too.
set -eu
cd "$(dirname "$0")/.."
# Go lives in /usr/local/go on these machines; a fresh shell may not have it
# on PATH.
if ! command -v go >/dev/null 2>&1 && [ -x /usr/local/go/bin/go ]; then
	PATH="/usr/local/go/bin:$PATH"
fi
if ! command -v go >/dev/null 2>&1; then
	echo "go 1.26 or newer is needed (https://go.dev/dl/); it was not found on PATH" >&2
	exit 1
fi
sh cmd/deps.sh
echo "== go vet"
go vet ./...
echo "== gofmt"
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
if [ -n "$unformatted" ]; then
	echo "gofmt would change:"; echo "$unformatted"; exit 1
fi
echo "== go test -race (under Xvfb)"
xvfb-run -a -s "-screen 0 1280x720x24" go test -race -count=1 -timeout 30m ./...
