package netsync

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// The world clock runs at the tick rate's share of its source: half as
// fast at half the rate, never backwards, and at the source's pace again
// (the lost time not caught up) once the rate is back.
func TestSlowClockFollowsTheRate(t *testing.T) {
	src := 1000 * time.Second
	c := newSlowClock(func() time.Duration { return src })
	assert.Equal(t, 1000*time.Second, c.now(), "unslowed: the source itself")
	src += 10 * time.Second
	assert.Equal(t, 1010*time.Second, c.now())
	c.setRate(0.5)
	src += 10 * time.Second
	assert.Equal(t, 1015*time.Second, c.now(), "at half the rate, half the time")
	c.setRate(1)
	src += 10 * time.Second
	assert.Equal(t, 1025*time.Second, c.now(), "back at full pace, 5 s behind the source")
	src -= time.Second
	assert.Equal(t, 1025*time.Second, c.now(), "a source stepping back does not move it back")
}
