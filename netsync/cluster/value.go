package cluster

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"slices"

	"citydrive/netsync/wire"
	"citydrive/voxel"
)

// chunkValue is one edited chunk as the bucket stores it: its overlay and,
// per player who edited it lately, which of its requests it holds (a
// stamp, stamps.go), so a request retried through another server, or
// arriving late, is applied once.
//
// Encoding: the overlay as a framed wire.ChunkEdits (the chunk stream's
// own encoder and bounded decoder), then a count byte and the stamps,
// big-endian. The count byte has stampsV2 set (maxStamps < 128 leaves the
// bit free); per stamp: player (u64), newest sequence (u32), known (u8),
// mask (u64: bit i, sequence newest-1-i was applied), then the block
// index (u16) of the newest and of each request in the mask, newest
// first. Without the flag it is the first format, still read (buckets
// and backups written before): per stamp player and newest sequence only,
// read as stamps knowing nothing older (legacyStamp).
//
// Worst case: the overlay frame (every block of the chunk edited:
// 3 bytes each, about 96 KiB, under wire.ChunkCap) plus
// 1 + maxStamps·stampSizeMax = 4,833 bytes of stamps.
type chunkValue struct {
	pos     voxel.ChunkPos
	overlay voxel.Overlay
	stamps  []stamp // least recently applied first, at most maxStamps
}

// maxStamps bounds the players remembered per chunk: enough for everyone
// editing one chunk within a failover.
const maxStamps = 32

// stampsV2 flags the count byte of the stamp format with windows.
const stampsV2 = 0x80

// legacyStampSize is a stamp of the first format: player, sequence.
const legacyStampSize = 12

var errBadValue = errors.New("cluster: malformed chunk value")

// with returns v with e applied as request (player, seq), and what that
// did: applied, or (v unchanged) a duplicate or superseded, both already
// in the value; or an error (errEditTooOld) for a request the stamp
// cannot place, not applied. player 0 is anonymous (never deduplicated).
// v is left untouched.
func (v chunkValue) with(e voxel.BlockEdit, player uint64, seq uint32) (chunkValue, outcome, error) {
	out := chunkValue{pos: e.Pos, overlay: v.overlay.With(e.Index, e.Block)}
	if player == 0 {
		out.stamps = slices.Clone(v.stamps)
		return out, applied, nil
	}
	st := freshStamp(player, seq, e.Index)
	out.stamps = make([]stamp, 0, min(len(v.stamps)+1, maxStamps))
	for _, s := range v.stamps {
		if s.player != player {
			out.stamps = append(out.stamps, s)
			continue
		}
		o, err := s.judge(seq, e.Index)
		if err != nil || o != applied {
			return v, o, err
		}
		st = s.add(seq, e.Index) // re-added at the end, most recent
	}
	if len(out.stamps) == maxStamps {
		out.stamps = append(out.stamps[:0], out.stamps[1:]...)
	}
	out.stamps = append(out.stamps, st)
	return out, applied, nil
}

func (v chunkValue) encode(enc *wire.Encoder) ([]byte, error) {
	b, err := enc.AppendFrame(nil, &wire.ChunkEdits{Pos: v.pos, Edits: v.overlay}, wire.ChunkCap)
	if err != nil {
		return nil, err
	}
	if len(v.stamps) > maxStamps {
		return nil, fmt.Errorf("cluster: %d stamps, at most %d", len(v.stamps), maxStamps)
	}
	b = append(b, stampsV2|byte(len(v.stamps)))
	for _, s := range v.stamps {
		b = binary.BigEndian.AppendUint64(b, s.player)
		b = binary.BigEndian.AppendUint32(b, s.newest())
		b = append(b, s.known)
		b = binary.BigEndian.AppendUint64(b, s.mask())
		for _, d := range s.done {
			b = binary.BigEndian.AppendUint16(b, d.index)
		}
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
	if len(rest) < 1 {
		return chunkValue{}, fmt.Errorf("%w: no stamps section", errBadValue)
	}
	v := chunkValue{pos: ce.Pos, overlay: ce.Edits}
	if rest[0]&stampsV2 != 0 {
		v.stamps, err = decodeStamps(rest[1:], int(rest[0]&^stampsV2))
	} else {
		v.stamps, err = decodeLegacyStamps(rest[1:], int(rest[0]))
	}
	if err != nil {
		return chunkValue{}, err
	}
	for i, s := range v.stamps {
		if s.player == 0 {
			return chunkValue{}, fmt.Errorf("%w: a stamp of player 0 (anonymous edits have none)", errBadValue)
		}
		for _, o := range v.stamps[:i] {
			if o.player == s.player {
				return chunkValue{}, fmt.Errorf("%w: two stamps of player %d", errBadValue, s.player)
			}
		}
	}
	return v, nil
}

// decodeLegacyStamps reads n stamps of the first format, all of b.
func decodeLegacyStamps(b []byte, n int) ([]stamp, error) {
	if n > maxStamps || len(b) != n*legacyStampSize {
		return nil, fmt.Errorf("%w: %d old-format stamps in %d bytes", errBadValue, n, len(b))
	}
	st := make([]stamp, n)
	for i := range st {
		s := b[i*legacyStampSize:]
		st[i] = legacyStamp(binary.BigEndian.Uint64(s), binary.BigEndian.Uint32(s[8:]))
	}
	return st, nil
}

// decodeStamps reads n stamps with windows, all of b.
func decodeStamps(b []byte, n int) ([]stamp, error) {
	if n > maxStamps || len(b) > n*stampSizeMax {
		return nil, fmt.Errorf("%w: %d stamps in %d bytes", errBadValue, n, len(b))
	}
	st := make([]stamp, n)
	for i := range st {
		if len(b) < stampFixed {
			return nil, fmt.Errorf("%w: stamp %d cut short", errBadValue, i)
		}
		s := stamp{player: binary.BigEndian.Uint64(b), known: b[12]}
		newest := binary.BigEndian.Uint32(b[8:])
		mask := binary.BigEndian.Uint64(b[13:])
		b = b[stampFixed:]
		// Only sequences whose fate the stamp knows can be listed.
		if s.known > stampWindow || mask>>s.known != 0 {
			return nil, fmt.Errorf("%w: stamp %d knows %d sequences, mask %#x", errBadValue, i, s.known, mask)
		}
		nb := blocksOf(mask)
		if len(b) < 2*nb {
			return nil, fmt.Errorf("%w: stamp %d cut short", errBadValue, i)
		}
		s.done = make([]doneEdit, 0, nb)
		seq := newest
		for j := range nb {
			if j > 0 { // the next bit set, from the newest down
				k := bits.TrailingZeros64(mask)
				mask &= mask - 1
				seq = newest - 1 - uint32(k)
			}
			idx := binary.BigEndian.Uint16(b[2*j:])
			if !checkIndex(idx) {
				return nil, fmt.Errorf("%w: stamp %d holds block %d", errBadValue, i, idx)
			}
			s.done = append(s.done, doneEdit{seq: seq, index: idx})
		}
		b = b[2*nb:]
		st[i] = s
	}
	if len(b) != 0 {
		return nil, fmt.Errorf("%w: %d bytes after the stamps", errBadValue, len(b))
	}
	return st, nil
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
