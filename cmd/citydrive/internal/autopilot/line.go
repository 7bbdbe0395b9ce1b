package autopilot

import (
	"math"

	"citydrive/roadgraph/world"
)

// A line bent tighter than the car can turn makes it swing wide: the
// centre line's moving average rounds a sharp corner into an arc whose
// curvature peaks at the apex (the averaged direction shrinks there), and
// a 110° corner comes out at a 3 m radius where the car needs 5 m at its
// slowest planned speed. So the line is relaxed where it bends too tight:
// those stretches are averaged again, pass after pass, which spreads the
// turn over more road until no point of it is tighter than maxLineCurve.
const (
	maxLineCurve = 1 / 5.5 // 1/m: the tightest bend of the line
	relaxHalf    = 5.0     // metres either side a relaxing pass averages over
	relaxGrow    = 6.0     // metres around a too-tight point that are relaxed with it
	relaxPasses  = 400     // at most (seed 257318 needed over 100; a hairpin stays as it is)
)

// lineCurvature is the signed curvature of line at k (+: left), over
// chords of about curveBase metres.
func lineCurvature(line []world.Vec2, k int) float64 {
	const m = int(curveBase / pathStep)
	k = min(max(k, m), len(line)-1-m)
	a := line[k].Sub(line[k-m])
	b := line[k+m].Sub(line[k])
	return angleTo(a, b) / max((a.Len()+b.Len())/2, 1e-3)
}

// tooTight reports whether the bend from chord a to chord b is sharper
// than maxLineCurve: an angle over maxLineCurve × their mean length,
// tested without the arc tangent (relaxLine tests every point of every
// plan).
func tooTight(a, b world.Vec2) bool {
	la, lb := a.Len(), b.Len()
	turn := maxLineCurve * (la + lb) / 2 // the largest angle allowed, well under 90°
	dot, cross := a.Dot(b), a.X*b.Z-a.Z*b.X
	if dot <= 0 {
		return true
	}
	s := math.Sin(turn) * la * lb
	return cross*cross > s*s
}

// relaxLine averages the stretches of line that bend tighter than
// maxLineCurve until none does (or relaxPasses have run). A point moves
// to its average by a weight that falls from 1 at a too-tight point to 0
// relaxGrow away, so the relaxed stretch joins the rest of the line
// without a kink and the rest keeps its lane. sums and wgt are scratch.
func relaxLine(line []world.Vec2, sums []world.Vec2, wgt []float64) ([]world.Vec2, []float64) {
	const m = int(curveBase / pathStep)
	h := int(relaxHalf / pathStep)
	grow := int(relaxGrow / pathStep)
	n := len(line)
	if n < 2*m+1 {
		return sums, wgt
	}
	wgt = append(wgt[:0], make([]float64, n)...)
	lo, hi := m, n-m // the points whose bends may have changed
	for range relaxPasses {
		clear(wgt)
		moved := false
		for k := lo; k < hi; k++ {
			if tooTight(line[k].Sub(line[k-m]), line[k+m].Sub(line[k])) {
				moved = true
				for j := max(1, k-grow); j <= min(n-2, k+grow); j++ {
					wgt[j] = max(wgt[j], 1-float64(abs(j-k))/float64(grow+1))
				}
			}
		}
		if !moved {
			break
		}
		sums = append(sums[:0], world.Vec2{})
		for _, p := range line {
			sums = append(sums, sums[len(sums)-1].Add(p))
		}
		lo, hi = n, 0
		for j, f := range wgt {
			if f > 0 { // the window shrinks towards the line's ends, which stay
				w := min(h, j, n-1-j)
				avg := sums[j+w+1].Sub(sums[j-w]).Scale(1 / float64(2*w+1))
				line[j] = line[j].Lerp(avg, f)
				lo, hi = min(lo, j), max(hi, j+1)
			}
		}
		lo, hi = max(m, lo-m), min(n-m, hi+m)
	}
	return sums, wgt
}

func abs(v int) int { return max(v, -v) }
