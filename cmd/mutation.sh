#!/bin/sh
# Mutation testing of the policy packages with gremlins (pinned v0.6.0).
#
#   sh cmd/mutation.sh                 # the default list below
#   sh cmd/mutation.sh walker slots    # just these packages (paths from the repo root)
#
# Prints one line per package (efficacy, mutant coverage, counts, time) and
# writes every LIVED mutant to out/mutation-lived.txt (full gremlins output per
# package in out/mutation/). Slow (minutes per package) and CPU-heavy, so it
# is not part of CI; see docs/testing.md. Needs only the Go module proxy, once,
# to install gremlins into a cache directory.
#
# Environment: MUTATION_WORKERS (default 1), MUTATION_TIMEOUT_COEFFICIENT
# (default 10), GREMLINS_DIR (where gremlins is installed).
set -eu
cd "$(dirname "$0")/.."
. cmd/goenv.sh

version=v0.6.0
bindir=${GREMLINS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/citydrive/gremlins-$version}
gremlins=$bindir/gremlins
if [ ! -x "$gremlins" ]; then
	echo "installing gremlins $version into $bindir" >&2
	mkdir -p "$bindir"
	GOBIN=$bindir go install "github.com/go-gremlins/gremlins/cmd/gremlins@$version"
fi

# A cached coverage run (the tree unchanged since the last one) takes under
# a second, gremlins derives every mutant's timeout from it, and every mutant
# then reads TIMED OUT: never take test results from the cache.
GOFLAGS="${GOFLAGS:+$GOFLAGS }-count=1"
export GOFLAGS

workers=${MUTATION_WORKERS:-1}
coef=${MUTATION_TIMEOUT_COEFFICIENT:-10}

if [ $# -eq 0 ]; then
	set -- roadgraph walker slots buildworkers \
		voxel/plan voxel/residency voxel/mesh voxel/meshpool voxel/store voxel/authority \
		netsync/wire netsync cmd/citydrive/internal/bots
fi

mkdir -p out/mutation
lived=out/mutation-lived.txt
: >"$lived"

# The server's extracted policies: in netsync only these files are mutated
# (the rest is sockets, goroutines and the client; the tests still run whole).
netsync_policies='admission area budget config dilation pacing plausible refusal union'

# Files to leave unmutated, as one path regexp (relative to the package dir):
# gremlins scans a directory recursively, so sub-packages that are not policy
# (or are measured on their own) are excluded, and in netsync every file that
# is not one of its policies.
excludes() {
	case $1 in
	# world: pure geometry/noise of the world function; traffic: measured
	# as its own package (sh cmd/mutation.sh roadgraph/traffic)
	roadgraph) echo '^(world|traffic)/' ;;
	buildworkers) echo '^citygen/' ;;          # geometry builder
	netsync)
		others=
		for f in netsync/*.go; do
			b=$(basename "$f" .go)
			case $b in *_test) continue ;; esac
			case " $netsync_policies " in *" $b "*) continue ;; esac
			others=$others${others:+|}$b
		done
		printf '%s\n' "^([^/]+/|($others)\\.go\$)" ;;
	*) echo '' ;;
	esac
}

# gremlins v0.6.0 maps its coverage profile to files by deleting every
# "<module>/" from the import path, so a package whose path repeats the module
# name (cmd/citydrive/...) reads as not covered at all. Such packages run in a
# copy of the tree whose module is renamed (imports rewritten to match).
module=$(go list -m)
root=$(pwd)
renamed=
cleanup() { if [ -n "$renamed" ]; then rm -rf "$renamed"; fi; }
trap cleanup EXIT
renamed_tree() {
	if [ -z "$renamed" ]; then
		renamed=$(mktemp -d "${TMPDIR:-/tmp}/citydrive-mutation.XXXXXX")
		tar -cf - --exclude=./.git --exclude=./out . | tar -xf - -C "$renamed"
		(cd "$renamed" && go mod edit -module mutationmodule &&
			find . -name '*.go' -exec sed -i -E \
				"s#^(import )?([[:space:]]*)([[:alnum:]_.]+ )?\"$module/#\1\2\3\"mutationmodule/#" {} +)
	fi
}

printf '%-28s %9s %9s %7s %6s %8s %8s %7s\n' package efficacy coverage killed lived uncov timedout time
for pkg in "$@"; do
	pkg=${pkg#./}
	pkg=${pkg%/}
	if [ ! -d "$pkg" ] || ! ls "$pkg"/*.go >/dev/null 2>&1; then
		printf '%-28s skipped: no such package\n' "$pkg"
		continue
	fi
	log=$root/out/mutation/$(echo "$pkg" | tr / _).txt
	ex=$(excludes "$pkg")
	dir=$root
	case /$pkg/ in */"$module"/*) renamed_tree && dir=$renamed ;; esac
	start=$(date +%s)
	# --test-cpu is deliberately not used: v0.6.0 passes "-cpu N" to go test
	# as one argument, every run then fails and every mutant reads KILLED.
	if [ -n "$ex" ]; then
		(cd "$dir" && nice -n 19 "$gremlins" unleash --workers "$workers" --timeout-coefficient "$coef" \
			-E "$ex" "./$pkg") >"$log" 2>&1 || true
	else
		(cd "$dir" && nice -n 19 "$gremlins" unleash --workers "$workers" --timeout-coefficient "$coef" \
			"./$pkg") >"$log" 2>&1 || true
	fi
	secs=$(($(date +%s) - start))
	eff=$(sed -n 's/^Test efficacy: *//p' "$log")
	cov=$(sed -n 's/^Mutator coverage: *//p' "$log")
	killed=$(sed -n 's/^Killed: *\([0-9]*\),.*/\1/p' "$log")
	nlived=$(sed -n 's/^Killed: .*Lived: *\([0-9]*\),.*/\1/p' "$log")
	uncov=$(sed -n 's/^Killed: .*Not covered: *\([0-9]*\).*/\1/p' "$log")
	tmo=$(sed -n 's/^Timed out: *\([0-9]*\),.*/\1/p' "$log")
	if [ -z "$eff" ]; then
		printf '%-28s failed: see %s\n' "$pkg" "$log"
		continue
	fi
	printf '%-28s %9s %9s %7s %6s %8s %8s %6ss\n' "$pkg" "$eff" "$cov" "$killed" "$nlived" "$uncov" "$tmo" "$secs"
	grep ' LIVED ' "$log" | awk -v p="$pkg" '{ print p "/" $4 " " $2 }' >>"$lived" || true
done
echo "lived mutants: $lived ($(wc -l <"$lived") lines)"
