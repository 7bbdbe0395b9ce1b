#!/bin/sh
# A local citydrive cluster on loopback, built from the modules (nothing is
# downloaded but Go modules): three NATS nodes with JetStream (one cluster,
# the edit bucket replicated three times) and three citydrive servers
# sharing one world through them. Prints how to join; Ctrl+C stops all.
#
# Secured as a cluster across machines would be (docs/scaling.md,
# Security): citydrive cluster-keys writes a CA and the nodes' certificate
# (TLS for the servers' connections and for the routes between nodes,
# which check each other's certificate), the servers' NATS user (an nkey
# seed; only that user may connect, and only to the world's subjects and
# buckets) and the nodes' configurations, into DIR/keys and
# DIR/natsN.conf. Keys are kept across runs; the configurations are
# rewritten.
#
#   sh cmd/cluster.sh            # data in ./out/cluster, seed 1
#   DIR=/tmp/c SEED=7 sh cmd/cluster.sh
#   SERVER_FLAGS="-max-players-per-addr 64" sh cmd/cluster.sh   # more flags for each server
#
# Ports: NATS clients 4222-4224, NATS routes 6222-6224, NATS monitoring
# http://127.0.0.1:8222-8224 (/jsz?streams=true), citydrive (UDP)
# 4701-4703, metrics http://127.0.0.1:9701-9703/metrics. The three servers
# share one identity, so one fingerprint pins all of them. A NATS client
# (the nats CLI, say) needs --tlsca DIR/keys/ca.pem --nkey DIR/keys/server.nk.
set -eu
cd "$(dirname "$0")/.."
. cmd/goenv.sh
DIR=${DIR:-out/cluster}
SEED=${SEED:-1}
mkdir -p "$DIR/bin"
echo "cluster: building nats-server and citydrive"
go build -o "$DIR/bin/nats-server" github.com/nats-io/nats-server/v2
go build -o "$DIR/bin/citydrive" ./cmd/citydrive

pids=""
stop() {
	trap - INT TERM EXIT
	echo
	echo "cluster: stopping"
	for p in $pids; do kill "$p" 2>/dev/null || true; done
	for p in $pids; do wait "$p" 2>/dev/null || true; done
	exit 0
}
trap stop INT TERM EXIT

natsurls=nats://127.0.0.1:4222,nats://127.0.0.1:4223,nats://127.0.0.1:4224
"$DIR/bin/citydrive" cluster-keys -dir "$DIR" -seed "$SEED" -nodes 3 -host 127.0.0.1 \
	-port 4222 -cluster-port 6222 -http-port 8222 >"$DIR/keys.out"
ca=$(sed -n 's/^ca: //p' "$DIR/keys.out")
creds=$(sed -n 's/^creds: //p' "$DIR/keys.out")
for i in 1 2 3; do
	mkdir -p "$DIR/nats$i"
	"$DIR/bin/nats-server" -n "n$i" -c "$DIR/nats$i.conf" >"$DIR/nats$i.log" 2>&1 &
	pids="$pids $!"
done

server() { # server N: one citydrive server, its log in DIR/serverN.log
	mkdir -p "$DIR/server$1"
	"$DIR/bin/citydrive" server -addr 127.0.0.1:$((4700 + $1)) -data "$DIR/server$1" -seed "$SEED" \
		-cluster "$natsurls" -cluster-creds "$creds" -cluster-ca "$ca" -metrics-addr 127.0.0.1:$((9700 + $1)) ${SERVER_FLAGS:-} \
		>"$DIR/server$1.out" 2>"$DIR/server$1.log" &
	pids="$pids $!"
}
waitfor() { # waitfor FILE PATTERN: up to 60 s
	n=0
	until grep -q "$2" "$1" 2>/dev/null; do
		n=$((n + 1))
		if [ $n -gt 600 ]; then
			echo "cluster: $1 never showed '$2':" >&2
			tail -n 20 "${1%.out}.log" >&2 || true
			exit 1
		fi
		sleep 0.1
	done
}
for i in 1 2 3; do waitfor "$DIR/nats$i.log" 'Server is ready'; done
server 1 # creates the identity the others share
waitfor "$DIR/server1.out" '^fingerprint:'
for i in 2 3; do
	mkdir -p "$DIR/server$i"
	cp "$DIR/server1/server-identity.pem" "$DIR/server$i/"
	server $i
done
for i in 2 3; do waitfor "$DIR/server$i.out" '^fingerprint:'; done
fp=$(sed -n 's/^fingerprint: //p' "$DIR/server1.out")
addrs=127.0.0.1:4701,127.0.0.1:4702,127.0.0.1:4703
cat <<MSG
cluster: 3 NATS nodes (nats://127.0.0.1:4222-4224, TLS, nkey user only) and 3 citydrive servers are up (logs in $DIR).
NATS CA $ca, the servers' NATS user $creds.
join (a player moves to the next server when its own is lost):
  $DIR/bin/citydrive client -addr $addrs -server-fingerprint $fp -seed $SEED
load:
  $DIR/bin/citydrive bots -addr $addrs -server-fingerprint $fp -seed $SEED -n 30 -duration 40s -metrics http://127.0.0.1:9701/metrics
Ctrl+C stops everything.
MSG
wait
