#!/bin/sh
# GPU time per frame, near only and near + far, at 1920x1080 and 3840x2160,
# on the NVIDIA machine through the gpu-bundle (see
# /work/shared/tools/gpu-bundle/README.md: prepare.sh DEST CHECKOUT first).
#
#   BUNDLE=/path/to/DEST sh cmd/gpu-horizon.sh
#
# Each run prints the session summary; the line to read is
# "GPU time per frame (timer queries, N frames): median ... ms, p99 ... ms;
# medians by pass: shadow, depth, main, voxel ground, blit+HUD".
set -eu
B=${BUNDLE:?set BUNDLE to the prepared gpu-bundle folder}
for size in 1920x1080 3840x2160; do
	w=${size%x*}
	h=${size#*x}
	for tier in far near; do
		extra=""
		[ "$tier" = near ] && extra="-far-slots 0"
		# shellcheck disable=SC2086
		OUT=out-$size-$tier W=$w H=$h bash "$B/run.sh" -autopilot -duration 30s -width "$w" -height "$h" -render-scale 1 $extra
		grep -h "GPU time per frame\|CPU frame time" "out-$size-$tier/game.log" || true
	done
done
