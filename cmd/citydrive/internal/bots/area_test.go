package bots

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/voxel"
	"citydrive/voxel/plan"
)

// A bot's area is complete once every chunk of its cylinder arrived, each
// counted once; chunks outside it (sent before a move) do not count.
func TestBotAreaCompletes(t *testing.T) {
	o := voxel.ChunkPos{X: 3, Y: -1, Z: -2}
	cyl := plan.Cylinder(o, 2, nil)
	a := newArea(o, 2)
	require.Equal(t, len(cyl), a.size)
	assert.False(t, a.complete(), "nothing yet")
	for _, p := range cyl[:len(cyl)-1] {
		a.got(p)
		a.got(p) // sent twice (a re-subscribe): counted once
	}
	a.got(o.Add(3, 0, 0)) // outside: not part of the area
	a.got(o.Add(0, 2, 0))
	assert.False(t, a.complete(), "one chunk still missing")
	assert.False(t, a.holds(o.Add(3, 0, 0)))
	a.got(cyl[len(cyl)-1])
	assert.True(t, a.complete())
	for _, p := range cyl {
		assert.True(t, a.holds(p), "%v", p)
	}

	a.forget() // a new server sends it all again
	assert.False(t, a.complete())
	assert.False(t, a.holds(o))
}

// A move keeps what is still in the area, forgets what left (the client
// evicts it) and waits for what entered.
func TestBotAreaMoves(t *testing.T) {
	o, east := voxel.ChunkPos{}, voxel.ChunkPos{X: 1}
	a := newArea(o, 1)
	for _, p := range plan.Cylinder(o, 1, nil) {
		a.got(p)
	}
	require.True(t, a.complete())
	a.move(east)
	assert.Equal(t, east, a.centre)
	assert.False(t, a.complete(), "what entered is missing")
	for _, p := range plan.Cylinder(o, 1, nil) {
		assert.Equal(t, plan.InCylinder(east, 1, p), a.holds(p), "%v", p)
	}
	a.got(o.Add(-1, 0, 0)) // left with the move: late, not counted
	var entered []voxel.ChunkPos
	for _, p := range plan.Cylinder(east, 1, nil) {
		if !slices.Contains(plan.Cylinder(o, 1, nil), p) {
			entered = append(entered, p)
		}
	}
	require.NotEmpty(t, entered)
	for i, p := range entered {
		assert.False(t, a.complete(), "%d of %d entered chunks", i, len(entered))
		a.got(p)
	}
	assert.True(t, a.complete())
	assert.False(t, a.holds(o.Add(-1, 0, 0)))
}

// Radius 0 is the centre chunk alone.
func TestBotAreaOfRadiusZero(t *testing.T) {
	a := newArea(voxel.ChunkPos{Y: 2}, 0)
	assert.Equal(t, 1, a.size)
	a.got(voxel.ChunkPos{Y: 3})
	assert.False(t, a.complete())
	a.got(voxel.ChunkPos{Y: 2})
	assert.True(t, a.complete())
}
