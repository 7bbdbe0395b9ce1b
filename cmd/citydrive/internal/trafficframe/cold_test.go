package trafficframe

import (
	"runtime"
	"slices"
	"testing"

	"citydrive/netsync/threadcpu"
)

// flush is larger than this machine's L2 and most of its L3 slice: the
// game's frame (streaming, physics, the renderer, other processes) runs
// between two traffic updates, and leaves the traffic's data out of cache.
var flush = make([]byte, 16<<20)

func thrash() {
	for i := 0; i < len(flush); i += 64 {
		flush[i]++
	}
}

// BenchmarkFrameCold is BenchmarkFrameDriving with the caches filled with
// other data between frames, as the game's and the bench's frames leave
// them, timed on the thread's CPU clock (other processes' time left out).
func BenchmarkFrameCold(b *testing.B) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	fw := newFrameWork(b, false)
	for range 120 {
		fw.step()
	}
	b.ReportAllocs()
	us := make([]float64, 0, b.N)
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		thrash()
		b.StartTimer()
		c0, _ := threadcpu.Now()
		fw.car.Pos.X += 30.0 / 60
		fw.cam[0] += 30.0 / 60
		fw.step()
		c1, _ := threadcpu.Now()
		us = append(us, float64((c1-c0).Nanoseconds())/1000)
		fw.awaitPlan(b)
	}
	b.StopTimer()
	slices.Sort(us)
	b.ReportMetric(float64(len(fw.f.Vehicles())), "vehicles")
	b.ReportMetric(us[len(us)/2], "p50-cpu-µs")
	b.ReportMetric(us[min(len(us)-1, len(us)*99/100)], "p99-cpu-µs")
}
