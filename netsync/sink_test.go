package netsync

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"citydrive/netsync/wire"
	"citydrive/voxel"
)

type recordingSink struct{ calls []string }

func (r *recordingSink) ChunkDefault(p voxel.ChunkPos) { r.calls = append(r.calls, line("default", p)) }
func (r *recordingSink) ChunkEdits(p voxel.ChunkPos, e voxel.Overlay) {
	r.calls = append(r.calls, line("edits", p, e))
}
func (r *recordingSink) ChunkDrop(p voxel.ChunkPos) { r.calls = append(r.calls, line("drop", p)) }
func (r *recordingSink) EditBroadcast(p voxel.ChunkPos, i uint16, b voxel.Block) {
	r.calls = append(r.calls, line("edit", p, i, b))
}
func (r *recordingSink) EditResult(s uint32, ok bool, reason string) {
	r.calls = append(r.calls, line("result", s, ok, reason))
}

func TestDrainDispatchesInOrderWithoutBlocking(t *testing.T) {
	c := &Client{in: make(chan wire.Message, 8)}
	p := voxel.ChunkPos{X: 1}
	for _, m := range []wire.Message{
		&wire.ChunkDefaults{Base: p, Pos: []voxel.ChunkPos{p, {X: 2}}}, &wire.EditBroadcast{Pos: p, Index: 3, Block: 4},
		&wire.EditAck{Seq: 9}, &wire.EditReject{Seq: 10, Reason: "no"},
		&wire.ChunkEdits{Pos: p, Edits: []voxel.Edit{{Index: 1, Block: 2}}}, &wire.ChunkDrop{Pos: p},
	} {
		c.in <- m
	}
	var s recordingSink
	assert.Equal(t, 4, c.Drain(&s, 4))
	assert.Equal(t, 2, c.Drain(&s, 10), "returns when empty")
	assert.Equal(t, []string{"default (1,0,0)", "default (2,0,0)", "edit (1,0,0) 3 sand", "result 9 true", "result 10 false no",
		"edits (1,0,0) [{1 dirt}]", "drop (1,0,0)"}, s.calls)
}

func line(a ...any) string { return strings.TrimSpace(fmt.Sprintln(a...)) }

type rateSink struct {
	recordingSink
	hz []uint32
}

func (r *rateSink) TickRate(hz uint32) { r.hz = append(r.hz, hz) }

// A TickRate reaches a sink that takes it, in stream order; a sink that
// does not is not bothered.
func TestDispatchHandsOnTheTickRate(t *testing.T) {
	var s rateSink
	Dispatch(&s, &wire.TickRate{Hz: 20})
	Dispatch(&s, &wire.ChunkDrop{Pos: voxel.ChunkPos{X: 1}})
	Dispatch(&s, &wire.TickRate{Hz: 15})
	assert.Equal(t, []uint32{20, 15}, s.hz)
	assert.Equal(t, []string{"drop (1,0,0)"}, s.calls)
	var plain recordingSink
	Dispatch(&plain, &wire.TickRate{Hz: 15})
	assert.Empty(t, plain.calls)
}
