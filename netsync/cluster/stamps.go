package cluster

import (
	"errors"
	"fmt"
	"math/bits"
	"slices"

	"citydrive/netsync/wire"
	"citydrive/voxel"
)

// Stamps: per player who edited a chunk lately, which of its requests
// (sequence numbers) the chunk's value holds, so each is applied once
// whichever server commits it and in whatever order they arrive.
//
// One server commits a player's edits of a region in order, but across a
// handover an older edit can reach the owner after a newer one (a forward
// through the old server, the client's resend to the new one). So a stamp
// is not just the newest sequence applied: it lists every request of the
// player applied to the chunk within the window (the newest and the
// stampWindow sequences below it), each with the block it set. A request
// arriving is then
//
//   - in the list: a duplicate, acknowledged, not applied again;
//   - older than a listed request that set the same block: superseded,
//     acknowledged, not applied (the player's own order wins: its newer
//     block stays);
//   - inside the window otherwise: applied now, however late;
//   - below what the stamp knows (older than the window, or older than a
//     stamp restored from a backup or read from the old format, which
//     never said which older requests were applied): refused with
//     errEditTooOld. The server cannot tell whether it was applied, and
//     applying it could put back a block the player has changed since;
//     an error is never a false acknowledgement, the player is told.
//
// The player's sequence counts all its edits, of every chunk, so the
// window is 64 of its edits, not 64 of this chunk's.

// stampWindow is how many sequences below a player's newest the stamp
// tracks (one bit each in the encoded mask).
const stampWindow = 64

// unknownIndex is the block of a request whose block the stamp does not
// know (the newest of an old-format or restored stamp). It is never a
// block index, so it supersedes nothing; requests it could supersede are
// below what the stamp knows, refused anyway.
const unknownIndex = 0xffff

// errEditTooOld: a request older than what its player's stamp knows.
var errEditTooOld = errors.New("edit too old for the server to tell whether it was saved; not applied, make it again")

type stamp struct {
	player uint64
	// known is how many sequences just below the newest this stamp knows
	// the fate of (applied or not), 0..stampWindow.
	known uint8
	// done lists the requests applied within the window, newest first:
	// done[0] is the newest, each later one within stampWindow below it.
	done []doneEdit
}

type doneEdit struct {
	seq   uint32
	index uint16 // the block it set, or unknownIndex
}

// legacyStamp is a stamp that knows only its newest request (the old
// value format, a backup): nothing older is known.
func legacyStamp(player uint64, seq uint32) stamp {
	return stamp{player: player, done: []doneEdit{{seq: seq, index: unknownIndex}}}
}

func (s stamp) newest() uint32 { return s.done[0].seq }

// outcome is what applying a request did.
type outcome uint8

const (
	applied    outcome = iota // stored now
	duplicate                 // stored before
	superseded                // a newer request of the player set the block
)

func (o outcome) String() string {
	return [...]string{"applied", "duplicate", "superseded"}[o]
}

// judge says what request (seq, index) is to s: applied (to be stored
// now), a duplicate, superseded, or refused.
func (s stamp) judge(seq uint32, index uint16) (outcome, error) {
	n := s.newest()
	if wire.SeqNewer(seq, n) {
		return applied, nil
	}
	back := n - seq // 0: the newest itself
	for _, d := range s.done {
		if d.seq == seq {
			return duplicate, nil
		}
	}
	if back > uint32(s.known) {
		return 0, fmt.Errorf("%w (request %d; for this chunk the server knows requests %d to %d)", errEditTooOld, seq, n-uint32(s.known), n)
	}
	for _, d := range s.done {
		if d.index == index && wire.SeqNewer(d.seq, seq) {
			return superseded, nil
		}
	}
	return applied, nil
}

// add returns s with (seq, index) listed as applied; judge said applied.
func (s stamp) add(seq uint32, index uint16) stamp {
	out := stamp{player: s.player, known: s.known, done: make([]doneEdit, 0, len(s.done)+1)}
	n := s.newest()
	if !wire.SeqNewer(seq, n) { // inside the window: listed in order
		i, _ := slices.BinarySearchFunc(s.done, seq, func(d doneEdit, seq uint32) int { return int(int32(seq - d.seq)) })
		out.done = append(append(append(out.done, s.done[:i]...), doneEdit{seq, index}), s.done[i:]...)
		return out
	}
	ahead := seq - n
	out.known = uint8(min(uint32(s.known)+ahead, stampWindow))
	out.done = append(out.done, doneEdit{seq, index})
	for _, d := range s.done {
		if seq-d.seq <= stampWindow {
			out.done = append(out.done, d)
		}
	}
	return out
}

// freshStamp is a player's first request applied to a chunk: nothing of
// its older ones was applied here (unless the stamp was forgotten, see
// maxStamps), so the whole window is known.
func freshStamp(player uint64, seq uint32, index uint16) stamp {
	return stamp{player: player, known: stampWindow, done: []doneEdit{{seq, index}}}
}

// mask is the encoded window: bit i set when newest-1-i is listed.
func (s stamp) mask() uint64 {
	var m uint64
	for _, d := range s.done[1:] {
		m |= 1 << (s.newest() - 1 - d.seq)
	}
	return m
}

// stampSizeMax is the largest encoded stamp: player, newest, known, mask,
// then the block of the newest and of every request in the mask.
const stampSizeMax = stampFixed + (1+stampWindow)*2

// stampFixed is an encoded stamp without its blocks.
const stampFixed = 8 + 4 + 1 + 8

// blocksOf counts the blocks an encoded stamp with this mask carries.
func blocksOf(mask uint64) int { return 1 + bits.OnesCount64(mask) }

// checkIndex is a decoded block of a stamp: a block of the chunk or
// unknownIndex.
func checkIndex(i uint16) bool { return i < voxel.ChunkVolume || i == unknownIndex }
