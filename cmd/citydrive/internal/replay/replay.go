// Package replay is the file a drive is recorded in: a header (seed,
// versions, start pose, time of day, weather, traffic) and, step by
// fixed step, what the simulation cannot compute again from the seed: the
// controls that drove the car, where the car was put (a reset, the
// server's word), the world clock, the other players' cars, and
// the few obstacles and built blocks the car actually touched (what the
// streaming had loaded is not a function of the seed; what the car met
// is recorded instead). Checksums of the car and the traffic every second
// let a replay say where it first went another way, and the contacts and
// stuck episodes are marked where they happened.
//
// The body is a stream of records, run-length coded (a run of steps with
// the same controls is one record) and deflated; every count and length
// in a file is bounded before anything is allocated, and a damaged or
// foreign file is a clear error. The package is pure: the game
// (cmd/citydrive/internal/game) records and plays replays, this package
// only writes and reads them.
package replay

import (
	"errors"
	"math"

	"citydrive/netsync/wire"
	"citydrive/slots"
)

// FormatVersion is the file format this package writes and reads.
const FormatVersion = 1

// Quantum is the controls' resolution: a pedal or the steering is a whole
// number of 1/Quantum. The game quantises its controls before they drive
// the car, so what is recorded is exactly what drove it.
const Quantum = 1024

// Limits on what a file may hold; a file past them is refused, and a
// recording stops growing at them.
const (
	MaxFile     = 32 << 20            // bytes of a whole file
	MaxBody     = 32 << 20            // bytes of the inflated body
	MaxSteps    = 24 * 3600 * 120 * 2 // a day at 240 Hz
	MaxTouched  = 64                  // obstacles or block columns touched in one step
	MaxRemote   = 64                  // other players' cars in one sample
	maxHeader   = 1024
	maxBuild    = 200 // bytes of Header.Build
	maxRunSteps = MaxSteps
)

// Errors the reader wraps; each message says what is wrong with the file.
var (
	ErrNotReplay = errors.New("not a citydrive replay")
	ErrVersion   = errors.New("replay format version not supported")
	ErrDamaged   = errors.New("replay damaged")
	ErrTooLarge  = errors.New("replay too large")
)

// Sim is the simulation's rates, which a replay must be played at.
type Sim struct {
	StepHz       uint16 // physics steps per second
	TrafficEvery uint16 // steps between traffic updates
	CheckEvery   uint16 // steps between checksums
	RemoteEvery  uint16 // steps between samples of the other cars
}

// Header is what a drive started from.
type Header struct {
	Seed      uint64
	Protocol  uint32 // the recording build's wire.ProtocolVersion
	Generator uint32 // its terrain generator version (voxel/gen.Version)
	Build     string // its version and commit, for the record (≤ 200 bytes)
	Sim       Sim
	Start     [2]float64 // where the car was put at step 0 (x, z)
	Dir       [2]float64 // facing this unit direction
	TimeOfDay float64    // hours: the traffic's hour and the light
	Weather   uint8      // render.Weather
	Traffic   bool       // the city's traffic was on the roads
	Autopilot bool       // the autopilot drove (for the record: the controls are recorded either way)
	FixedStep bool       // every frame was 1/60 s (soak, shot; for the record)
	Remote    bool       // other players' cars were recorded
	Recorded  int64      // Unix nanoseconds when the drive began
	Steps     uint64     // physics steps recorded
}

// Input is one step's controls, quantised (Quantum), and whether the
// autopilot was waiting (held up at a red signal or behind a vehicle:
// slow, but not stuck).
type Input struct {
	Throttle, Brake, Steer int16
	Waiting                bool
}

// Quantise is v in whole 1/Quantum, within [lo, hi] (NaN: 0).
func Quantise(v, lo, hi float64) int16 {
	if v != v {
		return 0
	}
	return int16(math.Round(math.Max(lo, math.Min(hi, v)) * Quantum))
}

// QuantiseInput is the controls as recorded: throttle and brake in [0, 1],
// steering in [-1, 1].
func QuantiseInput(throttle, brake, steer float64, waiting bool) Input {
	return Input{Throttle: Quantise(throttle, 0, 1), Brake: Quantise(brake, 0, 1), Steer: Quantise(steer, -1, 1), Waiting: waiting}
}

// Values is in's controls as numbers (exact: Quantum is a power of two).
func (in Input) Values() (throttle, brake, steer float64) {
	return float64(in.Throttle) / Quantum, float64(in.Brake) / Quantum, float64(in.Steer) / Quantum
}

// Place is the car put somewhere at rest, facing Dir: a reset or the
// server's word. Reset says the drive counts it as a reset.
type Place struct {
	Pos, Dir [2]float64
	Reset    bool
}

// Clock is the world clock (the traffic's and the signals') from a
// boundary on: World seconds there, running at Rate world seconds per
// simulated second (under 1 while the server is slowed).
type Clock struct {
	World, Rate float64
}

// At is the world time s simulated seconds after the clock's boundary.
func (c Clock) At(s float64) float64 { return c.World + c.Rate*s }

// Kind is what happened to the car.
type Kind uint8

const (
	Contact Kind = 1 + iota // it began touching an obstacle
	Stuck                   // it began a stuck episode
)

func (k Kind) String() string {
	switch k {
	case Contact:
		return "contact"
	case Stuck:
		return "stuck"
	}
	return "unknown"
}

// Incident is what happened and where: Step is the boundary after the
// step that did it (the car had run Step steps).
type Incident struct {
	Kind Kind
	Step uint64
}

// Car is another player's car as sampled (wire.CarSnapshot without the
// sequence number).
type Car = wire.CarSnapshot

// Obstacle is an obstacle the car touched.
type Obstacle = slots.Obstacle

// Hash is a running FNV-1a hash of a state's numbers, folded to 32 bits
// for a checksum.
type Hash struct{ h uint64 }

// NewHash starts a hash.
func NewHash() Hash { return Hash{h: 14695981039346656037} }

// Uint adds u.
func (h *Hash) Uint(u uint64) {
	for range 8 {
		h.h ^= u & 0xff
		h.h *= 1099511628211
		u >>= 8
	}
}

// Float adds f's bits.
func (h *Hash) Float(f float64) { h.Uint(math.Float64bits(f)) }

// Sum32 is the hash so far.
func (h Hash) Sum32() uint32 { return uint32(h.h ^ h.h>>32) }
