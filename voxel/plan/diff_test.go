package plan

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"citydrive/voxel"
)

// Outside is the set difference of two cylinders, checked against the
// membership test.
func TestOutsideIsTheCylinderDifference(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := voxel.ChunkPos{X: rapid.Int32Range(-6, 6).Draw(t, "cx"), Y: rapid.Int32Range(-3, 3).Draw(t, "cy"), Z: rapid.Int32Range(-6, 6).Draw(t, "cz")}
		o := voxel.ChunkPos{X: rapid.Int32Range(-6, 6).Draw(t, "ox"), Y: rapid.Int32Range(-3, 3).Draw(t, "oy"), Z: rapid.Int32Range(-6, 6).Draw(t, "oz")}
		r := rapid.Int32Range(-1, 6).Draw(t, "r")
		ro := rapid.Int32Range(-1, 6).Draw(t, "ro")
		got := Outside(c, r, o, ro, nil)
		var want []voxel.ChunkPos
		for _, p := range Cylinder(c, r, nil) {
			if !InCylinder(o, ro, p) {
				want = append(want, p)
			}
		}
		require.ElementsMatch(t, want, got)
	})
}

func TestOutsideFarApartDoesNotOverflow(t *testing.T) {
	a := voxel.ChunkPos{X: math.MaxInt32 - 8}
	b := voxel.ChunkPos{X: math.MinInt32 + 8}
	assert.Len(t, Outside(a, 4, b, 4, nil), len(Cylinder(a, 4, nil)), "nothing in common")
	assert.Empty(t, Outside(a, 4, a, 4, nil))
}

func TestOutsideOneStepIsOneFace(t *testing.T) {
	o := voxel.ChunkPos{}
	got := Outside(voxel.ChunkPos{X: 1}, 8, o, 8, nil)
	// One disc's worth of columns shifted by one: 17 columns of 9 layers.
	assert.Len(t, got, 17*9)
}

func BenchmarkOutsideOneStep(b *testing.B) {
	var dst []voxel.ChunkPos
	for b.Loop() {
		dst = Outside(voxel.ChunkPos{X: 1}, 8, voxel.ChunkPos{}, 8, dst[:0])
	}
}

func TestNearFirstOffsetsIsTheSortedCylinder(t *testing.T) {
	for _, c := range []voxel.ChunkPos{{}, {X: -5, Y: 3, Z: 1 << 20}, {X: math.MaxInt32 - 70, Y: math.MinInt32 + 70}} {
		for r := int32(0); r <= 9; r++ {
			var got []voxel.ChunkPos
			for _, o := range NearFirstOffsets(r) {
				got = append(got, c.Add(o.X, o.Y, o.Z))
			}
			require.Equal(t, NearFirst(c, Cylinder(c, r, nil)), got, "centre %v radius %d", c, r)
		}
	}
	assert.Same(t, &NearFirstOffsets(8)[0], &NearFirstOffsets(8)[0], "built once")
}
