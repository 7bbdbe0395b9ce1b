package plan

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"citydrive/voxel"
)

func set(ps []voxel.ChunkPos) map[voxel.ChunkPos]bool {
	m := map[voxel.ChunkPos]bool{}
	for _, p := range ps {
		m[p] = true
	}
	return m
}

func TestCylinderSymmetry(t *testing.T) {
	for r := int32(0); r <= 7; r++ {
		s := set(Cylinder(voxel.ChunkPos{}, r, nil))
		for p := range s {
			for _, q := range []voxel.ChunkPos{{X: -p.X, Y: p.Y, Z: p.Z}, {X: p.X, Y: -p.Y, Z: p.Z}, {X: p.X, Y: p.Y, Z: -p.Z}, {X: p.Z, Y: p.Y, Z: p.X}} {
				assert.True(t, s[q], "r=%d: %v in but mirror %v not", r, p, q)
			}
		}
	}
}

func TestCylinderBoundaryInclusion(t *testing.T) {
	s := set(Cylinder(voxel.ChunkPos{}, 5, nil))
	assert.True(t, s[voxel.ChunkPos{X: 5}], "dx²+dz² = r² is inside")
	assert.True(t, s[voxel.ChunkPos{X: 3, Z: 4}], "3²+4² = 5² is inside")
	assert.True(t, s[voxel.ChunkPos{X: 3, Y: 2, Z: -4}], "dy = r/2 is inside")
	assert.False(t, s[voxel.ChunkPos{X: 5, Z: 1}], "26 > 25 is outside")
	assert.False(t, s[voxel.ChunkPos{Y: 3}], "dy > r/2 is outside")
	assert.Len(t, Cylinder(voxel.ChunkPos{}, 0, nil), 1)
	assert.Empty(t, Cylinder(voxel.ChunkPos{}, -1, nil))
}

func TestCylinderTranslationInvariance(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		c := voxel.ChunkPos{
			X: rapid.Int32Range(-1e6, 1e6).Draw(rt, "x"),
			Y: rapid.Int32Range(-1e3, 1e3).Draw(rt, "y"),
			Z: rapid.Int32Range(-1e6, 1e6).Draw(rt, "z"),
		}
		r := rapid.Int32Range(0, 6).Draw(rt, "r")
		base := Cylinder(voxel.ChunkPos{}, r, nil)
		moved := Cylinder(c, r, nil)
		require.Len(rt, moved, len(base))
		for i, p := range base {
			require.Equal(rt, p.Add(c.X, c.Y, c.Z), moved[i])
		}
	})
}

func TestNearFirstDeterministicAndOrdered(t *testing.T) {
	centre := voxel.ChunkPos{X: 10, Y: -2, Z: 3}
	ps := Cylinder(centre, 6, nil)
	want := NearFirst(centre, slices.Clone(ps))
	r := rand.New(rand.NewPCG(1, 2))
	for range 10 {
		shuffled := slices.Clone(ps)
		r.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		require.Equal(t, want, NearFirst(centre, shuffled), "order must not depend on input order")
	}
	assert.Equal(t, centre, want[0], "the centre comes first")
	for i := 1; i < len(want); i++ {
		require.LessOrEqual(t, Score(centre, want[i-1]), Score(centre, want[i]), "near-first")
	}
	// vertical distance weighs 4×: one up is as far as two across
	assert.Equal(t, Score(centre, centre.Add(2, 0, 0)), Score(centre, centre.Add(0, 1, 0)))
	// ties broken by Y, then Z, then X
	tie := NearFirst(centre, []voxel.ChunkPos{centre.Add(2, 0, 0), centre.Add(0, 1, 0), centre.Add(0, -1, 0), centre.Add(0, 0, -2), centre.Add(-2, 0, 0)})
	assert.Equal(t, []voxel.ChunkPos{centre.Add(0, -1, 0), centre.Add(0, 0, -2), centre.Add(-2, 0, 0), centre.Add(2, 0, 0), centre.Add(0, 1, 0)}, tie)
}

func TestUnionOfAnchors(t *testing.T) {
	a := Anchor{voxel.ChunkPos{}, 3}
	b := Anchor{voxel.ChunkPos{X: 4}, 3}
	d := Union(a, b)
	want := set(append(Cylinder(a.Centre, 3, nil), Cylinder(b.Centre, 3, nil)...))
	assert.Equal(t, len(want), d.Len())
	for p := range want {
		assert.True(t, d.Contains(p))
	}
	assert.Equal(t, a.Centre, d.Order()[0])
	assert.False(t, d.Contains(voxel.ChunkPos{X: 100}))
}

func TestInCylinderMatchesCylinder(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		c := voxel.ChunkPos{X: rapid.Int32Range(-50, 50).Draw(rt, "x"), Y: rapid.Int32Range(-5, 5).Draw(rt, "y"), Z: rapid.Int32Range(-50, 50).Draw(rt, "z")}
		r := rapid.Int32Range(0, 7).Draw(rt, "r")
		in := map[voxel.ChunkPos]bool{}
		for _, p := range Cylinder(c, r, nil) {
			in[p] = true
		}
		for dy := int32(-r - 1); dy <= r+1; dy++ {
			for dz := int32(-r - 1); dz <= r+1; dz++ {
				for dx := int32(-r - 1); dx <= r+1; dx++ {
					p := c.Add(dx, dy, dz)
					require.Equal(rt, in[p], InCylinder(c, r, p), "%v", p)
				}
			}
		}
	})
}
