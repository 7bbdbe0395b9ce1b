package netsync

import (
	"crypto/rand"
	"encoding/binary"
	"slices"
	"sync"

	"citydrive/netsync/wire"
	"citydrive/voxel"
)

// Identity is a player as the world knows it across reconnects and
// servers: a random key, the edit sequence, and the edit requests not yet
// answered. Clients dialled with the same Identity continue its sequence,
// and a new connection sends the unanswered requests again (each once the
// chunk it belongs to has arrived, so the server can admit it); a cluster
// applies a request it already applied only once (key and sequence name
// it). Safe for concurrent use.
type Identity struct {
	key uint64

	mu      sync.Mutex
	seq     uint32
	pending map[uint32]wire.EditRequest
}

// NewIdentity returns a fresh identity with a random key.
func NewIdentity() *Identity {
	var b [8]byte
	_, _ = rand.Read(b[:]) // crypto/rand never fails on supported platforms
	return &Identity{key: binary.LittleEndian.Uint64(b[:]), pending: map[uint32]wire.EditRequest{}}
}

// Key is the player key edit requests carry.
func (id *Identity) Key() uint64 { return id.key }

// Unanswered counts edit requests sent but neither acknowledged nor
// rejected yet.
func (id *Identity) Unanswered() int {
	id.mu.Lock()
	defer id.mu.Unlock()
	return len(id.pending)
}

// request records a new edit request and returns it with its sequence.
func (id *Identity) request(pos voxel.ChunkPos, index uint16, block voxel.Block) wire.EditRequest {
	id.mu.Lock()
	defer id.mu.Unlock()
	id.seq++
	r := wire.EditRequest{Player: id.key, Seq: id.seq, Pos: pos, Index: index, Block: block}
	id.pending[r.Seq] = r
	return r
}

// answered forgets seq (acknowledged or rejected).
func (id *Identity) answered(seq uint32) {
	id.mu.Lock()
	delete(id.pending, seq)
	id.mu.Unlock()
}

// retry collects the unanswered requests, in sequence order, that are
// not waiting already (waiting: the ones a connection will resend once
// their chunk arrives).
func (id *Identity) retry() []wire.EditRequest {
	id.mu.Lock()
	defer id.mu.Unlock()
	out := make([]wire.EditRequest, 0, len(id.pending))
	for _, r := range id.pending {
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b wire.EditRequest) int {
		if wire.SeqNewer(a.Seq, b.Seq) {
			return 1
		}
		if a.Seq == b.Seq {
			return 0
		}
		return -1
	})
	return out
}

// resend is one connection's list of requests to send again, each once its
// chunk has been delivered on this connection. Used by the chunk reader
// goroutine only.
type resend struct {
	wait []wire.EditRequest
}

// delivered returns the waiting requests for chunks in ps (in sequence
// order) and keeps the rest waiting.
func (r *resend) delivered(ps []voxel.ChunkPos, out []wire.EditRequest) []wire.EditRequest {
	if len(r.wait) == 0 {
		return out
	}
	keep := r.wait[:0]
	for _, q := range r.wait {
		if slices.Contains(ps, q.Pos) {
			out = append(out, q)
		} else {
			keep = append(keep, q)
		}
	}
	clear(r.wait[len(keep):])
	r.wait = keep
	return out
}

// NewIdentityKey returns a fresh identity with the given player key:
// tools and tests that must come back as the same player (a replay, a
// banned bot trying again).
func NewIdentityKey(key uint64) *Identity {
	return &Identity{key: key, pending: map[uint32]wire.EditRequest{}}
}
