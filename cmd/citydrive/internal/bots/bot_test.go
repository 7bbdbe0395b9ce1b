package bots

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"citydrive/netsync"
)

// The steady window adds up its periods: a reading that ends one period
// and starts the next counts its bytes once, time outside a period (a
// teleport's burst, a redial) not at all, and closing twice changes
// nothing.
func TestSteadyWindowCountsEachByteOnce(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	var w steadyWindow
	w.close(at(0), netsync.Traffic{BytesIn: 50}) // nothing open: nothing counted
	w.open(at(1), netsync.Traffic{BytesIn: 100, BytesOut: 10})
	mid := netsync.Traffic{BytesIn: 400, BytesOut: 40}
	w.close(at(3), mid)
	w.open(at(3), mid)
	w.close(at(4), netsync.Traffic{BytesIn: 500, BytesOut: 50})
	w.close(at(9), netsync.Traffic{BytesIn: 9000, BytesOut: 900}) // already closed
	w.open(at(10), netsync.Traffic{BytesIn: 20})                  // a new connection's count
	w.close(at(12), netsync.Traffic{BytesIn: 220, BytesOut: 30})
	assert.Equal(t, uint64(400+200), w.in)
	assert.Equal(t, uint64(40+30), w.out)
	assert.InDelta(t, 3+2, w.secs, 1e-9)
}
