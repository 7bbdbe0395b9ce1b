#!/bin/sh
# The whole test suite: system packages, vet, gofmt, then every test with the
# race detector, under Xvfb so the GL tests run too.
set -eu
cd "$(dirname "$0")/.."
. cmd/goenv.sh
sh cmd/deps.sh
echo "== go vet"
go vet ./...
echo "== gofmt"
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
if [ -n "$unformatted" ]; then
	echo "gofmt would change:"; echo "$unformatted"; exit 1
fi
echo "== web map: go generate builds its WebAssembly module (embedded in the binary, not committed)"
go generate ./cmd/citydrive/internal/webmap
echo "map.wasm: $(wc -c < cmd/citydrive/internal/webmap/static/map.wasm) bytes, $(gzip -9 -c cmd/citydrive/internal/webmap/static/map.wasm | wc -c) gzipped (as served)"
echo "== browser game: go generate builds the game's WebAssembly module for /play/ (embedded, not committed)"
go generate ./cmd/citydrive/internal/webgame
echo "game.wasm: $(gzip -dc cmd/citydrive/internal/webgame/static/game.wasm.gz | wc -c) bytes, $(wc -c < cmd/citydrive/internal/webgame/static/game.wasm.gz) gzipped as served (limit 8 MB)"
echo "== static server: without cgo, citydrive links no GL, GLFW or sound (play, join, client and shot need cgo; TestHeadlessBuildLinksNoCgo checks the dependency list)"
CGO_ENABLED=0 go vet ./cmd/citydrive
CGO_ENABLED=0 go build -o out/citydrive-static ./cmd/citydrive
echo "== go test -race (under Xvfb)"
xvfb-run -a -s "-screen 0 1280x720x24" go test -race -count=1 -timeout 30m ./...
echo "== soak: 2 simulated minutes of the real game loop, and the replay of a soak's contact (without the race detector, which makes them minutes long)"
go test -count=1 ./cmd/citydrive/internal/soak
go test -count=1 -run '^TestSweepEndToEnd$' ./cmd/citydrive # built without -race only: its children are the test binary
echo "== sweep: 64 seeds × 1 simulated minute at night and at rush hour, each drive checked against the rules (citydrive sweep -h; a drive from rest may wait out its first red lights: 0.3 km a minute)"
go build -o out/citydrive ./cmd/citydrive
rm -rf out/sweep-failures
out/citydrive sweep -seeds 1000-1063 -hours 0,17.5 -duration 1m -min-km-per-min 0.3 -parallel "$(nproc)" -out out/sweep-failures
