#!/bin/sh
# Sets up and runs citydrive on a fresh Debian machine: installs the system
# packages the game needs (GLFW's and ALSA's headers, Xvfb; only when missing),
# builds the game, and starts it.
# With no display it runs the same game under Xvfb with the autopilot for a
# while, writes screenshots to ./out/ and prints a summary.
# Extra arguments go to the game (e.g. -seed 7 -autopilot).
set -eu
cd "$(dirname "$0")/.."
. cmd/goenv.sh
. cmd/goamd64.sh
sh cmd/deps.sh
echo "play: building (the first cgo build of GLFW takes about a minute)"
mkdir -p out
go build -o out/citydrive ./cmd/citydrive
if [ -n "${DISPLAY:-}" ] || [ -n "${WAYLAND_DISPLAY:-}" ]; then
	exec ./out/citydrive "$@"
fi
echo "play: no display found: running 30 s of autopilot driving under Xvfb,"
echo "play: screenshots every 10 s into out/, then a summary"
exec xvfb-run -a -s "-screen 0 1280x720x24" ./out/citydrive -autopilot -duration 30s -shots out -shot-every 10s "$@"
