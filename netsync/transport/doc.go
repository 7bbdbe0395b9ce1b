// Package transport sets up citydrive's QUIC transport: TLS 1.3 with an
// ALPN name that carries the protocol version, the server's self-signed
// identity kept in its data directory, and certificate pinning on the
// client (the SHA-256 fingerprint of the server's leaf certificate).
package transport
