package cluster

import (
	"encoding/binary"
	"errors"
	"fmt"

	"citydrive/netsync/wire"
	"citydrive/voxel"
)

// chunkValue is one edited chunk as the bucket stores it: its overlay and,
// per player who edited it lately, the newest edit sequence applied, so a
// request retried through another server is applied once.
//
// Encoding: the overlay as a framed wire.ChunkEdits (the chunk stream's
// own encoder and bounded decoder), then a count byte and per stamp the
// player key (u64) and sequence (u32), big-endian.
type chunkValue struct {
	pos     voxel.ChunkPos
	overlay voxel.Overlay
	stamps  []stamp // oldest first, at most maxStamps
}

type stamp struct {
	player uint64
	seq    uint32
}

// maxStamps bounds the players remembered per chunk: enough for everyone
// editing one chunk within a failover.
const maxStamps = 32

const stampSize = 12

var errBadValue = errors.New("cluster: malformed chunk value")

// with returns v with e applied by (player, seq), or dup when that request
// was applied already. player 0 is anonymous (never deduplicated). v is
// left untouched.
func (v chunkValue) with(e voxel.BlockEdit, player uint64, seq uint32) (out chunkValue, dup bool) {
	out = chunkValue{pos: e.Pos, overlay: v.overlay.With(e.Index, e.Block)}
	out.stamps = make([]stamp, 0, min(len(v.stamps)+1, maxStamps))
	for _, s := range v.stamps {
		if s.player == player && player != 0 {
			if !wire.SeqNewer(seq, s.seq) {
				return v, true
			}
			continue // re-added at the end, newest
		}
		out.stamps = append(out.stamps, s)
	}
	if player != 0 {
		if len(out.stamps) == maxStamps {
			out.stamps = append(out.stamps[:0], out.stamps[1:]...)
		}
		out.stamps = append(out.stamps, stamp{player, seq})
	}
	return out, false
}

func (v chunkValue) encode(enc *wire.Encoder) ([]byte, error) {
	b, err := enc.AppendFrame(nil, &wire.ChunkEdits{Pos: v.pos, Edits: v.overlay}, wire.ChunkCap)
	if err != nil {
		return nil, err
	}
	if len(v.stamps) > maxStamps {
		return nil, fmt.Errorf("cluster: %d stamps, at most %d", len(v.stamps), maxStamps)
	}
	b = append(b, byte(len(v.stamps)))
	for _, s := range v.stamps {
		b = binary.BigEndian.AppendUint64(b, s.player)
		b = binary.BigEndian.AppendUint32(b, s.seq)
	}
	return b, nil
}

// decodeValue parses a stored value of the chunk at want, checking every
// length before it is trusted (the bucket is shared with other processes).
func decodeValue(b []byte, want voxel.ChunkPos, lim wire.Limits) (chunkValue, error) {
	if len(b) < 4 {
		return chunkValue{}, fmt.Errorf("%w: %d bytes", errBadValue, len(b))
	}
	n := binary.BigEndian.Uint32(b)
	if n == 0 || n > wire.ChunkCap || uint64(n) > uint64(len(b)-4) {
		return chunkValue{}, fmt.Errorf("%w: overlay of %d bytes in a value of %d", errBadValue, n, len(b))
	}
	m, err := wire.Decode(b[4:4+n], lim)
	if err != nil {
		return chunkValue{}, fmt.Errorf("%w: %w", errBadValue, err)
	}
	ce, ok := m.(*wire.ChunkEdits)
	if !ok {
		return chunkValue{}, fmt.Errorf("%w: holds a %v", errBadValue, m.Kind())
	}
	if ce.Pos != want {
		return chunkValue{}, fmt.Errorf("%w: holds chunk %v under the key of %v", errBadValue, ce.Pos, want)
	}
	rest := b[4+n:]
	if len(rest) < 1 || int(rest[0]) > maxStamps || len(rest) != 1+int(rest[0])*stampSize {
		return chunkValue{}, fmt.Errorf("%w: stamps section of %d bytes", errBadValue, len(rest))
	}
	v := chunkValue{pos: ce.Pos, overlay: ce.Edits, stamps: make([]stamp, rest[0])}
	for i := range v.stamps {
		s := rest[1+i*stampSize:]
		v.stamps[i] = stamp{binary.BigEndian.Uint64(s), binary.BigEndian.Uint32(s[8:])}
	}
	return v, nil
}

// diff lists the blocks whose value differs between old and new (set in
// new): what a player holding old must be told to hold new. Both are
// sorted by index; an index present only in old cannot occur (edits are
// never removed).
func diff(old, new voxel.Overlay, dst []voxel.Edit) []voxel.Edit {
	i := 0
	for _, e := range new {
		for i < len(old) && old[i].Index < e.Index {
			i++
		}
		if i < len(old) && old[i].Index == e.Index && old[i].Block == e.Block {
			continue
		}
		dst = append(dst, e)
	}
	return dst
}
