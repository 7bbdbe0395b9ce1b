#!/bin/sh
# Fault drill on the local cluster (cmd/cluster.sh): bots drive and edit
# across the three servers while, in turn, one citydrive server and one
# NATS node are killed with SIGKILL, and the node is started again. Prints
# the bots' report (failovers, edits acked and rejected, ack latency), how
# long after the kill the last bot was back on a server, and whether the
# restarted node caught up with the bucket.
#
#   sh cmd/cluster-drill.sh            # 15 bots, 45 s; N=30 T=60s to change
set -eu
cd "$(dirname "$0")/.."
DIR=${DIR:-out/drill}
N=${N:-15}
T=${T:-45s}
rm -rf "$DIR"
mkdir -p "$DIR"
DIR="$DIR" SEED=3 sh cmd/cluster.sh >"$DIR/cluster.out" 2>&1 &
cluster=$!
n=0
until grep -q 'Ctrl+C stops' "$DIR/cluster.out"; do
	n=$((n + 1))
	if [ $n -gt 3000 ] || ! kill -0 $cluster 2>/dev/null; then
		cat "$DIR/cluster.out" >&2
		exit 1
	fi
	sleep 0.1
done
fp=$(sed -n 's/^fingerprint: //p' "$DIR/server1.out")
addrs=127.0.0.1:4701,127.0.0.1:4702,127.0.0.1:4703
ms() { date +%s%3N; }
"$DIR/bin/citydrive" bots -addr $addrs -server-fingerprint "$fp" -seed 3 -n "$N" -duration "$T" \
	-edit-every 1s -metrics http://127.0.0.1:9701/metrics >"$DIR/bots.out" 2>"$DIR/bots.log" &
bots=$!
sleep 10
srv=$(pgrep -f "citydrive server -addr 127.0.0.1:4702")
killed=$(ms)
kill -9 "$srv"
echo "drill: SIGKILL citydrive server 2 (pid $srv)"
sleep 8
node=$(pgrep -f "nats-server -n n2 ")
kill -9 "$node"
echo "drill: SIGKILL NATS node n2 (pid $node)"
sleep 8
"$DIR/bin/nats-server" -n n2 -c "$DIR/nats2.conf" >"$DIR/nats2-again.log" 2>&1 & # cmd/cluster.sh's config
again=$!
echo "drill: NATS node n2 started again (pid $again)"
wait $bots || true
cat "$DIR/bots.out"
back=$(sed -n 's/.*(unix ms \([0-9]*\)).*/\1/p' "$DIR/bots.out")
if [ -n "$back" ]; then
	echo "drill: last bot back on a server $((back - killed)) ms after the kill"
fi
# the edit bucket's stream (the access rules' has its own, listed in any order)
seq() { curl -s "http://127.0.0.1:$1/jsz?streams=true" | tr ',' '\n' |
	awk '/"name": *"KV_citydrive-3"/ { f = 1 } f && /"last_seq"/ { sub(/.*"last_seq": */, ""); print $0 + 0; exit }'; }
echo "drill: bucket stream last sequence: n1 $(seq 8222), n2 (restarted) $(seq 8223), n3 $(seq 8224)"
kill "$again" 2>/dev/null || true
wait "$again" 2>/dev/null || true
kill $cluster 2>/dev/null || true
wait $cluster 2>/dev/null || true
