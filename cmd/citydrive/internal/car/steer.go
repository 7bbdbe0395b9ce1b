package car

import "math"

// WheelBase is the distance between the axles (metres): a driver that
// plans a turn radius needs it.
const WheelBase = wheelBase

// wheelLock is the most the wheels turn at speed (radians): less lock at
// speed keeps the car drivable.
func wheelLock(speed float64) float64 { return maxSteer / (1 + math.Abs(speed)/18) }

// SteerFor is the steering input (in [-1, 1]) that turns the wheels to
// angle radians (+ = left) at speed.
func SteerFor(angle, speed float64) float64 { return clamp(angle/wheelLock(speed), -1, 1) }
