package netsync

import (
	"runtime"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The thread clock counts work, not waiting.
func TestThreadCPUCountsWorkNotWaiting(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	a, ok := threadCPU()
	require.True(t, ok)
	x := 0
	for i := range 20_000_000 {
		x += i ^ x
	}
	b, ok := threadCPU()
	require.True(t, ok)
	assert.Greater(t, b, a, "work is counted (%d)", x)
	time.Sleep(50 * time.Millisecond) // the wait is what is measured here
	c, _ := threadCPU()
	assert.Less(t, c-b, 25*time.Millisecond, "a sleeping thread uses no CPU")
}

// The server records each tick's CPU time.
func TestTickCPUIsRecorded(t *testing.T) {
	s := startServer(t, nil)
	c := dial(t, s.clientConfig())
	firstDefault(t, c) // delivered by a tick
	var m dto.Metric
	require.NoError(t, s.metrics.tickCPU.Write(&m))
	assert.Positive(t, m.GetHistogram().GetSampleCount())
}
