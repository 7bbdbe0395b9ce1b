#!/bin/sh
# Scale run of a citydrive cluster on one machine: 3 NATS nodes (JetStream,
# TLS, nkey user: citydrive cluster-keys, as cmd/cluster.sh), 4 citydrive
# servers in cluster mode (region leases; players handed over between
# region owners) and N bots in several processes, spread over the map,
# driving across region borders and editing every ~10 s, for DURATION.
# At the end it prints one table: bots failed, each server's tick p99
# (CPU and wall, from its /metrics over the run), handovers per
# bot-minute, the car gap at a handover (p50/p99/max over every bots
# process's cars that stayed in view, and cars lost; the same watch where
# there is no handover, the baseline, and the old measure, every car seen
# before a switch, beside it), acknowledged edits lost
# (the bucket exported at the end, every acked edit checked by citydrive
# check-edits), edit ack p50/p99, NATS messages per second (/varz).
#
#   N=1000 DURATION=2m sh cmd/cluster-scale.sh        # the defaults
#   N=60 DURATION=30s sh cmd/cluster-scale.sh          # a small run
#   CITYDRIVE=./citydrive NATS=./nats-server sh cmd/cluster-scale.sh
#
# Binaries: CITYDRIVE and NATS name prebuilt ones (a machine without Go);
# where unset and go exists they are built into the temp dir. Build them
# beforehand on a machine with Go and the module cache (as cmd/cluster.sh
# does):
#   go build -o citydrive ./cmd/citydrive
#   go build -o nats-server github.com/nats-io/nats-server/v2
# With 16 cores or more each server is pinned to 2 cores (taskset -c
# 0-1, 2-3, 4-5, 6-7), the NATS nodes to 8-9 and the bots to the rest;
# with fewer, nothing is pinned. State lives in a temp dir (KEEP=1 keeps
# it); everything started is stopped on exit. ARTEFACTS=DIR copies the
# run's reports, logs and each server's /metrics there (not the data),
# and has each bots process explain its car gaps of 100 ms or more
# (-gaps-trace: gaptraceK.jsonl);
# PROFILE=1 has each server write a CPU profile of its run (cpuK.pprof).
#
# Other knobs: SEED (1), BOTS_PROCS (4: bots process k reads server k's
# metrics), SPREAD (300 m between bots' starting points), EDIT_EVERY (10s),
# PORT (base port, 14000: NATS 14222-4, routes 14322-4, monitoring
# 14422-4, citydrive UDP 14701-4, metrics 14801-4).
set -eu
cd "$(dirname "$0")/.."
N=${N:-1000}
DURATION=${DURATION:-2m}
SEED=${SEED:-1}
BOTS_PROCS=${BOTS_PROCS:-4}
SPREAD=${SPREAD:-300}
EDIT_EVERY=${EDIT_EVERY:-10s}
PORT=${PORT:-14000}
SERVERS=4
DIR=$(mktemp -d "${TMPDIR:-/tmp}/cluster-scale.XXXXXX")

pids=""
stop() {
	trap - INT TERM EXIT
	for p in $pids; do kill "$p" 2>/dev/null || true; done
	for p in $pids; do wait "$p" 2>/dev/null || true; done
	if [ -n "${ARTEFACTS:-}" ]; then
		mkdir -p "$ARTEFACTS"
		for f in "$DIR"/*.out "$DIR"/*.log "$DIR"/*.txt "$DIR"/*.md "$DIR"/edits*.jsonl "$DIR"/gaptrace*.jsonl "$DIR"/*.pprof; do
			[ -f "$f" ] && cp "$f" "$ARTEFACTS/"
		done
	fi
	if [ "${KEEP:-}" = 1 ]; then echo "scale: state kept in $DIR"; else rm -rf "$DIR"; fi
}
trap stop EXIT
trap 'exit 130' INT TERM

mkdir -p "$DIR/bin"
if [ -z "${CITYDRIVE:-}" ] || [ -z "${NATS:-}" ]; then
	if ! command -v go >/dev/null 2>&1 && [ -x /usr/local/go/bin/go ]; then
		PATH="/usr/local/go/bin:$PATH"
	fi
	if ! command -v go >/dev/null 2>&1; then
		echo "scale: no go here: give CITYDRIVE=path NATS=path (built elsewhere, see the top of this script)" >&2
		exit 1
	fi
	echo "scale: building citydrive and nats-server"
	[ -n "${CITYDRIVE:-}" ] || { go build -o "$DIR/bin/citydrive" ./cmd/citydrive && CITYDRIVE=$DIR/bin/citydrive; }
	[ -n "${NATS:-}" ] || { go build -o "$DIR/bin/nats-server" github.com/nats-io/nats-server/v2 && NATS=$DIR/bin/nats-server; }
fi
for b in "$CITYDRIVE" "$NATS"; do
	[ -x "$b" ] || { echo "scale: $b is not an executable" >&2; exit 1; }
done

cores=$(nproc)
if [ "$cores" -ge 16 ] && command -v taskset >/dev/null 2>&1; then
	pinned=1
	botcpus=10-$((cores - 1))
else
	pinned=0
fi
run_on() { # run_on CPUS CMD…: pinned when there are cores enough
	cpus=$1
	shift
	# exec: in a background subshell, so $! is the process itself (the trap kills it)
	if [ $pinned = 1 ]; then exec taskset -c "$cpus" "$@"; else exec "$@"; fi
}

"$CITYDRIVE" cluster-keys -dir "$DIR" -seed "$SEED" -nodes 3 -host 127.0.0.1 \
	-port $((PORT + 222)) -cluster-port $((PORT + 322)) -http-port $((PORT + 422)) >"$DIR/keys.out"
ca=$(sed -n 's/^ca: //p' "$DIR/keys.out")
creds=$(sed -n 's/^creds: //p' "$DIR/keys.out")
for i in 1 2 3; do
	mkdir -p "$DIR/nats$i"
	run_on 8-9 "$NATS" -n "n$i" -c "$DIR/nats$i.conf" >"$DIR/nats$i.log" 2>&1 &
	pids="$pids $!"
done
natsurls=nats://127.0.0.1:$((PORT + 222)),nats://127.0.0.1:$((PORT + 223)),nats://127.0.0.1:$((PORT + 224))

waitfor() { # waitfor FILE PATTERN: up to 60 s
	n=0
	until grep -q "$2" "$1" 2>/dev/null; do
		n=$((n + 1))
		if [ $n -gt 600 ]; then
			echo "scale: $1 never showed '$2':" >&2
			tail -n 20 "${1%.out}.log" "$1" >&2 2>/dev/null || true
			exit 1
		fi
		sleep 0.1
	done
}
server() { # server K (1-based): cores 2K-2, 2K-1
	mkdir -p "$DIR/server$1"
	run_on $((2 * $1 - 2))-$((2 * $1 - 1)) "$CITYDRIVE" server -addr 127.0.0.1:$((PORT + 700 + $1)) \
		-data "$DIR/server$1" -seed "$SEED" -cluster "$natsurls" -cluster-creds "$creds" -cluster-ca "$ca" \
		-metrics-addr 127.0.0.1:$((PORT + 800 + $1)) -max-players "$N" -max-players-per-addr "$N" -spawn-radius 0 \
		-max-handshakes-per-addr "$N" ${PROFILE:+-cpuprofile "$DIR/cpu$1.pprof"} >"$DIR/server$1.out" 2>"$DIR/server$1.log" &
	pids="$pids $!"
}
for i in 1 2 3; do waitfor "$DIR/nats$i.log" 'Server is ready'; done
server 1 # its identity is every server's: one fingerprint pins them all
waitfor "$DIR/server1.out" '^fingerprint:'
addrs=127.0.0.1:$((PORT + 701))
for i in $(seq 2 $SERVERS); do
	mkdir -p "$DIR/server$i"
	cp "$DIR/server1/server-identity.pem" "$DIR/server$i/"
	server "$i"
	addrs="$addrs,127.0.0.1:$((PORT + 700 + i))"
done
for i in $(seq 2 $SERVERS); do waitfor "$DIR/server$i.out" '^fingerprint:'; done
fp=$(sed -n 's/^fingerprint: //p' "$DIR/server1.out")

varz() { # the three nodes' in_msgs + out_msgs
	t=0
	for i in 0 1 2; do
		v=$(curl -s "http://127.0.0.1:$((PORT + 422 + i))/varz" | tr ',' '\n' |
			awk '/"in_msgs"|"out_msgs"/ { sub(/.*: */, ""); s += $0 } END { print s + 0 }')
		t=$((t + v))
	done
	echo $t
}
echo "scale: $N bots in $BOTS_PROCS processes on $SERVERS servers for $DURATION ($cores cores, pinned: $pinned)"
msgs0=$(varz)
t0=$(date +%s%3N)
per=$(((N + BOTS_PROCS - 1) / BOTS_PROCS))
bots=""
k=0
first=0
while [ $first -lt "$N" ]; do
	n=$((N - first < per ? N - first : per))
	m=$((k % SERVERS + 1))
	trace="" # with ARTEFACTS, each long car gap explained (gaptraceK.jsonl)
	[ -n "${ARTEFACTS:-}" ] && trace="-gaps-trace $DIR/gaptrace$k.jsonl"
	run_on "${botcpus:-0}" "$CITYDRIVE" bots -addr "$addrs" -server-fingerprint "$fp" -seed "$SEED" \
		-n "$n" -first "$first" -of "$N" -spread "$SPREAD" -duration "$DURATION" -edit-every "$EDIT_EVERY" \
		-metrics-addr 127.0.0.1:$((PORT + 800 + m)) -edits-out "$DIR/edits$k.jsonl" -gaps-out "$DIR/gaps$k.txt" \
		-baseline-gaps-out "$DIR/basegaps$k.txt" $trace \
		>"$DIR/bots$k.out" 2>"$DIR/bots$k.log" &
	bots="$bots $!"
	pids="$pids $!"
	first=$((first + n))
	k=$((k + 1))
done
for p in $bots; do wait "$p" || true; done
t1=$(date +%s%3N)
msgs1=$(varz)
# Each server's metrics at the end (commit times, CAS retries, forwards,
# tick histograms), kept beside the bots' reports for a look afterwards.
for i in $(seq 1 $SERVERS); do
	curl -s "http://127.0.0.1:$((PORT + 800 + i))/metrics" >"$DIR/metrics$i.txt" || true
done

"$CITYDRIVE" export -cluster "$natsurls" -cluster-creds "$creds" -cluster-ca "$ca" -seed "$SEED" \
	-o "$DIR/world.cde" >"$DIR/export.out" 2>&1 || { cat "$DIR/export.out" >&2; exit 1; }
"$CITYDRIVE" check-edits -backup "$DIR/world.cde" -edits "$(ls "$DIR"/edits*.jsonl | paste -sd,)" >"$DIR/check.out" 2>&1 || true

# One table from the bots' reports, the edit records and NATS.
cat "$DIR"/bots*.out >"$DIR/bots.all"
failed=$(sed -n 's/^bots: [0-9]* (\([0-9]*\) failed).*/\1/p' "$DIR/bots.all" | awk '{ s += $1 } END { print s + 0 }')
handovers=$(sed -n 's/^handovers: \([0-9]*\) .*/\1/p' "$DIR/bots.all" | awk '{ s += $1 } END { print s + 0 }')
sum() { sed -n "s/.*$1: \\([0-9]*\\).*/\\1/p" "$DIR/bots.all" | awk '{ s += $1 } END { print s + 0 }'; }
gaplost=$(sum 'lost (in view, not shown within [^)]*)')
gapleft=$(sum 'left the view first')
gapunjudged=$(sum "not judged (other processes' cars)")
gaplate=$(sum "the watcher's own tick late within the gap (not counted)")
baselate=$(sum 'watcher late')
anylost=$(sum 'not seen again')
anygap=$(sed -n 's/.*the old measure): longest gap \([0-9]*\) ms.*/\1/p' "$DIR/bots.all" | sort -n | tail -n 1)
late=$(sed -n 's/^bot ticks: [0-9]*, \([0-9.]*\) % late.*longest between two \([0-9]*\) ms/\1 \2/p' "$DIR/bots.all" |
	awk '{ if ($1 > l) l = $1; if ($2 > m) m = $2 } END { printf "%.2f %% late (the worst process), longest between two %d ms", l, m }')
gapdist() { # gapdist FILE…: p50/p99/max of the gaps written, ms
	cat "$@" 2>/dev/null | sort -n |
		awk '{ v[NR] = $1 } END { if (NR == 0) { print "-"; exit }
			p50 = v[int(NR * 0.5) > 0 ? int(NR * 0.5) : 1]; p99 = v[int(NR * 0.99) > 0 ? int(NR * 0.99) : 1]
			printf "p50 %d ms, p99 %d ms, max %d ms (n=%d)", p50, p99, v[NR], NR }'
}
gaps=$(gapdist "$DIR"/gaps*.txt)
basegaps=$(gapdist "$DIR"/basegaps*.txt)
secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", (b - a) / 1000 }')
lost=$(sed -n 's/^acknowledged edits: \(.*\)/\1/p' "$DIR/check.out")
acks=$(cat "$DIR"/edits*.jsonl | sed -n 's/.*"ms":\([0-9.e+-]*\).*/\1/p' | sort -g |
	awk '{ v[NR] = $1 } END { if (NR == 0) { print "-"; exit }
		p50 = v[int(NR * 0.5) > 0 ? int(NR * 0.5) : 1]; p99 = v[int(NR * 0.99) > 0 ? int(NR * 0.99) : 1]
		printf "p50 %.1f ms, p99 %.1f ms (n=%d)", p50, p99, NR }')
{
	echo
	echo "| figure | value |"
	echo "|---|---|"
	echo "| bots | $N in $k processes, $failed failed, ${secs} s |"
	k=0
	for f in "$DIR"/bots*.out; do
		m=$((k % SERVERS + 1))
		wall=$(sed -n 's/^server tick p50 [0-9.]* ms, p99 \([0-9.]*\) ms over this run.*/\1/p' "$f")
		cpu=$(sed -n 's/^server tick CPU time: p50 [0-9.]* ms, p99 \([0-9.]*\) ms.*/\1/p' "$f")
		if [ $k -lt $SERVERS ]; then echo "| server $m tick p99 (over the run) | CPU ${cpu:--} ms, wall ${wall:--} ms |"; fi
		k=$((k + 1))
	done
	awk -v h="$handovers" -v n="$N" -v f="$failed" -v s="$secs" 'BEGIN {
		bm = (n - f) * s / 60; printf "| handovers | %d, %.2f per bot-minute |\n", h, (bm > 0 ? h / bm : 0) }'
	echo "| car gap at a handover (cars in view throughout) | $gaps; $gaplost lost (in view, not shown within 2 s); $gapleft left the view first; $gapunjudged not judged (another process's); $gaplate left out, the watcher's own tick late within the gap |"
	echo "| the same measure at no handover (the baseline) | $basegaps; $baselate left out, the watcher late |"
	echo "| bot ticks (how far the bots kept up) | $late |"
	echo "| the old measure (every car seen before a switch) | longest gap ${anygap:--} ms, $anylost not seen again within 2 s |"
	echo "| acknowledged edits | ${lost:-not checked (see $DIR/check.out)} |"
	echo "| edit ack latency | $acks |"
	awk -v a="$msgs0" -v b="$msgs1" -v s="$secs" 'BEGIN { printf "| NATS messages/s (3 nodes, in + out) | %.0f |\n", (b - a) / s }'
} | tee "$DIR/table.md"
