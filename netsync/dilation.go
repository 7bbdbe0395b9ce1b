package netsync

import (
	"math"
	"time"
)

// dilation is the server's time-dilation rule: when a tick's work exceeds
// budget, time slows: the tick rate drops to baseHz / factor, where the
// target factor grows with the square of the overload (1 + o², o = work /
// budget − 1), never below floorHz. The factor follows its target
// smoothly (an exponential moving average, weight smoothing per tick), so
// one slow tick does not halve the rate and the rate recovers as the load
// falls.
type dilation struct {
	budget    time.Duration // 0: off
	baseHz    int
	floorHz   int
	smoothing float64 // 0..1, weight of the newest tick while slowing
	recovery  float64 // the same while speeding up again
	factor    float64 // ≥ 1
}

// dilationSmoothing is the weight of one tick in the dilation factor: the
// rate moves most of the way to its target in ~40 ticks (1.3 s at 30 Hz).
// Recovery weighs the newest tick twice as much, so once the load has
// gone the rate is back from the floor in ~2 s (40 ticks at 10 to 30 Hz),
// while a burst still slows time gently.
const (
	dilationSmoothing = 0.05
	dilationRecovery  = 0.1
)

func newDilation(budget time.Duration, baseHz, floorHz int) dilation {
	return dilation{budget: budget, baseHz: baseHz, floorHz: min(floorHz, baseHz), smoothing: dilationSmoothing, recovery: dilationRecovery, factor: 1}
}

// observe takes one tick's work time and returns the tick rate to run at.
func (d *dilation) observe(work time.Duration) int {
	if d.budget <= 0 {
		return d.baseHz
	}
	o := max(0, work.Seconds()/d.budget.Seconds()-1)
	most := float64(d.baseHz) / float64(d.floorHz)
	target := min(1+o*o, most) // bounded first, so one awful tick moves it little
	w := d.smoothing
	if target < d.factor {
		w = d.recovery
	}
	d.factor += w * (target - d.factor)
	d.factor = max(1, min(d.factor, most))
	return d.hz()
}

// hz is the current tick rate.
func (d *dilation) hz() int {
	return max(d.floorHz, min(d.baseHz, int(math.Round(float64(d.baseHz)/d.factor))))
}
