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

// SpeedForCurvature is the highest speed at which the wheels still turn
// far enough to follow a path of curvature k (1/metres); +Inf for a
// straight path.
func SpeedForCurvature(k float64) float64 {
	need := math.Atan(wheelBase * math.Abs(k))
	if need == 0 {
		return math.Inf(1)
	}
	return max(0, 18*(maxSteer/need-1))
}
