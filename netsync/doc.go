// Package netsync is citydrive's multiplayer layer: a QUIC server with a
// fixed tick and a client, speaking the messages of package wire over the
// transport of package transport.
//
// Every player is a client; solo play runs a Server in-process and connects
// to it over loopback. Each connection has a control stream (handshake), a
// chunk stream (subscriptions and edit requests up; chunk deliveries, drops,
// edit broadcasts and acks down, in one order) and QUIC datagrams for car
// snapshots.
//
// The server's tick never blocks on a socket: per-connection goroutines
// decode frames into a bounded inbound channel that the tick drains without
// blocking, outbound frames go through a bounded queue whose overflow cuts
// the client off, and car snapshots use a latest-only slot. The voxel world
// plugs in through the World interface.
package netsync
