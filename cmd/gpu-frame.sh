#!/bin/sh
# GPU time per pass of a drive's frames with the GPU fed (citydrive
# gpubench: issue #27), at 1920x1080 and 3840x2160, every pass variant and
# the floor (clear + full-screen triangle + blit of the same target) in one
# run per size, on the NVIDIA machine through the gpu-bundle (see
# /work/shared/tools/gpu-bundle/README.md: prepare.sh DEST CHECKOUT first).
#
#   BUNDLE=/path/to/DEST sh cmd/gpu-frame.sh [more gpubench flags]
#
# Settings (environment): VARIANTS (';'-separated, default below: the full
# profile, each candidate word on it, their mix, and the pre-pass), FRAMES (measured frames of the
# drive, default 240), ROUNDS (draws of each variant per frame, default 2),
# SIZES (default "1920x1080 3840x2160").
# Each size prints gpubench's table (medians in ms; ratio = total / floor)
# and keeps it with the JSON in out-frame-WxH/ (game.log, gpubench.json,
# and dmon.txt: nvidia-smi's clocks during the run; DMON=0 leaves it out).
set -eu
B=${BUNDLE:?set BUNDLE to the prepared gpu-bundle folder}
VARIANTS=${VARIANTS:-"prepass=off,farsort,lean;prepass=off,farsort,lean,pack;prepass=off,farsort,lean,fshadow;prepass=off,farsort,lean,shadowskip;prepass=off,farsort,lean,pack,shadowskip;prepass=off,farsort,lean,pack,shadowskip,shadow1;prepass=on,farsort,lean;base"}
FRAMES=${FRAMES:-240}
ROUNDS=${ROUNDS:-2}
SIZES=${SIZES:-"1920x1080 3840x2160"}
export DMON=${DMON:-1}
for size in $SIZES; do
	w=${size%x*}
	h=${size#*x}
	out=$(pwd)/out-frame-$size
	mkdir -p "$out"
	OUT=$out W=$w H=$h bash "$B/run.sh" gpubench -width "$w" -height "$h" -render-scale 1 \
		-after 20s -frames "$FRAMES" -rounds "$ROUNDS" -warmup 5s -variants "$VARIANTS" \
		-json-out "$out/gpubench.json" "$@"
done
for size in $SIZES; do
	echo "== $size"
	sed -n '/^gpubench: /,$p' "out-frame-$size/game.log"
done
