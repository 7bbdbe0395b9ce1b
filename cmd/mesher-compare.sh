#!/bin/sh
# Side-by-side timing of our greedy mesher against binary-greedy-meshing
# (C++, github.com/cgerikj/binary-greedy-meshing, src/mesher.h) on the same
# seven volumes, with the same unit faces (docs/performance.md, "Mesher").
#
#   sh cmd/mesher-compare.sh PATH/TO/mesher.h [ROUNDS]    # default 8 rounds
#
# mesher.h is MIT-licensed third-party code and is never committed here: it
# is copied into out/mesher-compare/include (ignored) for the build. The
# table in docs/performance.md was measured with the file of commit
# af8c688ed3af63e98f9631c05774f30e1350a021, sha256 below; another file is
# measured too, with a warning.
#
# Each round runs, on one pinned core (taskset -c $MESHER_CPU, default 1),
# the C++ driver (g++ -O3 -march=native) and our mesher built for GOAMD64=v1
# and v3, in a rotating order; each prints the best and median CPU ns per
# meshed block over 15 samples of >= 4 ms per volume. The report takes the
# best over rounds, checks that the unit faces of the common region agree
# per direction and kind, and prints the markdown table. Raw lines are kept
# in out/mesher-compare/results.txt.
set -eu
cd "$(dirname "$0")/.."
. cmd/goenv.sh

header=${1:?usage: sh cmd/mesher-compare.sh PATH/TO/mesher.h [ROUNDS]}
rounds=${2:-8}
cpu=${MESHER_CPU:-1}
checked_commit=af8c688ed3af63e98f9631c05774f30e1350a021
checked_sha256=6b6413af9a93b144ee7982c2326a6884823b542fad427d63e6fed8858e0c6a41

dir=out/mesher-compare
rm -rf "$dir"
mkdir -p "$dir/include" "$dir/volumes"
cp "$header" "$dir/include/mesher.h"
sha=$(sha256sum "$dir/include/mesher.h" | cut -d' ' -f1)
if [ "$sha" = "$checked_sha256" ]; then
	echo "mesher.h: sha256 $sha (bgm commit ${checked_commit%"${checked_commit#????????}"}, as in docs/performance.md)"
else
	echo "mesher.h: sha256 $sha: NOT the file the docs were measured with ($checked_sha256, bgm commit $checked_commit)" >&2
fi

g++ -std=c++17 -O3 -march=native -I "$dir/include" -o "$dir/bgm" voxel/mesh/internal/meshcompare/bgm/driver.cpp
for v in v1 v3; do
	GOAMD64=$v go build -o "$dir/ours-$v" ./voxel/mesh/internal/meshcompare
done
"$dir/ours-v1" -dump "$dir/volumes"

echo "g++ $(g++ -dumpversion), $(go version | cut -d' ' -f3); $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); core $cpu; load $(cut -d' ' -f1-3 /proc/loadavg)"
results=$dir/results.txt
: >"$results"
for r in $(seq 1 "$rounds"); do
	# rotate the order so no side always runs first (or just after another)
	case $((r % 3)) in
	0) order="bgm v1 v3" ;;
	1) order="v3 bgm v1" ;;
	2) order="v1 v3 bgm" ;;
	esac
	for side in $order; do
		if [ "$side" = bgm ]; then
			taskset -c "$cpu" "$dir/bgm" "$dir/volumes" 15 >>"$results"
		else
			taskset -c "$cpu" "$dir/ours-$side" -time -label "ours-$side" -samples 15 >>"$results"
		fi
	done
	echo "round $r/$rounds done (load $(cut -d' ' -f1 /proc/loadavg))" >&2
done
"$dir/ours-v1" -report "$results"
