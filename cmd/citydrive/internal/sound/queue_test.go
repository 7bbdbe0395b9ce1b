package sound

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type scheduled struct {
	start float64
	loud  bool
}

func pump(q *Queue, now, lead float64) []scheduled {
	var got []scheduled
	q.Pump(now, lead, func(start float64, samples []float32) {
		loud := false
		for _, v := range samples {
			loud = loud || v != 0
		}
		got = append(got, scheduled{start, loud})
	})
	return got
}

const chunkSeconds = float64(QueueChunk) / SampleRate

// The schedule is contiguous, topped up to the lead each frame, and a
// stall longer than the schedule restarts it ahead of the clock.
func TestQueueSchedulesAheadOfTheClock(t *testing.T) {
	s := New()
	s.Set(Params{Speed: 10, Throttle: 1, Volume: 1})
	q := NewQueue(s)

	first := pump(q, 1.0, 0.2)
	require.Len(t, first, 4, "0.2 s ahead in 46 ms chunks, from 30 ms ahead")
	for i, c := range first {
		assert.InDelta(t, 1.0+queueMargin+float64(i)*chunkSeconds, c.start, 1e-9, "chunk %d follows the one before", i)
	}
	assert.True(t, first[3].loud, "the synthesiser's samples")

	// A frame later (60 ms), only what the clock ate is topped up.
	more := pump(q, 1.06, 0.2)
	require.NotEmpty(t, more)
	assert.InDelta(t, first[3].start+chunkSeconds, more[0].start, 1e-9, "no gap, no overlap")
	assert.Empty(t, pump(q, 1.06, 0.2), "already topped up")
	assert.Zero(t, q.Gaps)

	// A 2 s stall: one gap, then a fresh schedule just ahead of the clock.
	late := pump(q, 3.0, 0.1)
	require.NotEmpty(t, late)
	assert.InDelta(t, 3.0+queueMargin, late[0].start, 1e-9)
	assert.Equal(t, 1, q.Gaps)
	assert.Equal(t, len(first)+len(more)+len(late), q.Plays)

	// The lead is capped, so a slow frame never queues seconds of sound.
	q2 := NewQueue(s)
	assert.LessOrEqual(t, float64(len(pump(q2, 0, 10))), MaxLead/chunkSeconds+1)
}
