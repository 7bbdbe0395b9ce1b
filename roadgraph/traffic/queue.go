package traffic

import "math"

// Queues at the red: on a signalled lane a platoon does not drive through
// at one speed timed for the green; its vehicles arrive during the red,
// brake to a stop in a queue behind the stop line, and drive off one after
// another when the light turns green. Each vehicle's path is still a pure
// function of (seed, its key, t): in time it runs at the lane's speed,
// brakes at a constant rate to its place in the queue, stands, then
// accelerates at a constant rate back to the lane's speed. A queue holds
// only the vehicles that fit the lane and cross the stop line before the
// green ends; a platoon sends no more.
// QueueAtSignals switches the queues on for NewSchedule. Off (for now),
// every platoon drives through at its lane's speed, timed for the green:
// with them, rush hour downtown has 1.6 times the vehicles (and twice as
// many in view), but the autopilot, waiting in the queues, falls below the
// soak's distance floor (TestSoakWithTraffic) and meets other encounters;
// it is to be turned on with the autopilot's handling of queues.
// Every client must agree on it: it changes where vehicles are.
const QueueAtSignals = false

const (
	queueFront    = 1.0                                         // metres from the stop line back to the first vehicle's centre
	queueGap      = VehicleLength + 2.3                         // metres between the centres of queued vehicles
	startDelay    = 1.0                                         // seconds after the green the first vehicle moves off
	startGap      = 1.0                                         // seconds between vehicles moving off
	decelTime     = 3.0                                         // seconds from the lane's speed to standing
	accelTime     = 4.0                                         // seconds from standing to the lane's speed
	queueArrive   = 15.0                                        // seconds before the green the first vehicle stands
	arrivalGap    = 2.0                                         // seconds between vehicles arriving, on average
	arrivalJitter = 0.8                                         // share of arrivalGap an arrival varies by
	queueBefore   = queueArrive + decelTime/2 + greenLead + 0.5 // seconds (and a margin) a queued vehicle is on its lane before a free one would be
	crossMargin   = 0.5                                         // seconds before the green ends the last queued vehicle crosses
)

// motion is one vehicle's path along its lane in time: where (metres from
// the lane's start, u) it is at world time t.
type motion struct {
	// u = stop + speed*(t-cb) before the queue, stop + speed*(t-ca) after
	// it (a free vehicle: cb = ca, the time it crosses the stop line)
	cb, ca float64
	q      float64 // where it stands, from tS to tE
	tS, tE float64
	queued bool
}

// motion is vehicle k's path on a lane of timing lt.
func (s *Schedule) motion(lt *laneTiming, k Key) motion {
	if !lt.queued {
		c := crossTime(lt, k)
		return motion{cb: c, ca: c}
	}
	green := lt.base - greenLead + float64(k.Cycle)*SignalPeriod
	kk := float64(k.K)
	m := motion{queued: true, q: lt.stop - queueFront - kk*queueGap}
	m.tE = green + startDelay + kk*startGap
	h := s.w.Hash01(saltArrive, int64(k.Edge), int64(k.Lane)<<8|int64(k.K), k.Cycle)
	m.tS = green - queueArrive + (kk+arrivalJitter*h)*arrivalGap
	d := (lt.stop - m.q) / lt.speed
	m.cb = m.tS - decelTime/2 + d
	m.ca = m.tE + accelTime/2 + d
	return m
}

// uAt is where (metres along its path) a vehicle moving as m is at t, lag
// metres behind.
func uAt(lt *laneTiming, m *motion, t, lag float64) float64 {
	v := lt.speed
	var u float64
	switch {
	case !m.queued || t >= m.tE+accelTime:
		u = lt.stop + v*(t-m.ca)
	case t <= m.tS-decelTime:
		u = lt.stop + v*(t-m.cb)
	case t <= m.tS:
		d := m.tS - t
		u = m.q - v*d*d/(2*decelTime)
	case t <= m.tE:
		u = m.q
	default:
		d := t - m.tE
		u = m.q + v*d*d/(2*accelTime)
	}
	return u - lag
}

// speedAt is a vehicle's speed at t moving as m.
func speedAt(lt *laneTiming, m *motion, t float64) float64 {
	v := lt.speed
	switch {
	case !m.queued || t >= m.tE+accelTime || t <= m.tS-decelTime:
		return v
	case t <= m.tS:
		return v * (m.tS - t) / decelTime
	case t <= m.tE:
		return 0
	}
	return v * (t - m.tE) / accelTime
}

// queueFits is how many vehicles a queue on lane lt holds: each must have
// room to brake after entering the lane, and cross the stop line before
// the green ends.
func queueFits(lt *laneTiming) int {
	v := lt.speed
	n := 0
	for k := range maxPlatoon {
		kk := float64(k)
		q := lt.stop - queueFront - kk*queueGap
		if q-v*decelTime/2-1 < lt.start {
			break
		}
		// from standing at q, moving off at startDelay + k*startGap
		d := lt.stop - q
		tx := startDelay + kk*startGap
		if d <= v*accelTime/2 {
			tx += math.Sqrt(2 * accelTime * d / v)
		} else {
			tx += accelTime + (d-v*accelTime/2)/v
		}
		if tx > greenLength-crossMargin {
			break
		}
		n++
	}
	return n
}

// cycles is the range of signal cycles whose vehicles may be on lane lt
// at t.
func (lt *laneTiming) cycles(t float64) (lo, hi int64) {
	lo = int64(math.Ceil((t - lt.after - lt.base) / SignalPeriod))
	hi = int64(math.Floor((t + lt.before - lt.base) / SignalPeriod))
	return lo, hi
}
