package mesh

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"citydrive/voxel"
)

// A 2×3 quad at block (3, 4, 5) on each face: the unit faces it covers
// (U and V per face as documented on Quad) and its corners, a positive
// face one block further along its normal.
func TestQuadBlocksAndCorners(t *testing.T) {
	type xyz = [3]int
	cases := []struct {
		face   voxel.Face
		blocks []xyz // U fastest
		lo, hi xyz
	}{
		{voxel.PosX, []xyz{{3, 4, 5}, {3, 4, 6}, {3, 5, 5}, {3, 5, 6}, {3, 6, 5}, {3, 6, 6}}, xyz{4, 4, 5}, xyz{4, 7, 7}},
		{voxel.NegX, []xyz{{3, 4, 5}, {3, 4, 6}, {3, 5, 5}, {3, 5, 6}, {3, 6, 5}, {3, 6, 6}}, xyz{3, 4, 5}, xyz{3, 7, 7}},
		{voxel.PosY, []xyz{{3, 4, 5}, {4, 4, 5}, {3, 4, 6}, {4, 4, 6}, {3, 4, 7}, {4, 4, 7}}, xyz{3, 5, 5}, xyz{5, 5, 8}},
		{voxel.NegY, []xyz{{3, 4, 5}, {4, 4, 5}, {3, 4, 6}, {4, 4, 6}, {3, 4, 7}, {4, 4, 7}}, xyz{3, 4, 5}, xyz{5, 4, 8}},
		{voxel.PosZ, []xyz{{3, 4, 5}, {4, 4, 5}, {3, 5, 5}, {4, 5, 5}, {3, 6, 5}, {4, 6, 5}}, xyz{3, 4, 6}, xyz{5, 7, 6}},
		{voxel.NegZ, []xyz{{3, 4, 5}, {4, 4, 5}, {3, 5, 5}, {4, 5, 5}, {3, 6, 5}, {4, 6, 5}}, xyz{3, 4, 5}, xyz{5, 7, 5}},
	}
	for _, tc := range cases {
		q := Pack(3, 4, 5, 2, 3, tc.face, 7)
		var got []xyz
		q.Blocks(func(x, y, z int) { got = append(got, xyz{x, y, z}) })
		assert.Equal(t, tc.blocks, got, "face %v blocks", tc.face)
		lo, hi := q.Corners()
		assert.Equal(t, tc.lo, lo, "face %v lo", tc.face)
		assert.Equal(t, tc.hi, hi, "face %v hi", tc.face)
	}
}
