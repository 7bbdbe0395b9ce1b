package game

import (
	"math"
	"runtime/debug"

	"citydrive/cmd/citydrive/internal/car"
	"citydrive/cmd/citydrive/internal/replay"
	"citydrive/netsync/wire"
	"citydrive/roadgraph/world"
	"citydrive/slots"
	"citydrive/voxel/gen"
)

// The simulation runs on the step clock alone, so that a drive is its
// steps' inputs (replay): the car and the autopilot every step, the
// traffic every trafficEvery steps at the world clock's time of the step,
// the other players' cars sampled every remoteEvery steps. A frame only
// says how many steps to run. What the car meets that the seed does not
// determine (the obstacles the streaming had loaded, the blocks players
// built) is taken, step by step, from what the car touched (car.Touched):
// recorded live, given back in a replay.
const (
	trafficEvery = 2         // 60 Hz: the traffic's update, as a 60 fps frame had it
	checkEvery   = PhysicsHz // a checksum of the car and the traffic every second
	remoteEvery  = 12        // other players' cars sampled at 10 Hz
	// maxWorldDrift is how far (seconds) the simulation's world clock may
	// drift from the server's before it is set again: a few centimetres
	// of traffic.
	maxWorldDrift = 0.005
	// remoteRadius: the other cars within it are sampled (metres); the
	// traffic brakes for those within trafficframe.Radius + otherReach.
	remoteRadius = 600.0
	// incidentTail is how long a soak's incident replay runs on past it.
	incidentTail = 3 * PhysicsHz
	// maxIncidentReplays bounds the incident replays of one drive.
	maxIncidentReplays = 8
)

// simRates is what a replay must be played at.
var simRates = replay.Sim{StepHz: PhysicsHz, TrafficEvery: trafficEvery, CheckEvery: checkEvery, RemoteEvery: remoteEvery}

// simState is the simulation's own state beside the car: its step count,
// the world clock it runs traffic on, the other cars as last sampled, and
// the recording or the replay.
type simState struct {
	n       uint64       // physics steps run
	clock   replay.Clock // the world clock from step clockN on
	clockN  uint64
	clocked bool
	remote  []replay.Car // the other players' cars, sampled at step remoteN
	remoteN uint64
	rec     *replay.Recorder // the drive being recorded (nil: not recorded)
	play    *playback        // the replay being played (replayplay.go); nil: live
	touched []slots.Obstacle // scratch of recordStep
	blocks  [][2]int64
	counts  [2]int                     // the drive's contacts and stuck episodes before the step
	each    func(n uint64, c *car.Car) // called after every step (tests)
}

// worldAt is the world time after n steps.
func (st *simState) worldAt(n uint64) float64 {
	return st.clock.At(float64(n-st.clockN) * physicsStep)
}

// simulate runs the physics steps of one frame with the frame's controls.
func (s *Session) simulate(steps int, hands car.Input) {
	for range steps {
		if !s.beforeStep() {
			return // the replay is over
		}
		s.prev = poseOf(s.car)
		q, in := s.stepInput(hands)
		s.hands = in
		env := s.physicsEnv()
		from := s.car.Pos
		s.car.Step(physicsStep, in, env)
		s.drive.waiting = q.Waiting
		s.rp.counts = [2]int{s.drive.Contacts, s.drive.StuckEpisodes}
		s.drive.step(physicsStep, s.car.Pos.Sub(from).Len(), math.Abs(s.car.Speed()),
			s.car.Y-env.Surface(s.car.Pos.X, s.car.Pos.Z).Y, s.car.Pos, s.car.Contacts)
		s.rp.n++
		if s.rp.play != nil {
			s.rp.play.after(s)
		} else if s.rp.rec != nil {
			s.recordStep(q)
		}
		if s.rp.each != nil {
			s.rp.each(s.rp.n, s.car)
		}
	}
}

// beforeStep is the boundary before a step: a replay's places, clock and
// other cars; the live other cars' sample; then the traffic's update when
// due. False: the replay has no more steps.
func (s *Session) beforeStep() bool {
	st := &s.rp
	if st.play != nil {
		if !st.play.before(s) {
			return false
		}
	} else if st.n%remoteEvery == 0 {
		s.sampleRemote()
	}
	if st.n%trafficEvery == 0 {
		s.updateTraffic(trafficEvery * physicsStep)
	}
	return true
}

// stepInput is the step's controls, quantised as they are recorded (q)
// and as the car takes them (in): a replay's, the autopilot's or the
// hands'.
func (s *Session) stepInput(hands car.Input) (q replay.Input, in car.Input) {
	if p := s.rp.play; p != nil {
		q = p.in
	} else {
		in, waiting := hands, false
		if s.opt.Autopilot {
			in = s.driver.Drive(s.car, s.carEnv(), physicsStep)
			waiting = s.driver.Waiting()
		}
		q = replay.QuantiseInput(in.Throttle, in.Brake, in.Steer, waiting)
	}
	in.Throttle, in.Brake, in.Steer = q.Values()
	return q, in
}

// physicsEnv is what the car's step meets: the session's world, or a
// replay's record of it.
func (s *Session) physicsEnv() car.Env {
	if p := s.rp.play; p != nil {
		return &p.env
	}
	return s.carEnv()
}

// recordStep records the step just run: its controls, what it touched
// (the traffic is computed again in a replay), what began, and the
// checksums when due.
func (s *Session) recordStep(q replay.Input) {
	st := &s.rp
	obst, blocks := s.car.Touched(st.touched[:0], st.blocks[:0])
	kept := obst[:0]
	for _, o := range obst {
		if o.Kind != slots.ObstacleTraffic {
			kept = append(kept, o)
		}
	}
	st.touched, st.blocks = kept, blocks
	st.rec.Step(q, kept, blocks)
	s.recordIncidents(st.rec)
	if st.n%checkEvery == 0 || st.rec.CutDue() {
		st.rec.Check(s.checksums())
	}
	if st.rec.CutDue() {
		st.rec.Cut()
	}
}

// recordIncidents records what the last step began.
func (s *Session) recordIncidents(rec *replay.Recorder) {
	if s.drive.Contacts > s.rp.counts[0] {
		rec.Incident(replay.Contact)
	}
	if s.drive.StuckEpisodes > s.rp.counts[1] {
		rec.Incident(replay.Stuck)
	}
}

// checksums are the car's and the traffic's state as numbers, hashed.
func (s *Session) checksums() (carSum, trafficSum uint32) {
	h := replay.NewHash()
	c := s.car
	for _, f := range [...]float64{c.Pos.X, c.Pos.Z, c.Y, c.Heading, c.Vel.X, c.Vel.Z, c.Steer, c.Impact} {
		h.Float(f)
	}
	h.Uint(uint64(c.Contacts))
	carSum = h.Sum32()
	if e := s.env; e != nil && e.vehicles != nil {
		t := replay.NewHash()
		vs := e.vehicles.Vehicles()
		for i := range vs {
			v := &vs[i]
			t.Uint(v.Key.Edge)
			t.Uint(uint64(v.Key.Cycle)<<32 | uint64(v.Key.Lane)<<16 | uint64(uint16(v.Key.K)))
			t.Float(v.Pos.X)
			t.Float(v.Pos.Z)
			t.Float(v.Y)
		}
		trafficSum = t.Sum32()
	}
	return carSum, trafficSum
}

// syncWorldClock keeps the simulation's world clock with the server's at
// the frame's start (live only): the traffic runs on it, steps later; it
// is set again when it drifts by over maxWorldDrift (and recorded), so
// between settings it is a function of the step count alone. steps and
// game are the frame's.
func (s *Session) syncWorldClock(steps int, game float64) {
	st := &s.rp
	if st.play != nil {
		return
	}
	end := st.n + uint64(steps)
	// The world time at the end of the frame's last step: the frame's end
	// less what the step clock holds over.
	rate := s.worldRate()
	target := s.worldTime(s.clock+game) - s.steps.acc*rate
	if st.clocked && st.clock.Rate == rate && math.Abs(st.worldAt(end)-target) <= maxWorldDrift {
		return
	}
	st.clock = replay.Clock{World: target - rate*float64(end-st.n)*physicsStep, Rate: rate}
	st.clockN, st.clocked = st.n, true
	if st.rec != nil {
		st.rec.Clock(st.clock)
	}
}

// worldRate is the world clock's rate: the server's time per real time
// (a slowed server's, worldtime.go).
func (s *Session) worldRate() float64 { return s.world.rate }

// sampleRemote samples the other players' cars near this one (live), in
// player order, as the traffic brakes for them and a replay shows them.
func (s *Session) sampleRemote() {
	st := &s.rp
	had := len(st.remote) > 0
	st.remote, st.remoteN = st.remote[:0], st.n
	if s.link == nil {
		return
	}
	for _, p := range s.link.cars.Poses(s.clock) {
		if d := (world.Vec2{X: p.X - s.car.Pos.X, Z: p.Z - s.car.Pos.Z}); d.Dot(d) > remoteRadius*remoteRadius || len(st.remote) == replay.MaxRemote {
			continue
		}
		st.remote = append(st.remote, wire.QuantiseCar(p.Player, 0, p.X, p.Y, p.Z, p.Heading, p.Speed))
	}
	sortCars(st.remote)
	if st.rec != nil && (had || len(st.remote) > 0) {
		st.rec.Remote(st.remote)
	}
}

// sortCars sorts cars by player (few: insertion).
func sortCars(cs []replay.Car) {
	for i := 1; i < len(cs); i++ {
		for j := i; j > 0 && cs[j].Player < cs[j-1].Player; j-- {
			cs[j], cs[j-1] = cs[j-1], cs[j]
		}
	}
}

// startRecording begins the drive's replay (New), with the car at pos
// facing dir.
func (s *Session) startRecording(pos, dir world.Vec2) {
	o := s.opt
	s.rp.rec = replay.NewRecorder(replay.Header{
		Seed: o.World.Seed, Protocol: wire.ProtocolVersion, Generator: gen.Version, Build: buildName(), Sim: simRates,
		Start: [2]float64{pos.X, pos.Z}, Dir: [2]float64{dir.X, dir.Z}, TimeOfDay: o.TimeOfDay, Weather: uint8(o.Weather),
		Traffic: o.Traffic, Autopilot: o.Autopilot, FixedStep: o.FixedStep, Recorded: s.startedAt.UnixNano(),
	})
	if o.RecordIncidents {
		s.rp.rec.CutAfter(incidentTail, maxIncidentReplays)
	}
}

// Recording is the drive's replay so far, its last state checked (nil
// when not recorded).
func (s *Session) Recording() *replay.Recorder {
	if s.rp.rec != nil {
		s.rp.rec.Check(s.checksums())
	}
	return s.rp.rec
}

// recordPlace records the car put at pos facing dir (a reset when reset).
func (s *Session) recordPlace(pos, dir world.Vec2, reset bool) {
	if s.rp.rec != nil {
		s.rp.rec.Place(replay.Place{Pos: [2]float64{pos.X, pos.Z}, Dir: [2]float64{dir.X, dir.Z}, Reset: reset})
	}
}

// buildName is this binary's version and commit, for a replay's header.
func buildName() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	name := bi.Main.Version
	for _, st := range bi.Settings {
		if st.Key == "vcs.revision" {
			name += " " + st.Value
		}
	}
	return name
}
