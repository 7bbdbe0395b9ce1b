package ground

import (
	"math"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"citydrive/roadgraph/world"
	"citydrive/voxel"
	"citydrive/voxel/mesh"
	"citydrive/voxel/plan"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// sink records what the renderer would hold.
type sink struct{ meshes map[voxel.ChunkPos]*mesh.Mesh }

func (s *sink) Insert(m *mesh.Mesh)     { s.meshes[m.Pos] = m }
func (s *sink) Remove(p voxel.ChunkPos) { delete(s.meshes, p) }

const seed = 412

// ground finds a land position and its height.
func ground() (world.Vec2, float64) {
	w := world.New(seed)
	for x := 0.0; ; x += 37 {
		if h := w.Height(x, 0); h > 2 {
			return world.Vec2{X: x}, h
		}
	}
}

func run(t *testing.T, c *Client, pos world.Vec2, y float64, frames int) {
	t.Helper()
	for i := 0; i < frames; i++ {
		c.Update(pos, y)
		synctest.Wait()
		if c.Ready() && c.pool.Pending() == 0 && c.pool.InFlight() == 0 && i > 3 {
			return
		}
	}
}

func TestLocalModeStreamsAndDrops(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &sink{meshes: map[voxel.ChunkPos]*mesh.Mesh{}}
		c := New(Options{Seed: seed, Radius: 2, Workers: 2, Sink: s})
		defer c.Close()
		pos, y := ground()
		run(t, c, pos, y, 200)
		require.True(t, c.Ready())
		centre := voxel.ChunkAt(pos.X, y, pos.Z)
		want := len(plan.Cylinder(centre, 2, nil))
		assert.Equal(t, want, c.Stats().Resident)
		assert.NotEmpty(t, s.meshes, "the ground is meshed")
		for p := range s.meshes {
			assert.True(t, plan.InCylinder(centre, 2, p))
		}
		// Drive 500 m: everything old leaves, new ground arrives.
		far := pos.Add(world.Vec2{X: 500})
		run(t, c, far, world.New(seed).Height(far.X, far.Z), 200)
		fc := voxel.ChunkAt(far.X, world.New(seed).Height(far.X, far.Z), far.Z)
		for p := range s.meshes {
			assert.True(t, plan.InCylinder(fc, 2, p), "%v left the radius and was dropped", p)
		}
	})
}

func TestServerModeGeneratesOnlyAnnouncedAndAppliesEdits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &sink{meshes: map[voxel.ChunkPos]*mesh.Mesh{}}
		var subs []voxel.ChunkPos
		c := New(Options{Seed: seed, Radius: 2, Workers: 1, Sink: s, Subscribe: func(p voxel.ChunkPos, r int32) int32 {
			subs = append(subs, p)
			return r
		}})
		defer c.Close()
		pos, y := ground()
		centre := voxel.ChunkAt(pos.X, y, pos.Z)
		run(t, c, pos, y, 5)
		require.Equal(t, []voxel.ChunkPos{centre}, subs, "subscribed once for the centre")
		assert.Zero(t, c.Stats().Resident, "nothing announced, nothing generated")
		// The server announces the centre chunk with an edit: a stone block
		// high in the air at local (1, 31, 1).
		idx := uint16(voxel.Index(1, 31, 1))
		c.ChunkEdits(centre, voxel.Overlay{{Index: idx, Block: voxel.Stone}})
		run(t, c, pos, y, 50)
		ch, ok := c.res.Chunk(centre)
		require.True(t, ok)
		assert.Equal(t, voxel.Stone, ch.AtIndex(int(idx)), "edits applied right after generation")
		assert.Equal(t, 1, c.Stats().Resident)
		// A broadcast edit changes the resident chunk and re-meshes it.
		before := s.meshes[centre]
		c.EditBroadcast(centre, idx, voxel.Air)
		run(t, c, pos, y, 50)
		ch, _ = c.res.Chunk(centre)
		assert.Equal(t, voxel.Air, ch.AtIndex(int(idx)))
		assert.NotSame(t, before, s.meshes[centre], "re-meshed")
		// A drop from the server removes it.
		c.ChunkDrop(centre)
		run(t, c, pos, y, 50)
		assert.Zero(t, c.Stats().Resident)
		assert.NotContains(t, s.meshes, centre)
	})
}

// TestServedRadiusEvictsWithoutDrop: a server serving a smaller radius than
// asked sends no ChunkDrop for chunks that leave its cylinder; the client
// evicts them itself at the served radius.
func TestServedRadiusEvictsWithoutDrop(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &sink{meshes: map[voxel.ChunkPos]*mesh.Mesh{}}
		c := New(Options{Seed: seed, Radius: 3, Workers: 1, Sink: s,
			Subscribe: func(voxel.ChunkPos, int32) int32 { return 1 }})
		defer c.Close()
		pos, y := ground()
		centre := voxel.ChunkAt(pos.X, y, pos.Z)
		run(t, c, pos, y, 1)
		west := centre.Add(-1, 0, 0)
		c.ChunkDefault(west)
		run(t, c, pos, y, 50)
		_, ok := c.res.Chunk(west)
		require.True(t, ok)
		// Two chunks east: west is 3 chunks away, inside our radius 3 but
		// outside the served radius 1.
		pos.X += 64
		run(t, c, pos, y, 50)
		_, ok = c.res.Chunk(west)
		assert.False(t, ok, "evicted without a ChunkDrop")
		assert.NotContains(t, c.announced, west)
		assert.NotContains(t, s.meshes, west)
	})
}

func TestBuiltReportsPlayersSolidBlocksOnly(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := New(Options{Seed: seed, Radius: 1, Workers: 1, Sink: &sink{meshes: map[voxel.ChunkPos]*mesh.Mesh{}}})
		defer c.Close()
		pos, y := ground()
		bx, by, bz := int64(math.Floor(pos.X)), int64(math.Floor(y)), int64(math.Floor(pos.Z))
		p, idx := voxel.ChunkOf(bx, by, bz)
		assert.False(t, c.Built(bx, by, bz), "generated ground is not a built block")
		assert.False(t, c.Built(bx, by-3, bz), "even where it is solid")
		c.EditBroadcast(p, uint16(idx), voxel.Stone)
		assert.True(t, c.Built(bx, by, bz))
		assert.False(t, c.Built(bx+1, by, bz))
		c.EditBroadcast(p, uint16(idx), voxel.Air)
		assert.False(t, c.Built(bx, by, bz), "dug out again")
	})
}
