package netsync

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"citydrive/netsync/wire"
)

func frameOf(n int) *[]byte {
	f := getFrame()
	*f = append((*f)[:0], make([]byte, n)...)
	return f
}

// The outbound queue refuses, without blocking, once either bound is
// passed; nothing drains it here.
func TestQueueBoundsNeverBlock(t *testing.T) {
	q := newQueue(3, 1000)
	assert.True(t, q.push(frameOf(100)))
	assert.True(t, q.push(frameOf(100)))
	assert.True(t, q.push(frameOf(100)))
	assert.False(t, q.push(frameOf(1)), "frame bound")
	assert.Equal(t, int64(300), q.bytes.Load())

	q = newQueue(100, 1000)
	assert.True(t, q.push(frameOf(600)))
	assert.False(t, q.push(frameOf(600)), "byte bound")
	assert.Equal(t, int64(600), q.bytes.Load())
}

// The car slot keeps only the latest snapshot and never blocks.
func TestCarSlotLatestOnly(t *testing.T) {
	s := newCarSlot()
	for i := range 1000 {
		s.put([]wire.CarSnapshot{{Seq: uint32(i)}})
	}
	got, ok := s.take(nil)
	assert.True(t, ok)
	assert.Equal(t, []wire.CarSnapshot{{Seq: 999}}, got)
	_, ok = s.take(got)
	assert.False(t, ok, "taken once")
}
