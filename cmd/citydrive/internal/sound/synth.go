// Package sound synthesises the car's sound: an engine tone whose pitch
// follows the engine speed (from road speed through a gearbox) and whose
// loudness follows the throttle, and tyre squeal when the car corners hard
// or slides. It is pure: Synth fills sample buffers, Stream turns them into
// the byte stream an audio device pulls (float32 little endian, mono), and
// nothing here opens a device (that is sound/speaker).
//
// The game sets Params once per frame from the main goroutine; the device
// pulls samples from its own goroutine. Parameters travel through atomics
// and every one glides towards its new value over a few milliseconds per
// sample, so a jump in speed or a pause never clicks.
package sound

import (
	"math"
	"sync/atomic"
)

// SampleRate is samples per second of every stream.
const SampleRate = 44100

// Params is what the car does, set once a frame. The zero value is silence.
type Params struct {
	Speed    float64 // m/s, either direction
	Throttle float64 // 0..1
	Slip     float64 // 0..1: how hard the tyres scrub (0: they grip quietly)
	Volume   float64 // master, 0..1 (0 while paused or muted)
}

// Engine: a four-cylinder four-stroke fires twice per revolution, so the
// tone's fundamental is rpm/60·2 Hz.
const (
	IdleRPM     = 850.0
	RedlineRPM  = 6200.0
	firesPerRev = 2.0
	// launchRPM is how far the throttle revs the engine at a standstill
	// (the clutch slips until first gear takes over).
	launchRPM = 1600.0
)

// gearTops are the road speeds (m/s) at which each gear reaches the
// shift point; above the last the engine stays near the redline.
var gearTops = [...]float64{12, 22, 33, 45, 60}

// shiftDownRPM is where each gear above the first starts: the rpm right
// after an up-shift.
const shiftDownRPM = 3300.0

// shiftBack is how far (m/s) below a gear's top the box shifts down
// again, so a speed hovering at a shift point does not warble.
const shiftBack = 2.0

// Gear is the gear (0 = first) for a road speed (m/s, either sign) given
// the gear engaged now: up when the speed passes the gear's top, down when
// it falls shiftBack below the lower gear's top.
func Gear(speed float64, now int) int {
	v := math.Abs(speed)
	g := max(0, min(now, len(gearTops)-1))
	for g < len(gearTops)-1 && v > gearTops[g] {
		g++
	}
	for g > 0 && v < gearTops[g-1]-shiftBack {
		g--
	}
	return g
}

// RPM is the engine speed at a road speed (m/s, either sign) and throttle
// in gear g: rising through the gear from shiftDownRPM (first: from idle)
// to the redline at the gear's top, dropping at each up-shift, revved by
// the throttle while pulling away in first.
func RPM(speed, throttle float64, g int) float64 {
	v := math.Abs(speed)
	throttle = clamp(throttle, 0, 1)
	g = max(0, min(g, len(gearTops)-1))
	top := gearTops[g]
	if g == 0 {
		t := clamp(v/top, 0, 1)
		return max(IdleRPM+t*(RedlineRPM-IdleRPM), IdleRPM+throttle*launchRPM*(1-t))
	}
	lo := gearTops[g-1]
	// Below lo (before a down-shift) the revs keep falling, to idle at most.
	return clamp(shiftDownRPM+(v-lo)/(top-lo)*(RedlineRPM-shiftDownRPM), IdleRPM, RedlineRPM)
}

// EngineHz is the fundamental of the engine tone at rpm.
func EngineHz(rpm float64) float64 { return rpm / 60 * firesPerRev }

// Loudness of the parts, before the master volume.
const (
	idleGain     = 0.16 // engine at idle, off throttle
	throttleGain = 0.22 // added at full throttle
	revGain      = 0.10 // added at the redline
	tyreGain     = 0.22 // tyres at full slip
	// glide is the time constant (seconds) of every parameter's approach
	// to its target; short enough to follow the car, long enough that no
	// step is audible as a click.
	glide      = 0.03
	tyreCentre = 1150.0 // Hz: the squeal's band centre
	tyreQ      = 7.0
)

// Synth generates the car's sound. Set is safe to call from one goroutine
// while another calls Fill.
type Synth struct {
	target [4]atomic.Uint64 // Params as float64 bits: speed, throttle, slip, volume

	// audio goroutine only
	rate           float64
	k              float64 // per-sample glide factor
	hz, gain, slip float64 // gliding values
	vol            float64
	phase, wobble  float64
	noise          uint32
	bp1, bp2       float64 // band-pass state (tyres)
	lp             float64 // low-pass state (engine rumble)
	buzz           float64 // low-pass state (engine buzz)
	gear           int
}

// New makes a synthesiser at SampleRate, silent until Set.
func New() *Synth {
	s := &Synth{rate: SampleRate, noise: 0x9e3779b9, hz: EngineHz(IdleRPM)}
	s.k = 1 - math.Exp(-1/(glide*s.rate))
	return s
}

// Set gives the synthesiser new targets; it allocates nothing.
func (s *Synth) Set(p Params) {
	s.target[0].Store(math.Float64bits(math.Abs(finite(p.Speed))))
	s.target[1].Store(math.Float64bits(clamp(p.Throttle, 0, 1)))
	s.target[2].Store(math.Float64bits(clamp(p.Slip, 0, 1)))
	s.target[3].Store(math.Float64bits(clamp(p.Volume, 0, 1)))
}

func (s *Synth) load(i int) float64 { return math.Float64frombits(s.target[i].Load()) }

// Fill writes len(buf) samples in [-1, 1].
func (s *Synth) Fill(buf []float32) {
	speed, throttle, slip, vol := s.load(0), s.load(1), s.load(2), s.load(3)
	s.gear = Gear(speed, s.gear)
	rpm := RPM(speed, throttle, s.gear)
	wantHz := EngineHz(rpm)
	wantGain := idleGain + throttleGain*throttle + revGain*(rpm-IdleRPM)/(RedlineRPM-IdleRPM)
	// Band-pass coefficients (a two-pole resonator); fixed centre, the
	// wobble below bends the squeal's pitch a little.
	w := 2 * math.Pi * tyreCentre / s.rate
	r := 1 - w/(2*tyreQ)
	c1, c2 := 2*r*math.Cos(w), -r*r
	k := s.k
	for i := range buf {
		s.hz += (wantHz - s.hz) * k
		s.gain += (wantGain - s.gain) * k
		s.slip += (slip - s.slip) * k
		s.vol += (vol - s.vol) * k

		// Engine: the firing fundamental with two harmonics, plus a
		// band-limited sawtooth at the same phase low-passed by a cutoff
		// that opens with the throttle (a buzz that small speakers play
		// even at idle, where the fundamental is below 30 Hz, brighter
		// under load), and rumble (low-passed noise).
		dp := s.hz / s.rate
		s.phase += dp
		if s.phase >= 1 {
			s.phase--
		}
		p := 2 * math.Pi * s.phase
		tone := math.Sin(p) + 0.5*math.Sin(2*p+0.4) + 0.25*math.Sin(3*p+1.1)
		s.buzz += (saw(s.phase, dp) - s.buzz) * (buzzDull + buzzBright*s.gain)
		n := s.white()
		s.lp += (n - s.lp) * 0.05
		engine := s.gain * (0.5*tone + 0.35*s.buzz + (0.6+throttle)*0.6*s.lp)

		// Tyres: noise through the resonator, wobbling at a few Hz.
		s.wobble += 5.3 / s.rate
		if s.wobble >= 1 {
			s.wobble--
		}
		y := n*(1+0.3*math.Sin(2*math.Pi*s.wobble)) + c1*s.bp1 + c2*s.bp2
		s.bp2, s.bp1 = s.bp1, y
		tyres := tyreGain * s.slip * y * (1 - r) * 4

		buf[i] = float32(clamp(s.vol*(engine+tyres), -1, 1))
	}
}

// Buzz low-pass coefficients per sample: the cutoff opens with the gain.
const (
	buzzDull   = 0.04
	buzzBright = 0.5
)

// saw is a sawtooth in [-1, 1] at phase (0..1) advancing dp a sample,
// with its jump smoothed (polyBLEP) so it does not alias.
func saw(phase, dp float64) float64 {
	v := 2*phase - 1
	switch {
	case phase < dp:
		t := phase / dp
		v -= t + t - t*t - 1
	case phase > 1-dp:
		t := (phase - 1) / dp
		v -= t*t + t + t + 1
	}
	return v
}

// white is a uniform sample in [-1, 1) from a xorshift generator
// (deterministic, so tests see the same sound every run).
func (s *Synth) white() float64 {
	x := s.noise
	x ^= x << 13
	x ^= x >> 17
	x ^= x << 5
	s.noise = x
	return float64(x)/float64(1<<31) - 1
}

func clamp(x, lo, hi float64) float64 {
	if !(x >= lo) { // NaN too
		return lo
	}
	return math.Min(x, hi)
}

func finite(x float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return 0
	}
	return x
}
