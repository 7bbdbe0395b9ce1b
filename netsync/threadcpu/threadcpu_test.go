package threadcpu

import (
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// Busy work advances the thread's CPU clock by about its wall time; a
// blocked thread's does not advance.
func TestThreadCPUTimeCountsWorkNotWaiting(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	a, ok := Now()
	if !ok {
		t.Skip("no thread CPU clock here")
	}
	w0 := time.Now()
	x := 1.0
	for time.Since(w0) < 20*time.Millisecond {
		x = x*1.0000001 + 1e-9
	}
	b, _ := Now()
	assert.Greater(t, b-a, time.Millisecond, "work counts (%v)", x)
	assert.LessOrEqual(t, b-a, time.Since(w0)+time.Millisecond)
	done := make(chan struct{})
	timer := time.AfterFunc(30*time.Millisecond, func() { close(done) })
	defer timer.Stop()
	c, _ := Now()
	<-done // blocked, not working
	d, _ := Now()
	assert.Less(t, d-c, 10*time.Millisecond)
}
