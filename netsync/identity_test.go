package netsync

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"citydrive/netsync/wire"
	"citydrive/voxel"
)

func TestIdentityResendsUnansweredEditsOnceTheirChunkArrives(t *testing.T) {
	id := NewIdentity()
	a, b := voxel.ChunkPos{X: 1}, voxel.ChunkPos{X: -4}
	r1 := id.request(a, 1, voxel.Stone)
	r2 := id.request(b, 2, voxel.Stone)
	r3 := id.request(a, 3, voxel.Air)
	assert.Equal(t, []uint32{1, 2, 3}, []uint32{r1.Seq, r2.Seq, r3.Seq})
	assert.Equal(t, id.Key(), r1.Player)
	id.answered(r2.Seq)
	assert.Equal(t, 2, id.Unanswered())

	// A new connection: a's requests go again, in order, when a arrives.
	again := resend{wait: id.retry()}
	assert.Empty(t, again.delivered([]voxel.ChunkPos{b}, nil))
	assert.Equal(t, []wire.EditRequest{r1, r3}, again.delivered([]voxel.ChunkPos{b, a}, nil))
	assert.Empty(t, again.delivered([]voxel.ChunkPos{a}, nil), "sent once per connection")
	assert.Equal(t, 2, id.Unanswered(), "still unanswered until the server answers")
	r4 := id.request(a, 4, voxel.Air)
	assert.Equal(t, uint32(4), r4.Seq, "the sequence goes on across connections")
}
