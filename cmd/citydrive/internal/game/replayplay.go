package game

import (
	"fmt"
	"math"

	"citydrive/cmd/citydrive/internal/car"
	"citydrive/cmd/citydrive/internal/remote"
	"citydrive/cmd/citydrive/internal/replay"
	"citydrive/render/input"
	"citydrive/render/scene"
	"citydrive/roadgraph/world"
	"citydrive/slots"
	"citydrive/voxel/gen"
)

// A replay plays a recorded drive back through the same simulation
// (sim.go): the steps' controls, places and world clock come from the
// file, the car meets what it touched then and the traffic it computes
// again, so every step is the recording's to the bit; the checksums and
// incidents in the file say where it is not. The roads, the ground and
// the drawing stream around the car as in a drive. In a window: Space
// pauses, Left/Right seek 10 s (back: from the start again, fast), Up/Down
// change the speed; the camera keys, the HUD and the pause menu are the
// game's.

// playback is the replay being played.
type playback struct {
	rp   *replay.Replay
	p    *replay.Player
	b    *replay.Boundary // the boundary before the next step
	in   replay.Input     // the next step's controls
	more bool             // there is a next step
	env  replayEnv
	cars *remote.Cars // the other players' cars as recorded, drawn
	seq  uint32       // of their samples

	checks    int // checksums compared
	checkedAt uint64
	diff      *Divergence
	incidents []replay.Incident // what the replay did

	paused bool
	speed  float64
}

// replayEnv is the car's world in a replay: the world's surface, the
// obstacles and blocks the recorded step touched, and the traffic.
type replayEnv struct {
	*carEnv
	obst   []slots.Obstacle
	blocks [][2]int64
}

// AppendObstacles gives the recorded step's obstacles, then the traffic,
// in the order the live step had them.
func (e *replayEnv) AppendObstacles(dst []slots.Obstacle, x, z, r float64) []slots.Obstacle {
	return e.appendTraffic(append(dst, e.obst...), x, z, r)
}

// Solid is true in the block columns the recorded step touched.
func (e *replayEnv) Solid(x, _, z int64) bool {
	for _, b := range e.blocks {
		if b == [2]int64{x, z} {
			return true
		}
	}
	return false
}

// Divergence is where a replay first went another way than its
// recording.
type Divergence struct {
	Step  uint64 // the car had run this many steps when it showed
	Since uint64 // the last step checked equal before it (0: the start)
	What  string // what differed
}

func (d *Divergence) String() string {
	return fmt.Sprintf("%s after step %d (%s); the same at step %d (%s)", d.What, d.Step, clockOf(d.Step), d.Since, clockOf(d.Since))
}

// clockOf is n steps as minutes and seconds.
func clockOf(n uint64) string {
	s := float64(n) / PhysicsHz
	return fmt.Sprintf("%d:%06.3f", int(s)/60, math.Mod(s, 60))
}

// ReplayResult is what playing a replay through found.
type ReplayResult struct {
	Steps     uint64            // steps played
	Checks    int               // checksums compared
	Diverged  *Divergence       // nil: every checksum and incident as recorded
	Incidents []replay.Incident // what the replay did
	Drive     DriveStats
}

// replayOptions sets what a replay decides of a session, and refuses one
// this build cannot play.
func replayOptions(o *Options) error {
	rp := o.Replay
	if rp == nil {
		return nil
	}
	h := rp.Header
	switch {
	case o.Net != nil:
		return fmt.Errorf("a replay plays offline: no server")
	case h.Sim != simRates:
		return fmt.Errorf("the replay was simulated at %+v, this build at %+v", h.Sim, simRates)
	case h.Generator != gen.Version:
		return fmt.Errorf("the replay's terrain generator is version %d, this build's %d: its world is another", h.Generator, gen.Version)
	case h.Seed != o.World.Seed:
		return fmt.Errorf("the replay is of seed %d, not %d", h.Seed, o.World.Seed)
	}
	o.Start = world.Vec2{X: h.Start[0], Z: h.Start[1]}
	o.TimeOfDay, o.Weather, o.Traffic = h.TimeOfDay, scene.Weather(h.Weather), h.Traffic
	o.Autopilot, o.Record, o.RecordIncidents = false, false, false
	return nil
}

// startReplay sets the session up to play Options.Replay (New) and
// returns where the car starts.
func (s *Session) startReplay() (pos, dir world.Vec2) {
	p := &playback{rp: s.opt.Replay, speed: 1}
	p.env.carEnv = s.carEnv()
	p.rewind()
	s.rp.play = p
	h := p.rp.Header
	return world.Vec2{X: h.Start[0], Z: h.Start[1]}, world.Vec2{X: h.Dir[0], Z: h.Dir[1]}
}

// rewind goes back to the start of the file.
func (p *playback) rewind() {
	p.p = p.rp.Player()
	p.b, p.in, p.more = p.p.Next()
	p.cars, p.seq = remote.New(), 0
	p.checks, p.checkedAt, p.diff, p.incidents = 0, 0, nil, p.incidents[:0]
}

// before applies the boundary before the next step; false when there is
// no next step.
func (p *playback) before(s *Session) bool {
	if !p.more {
		return false
	}
	st := &s.rp
	for _, pl := range p.b.Places {
		pos, dir := world.Vec2{X: pl.Pos[0], Z: pl.Pos[1]}, world.Vec2{X: pl.Dir[0], Z: pl.Dir[1]}
		s.car = car.New(pos, dir, s.carEnv())
		s.prev = poseOf(s.car)
		if pl.Reset {
			s.drive.Resets++
		}
	}
	if p.b.HasClock {
		st.clock, st.clockN, st.clocked = p.b.Clock, st.n, true
	}
	if p.b.HasRemote {
		st.remote, st.remoteN = append(st.remote[:0], p.b.Remote...), st.n
		p.seq++
		for i := range st.remote {
			st.remote[i].Seq = p.seq
		}
		p.cars.Observe(float64(st.n)*physicsStep, st.remote)
	}
	p.env.obst, p.env.blocks = p.p.Touched()
	return true
}

// after compares the step just run with the recording: the incidents it
// began and, where the file has them, the checksums.
func (p *playback) after(s *Session) {
	st := &s.rp
	var did [2]bool
	did[0] = s.drive.Contacts > st.counts[0]
	did[1] = s.drive.StuckEpisodes > st.counts[1]
	for i, k := range [...]replay.Kind{replay.Contact, replay.Stuck} {
		if did[i] {
			p.incidents = append(p.incidents, replay.Incident{Kind: k, Step: st.n})
		}
	}
	p.b, p.in, p.more = p.p.Next()
	var rec [2]bool
	for _, k := range p.b.Incidents {
		rec[k-1] = true
	}
	for i, k := range [...]replay.Kind{replay.Contact, replay.Stuck} {
		switch {
		case did[i] && !rec[i]:
			p.differ(st.n, fmt.Sprintf("a %s the recording does not have", k))
		case rec[i] && !did[i]:
			p.differ(st.n, fmt.Sprintf("no %s where the recording has one", k))
		}
	}
	if p.b.HasCheck {
		p.checks++
		c, t := s.checksums()
		switch {
		case c != p.b.Car:
			p.differ(st.n, "the car")
		case t != p.b.Traffic:
			p.differ(st.n, "the traffic")
		case p.diff == nil:
			p.checkedAt = st.n
		}
	}
}

func (p *playback) differ(n uint64, what string) {
	if p.diff == nil {
		p.diff = &Divergence{Step: n, Since: p.checkedAt, What: what}
	}
}

// result is what the replay found so far.
func (p *playback) result(s *Session) ReplayResult {
	return ReplayResult{Steps: s.rp.n, Checks: p.checks, Diverged: p.diff,
		Incidents: append([]replay.Incident(nil), p.incidents...), Drive: s.drive.DriveStats}
}

// CheckReplay plays rp through headless as fast as it goes and compares
// it with its checksums and incidents. opt gives the world and the
// streaming (which only the drawing needs: nothing is streamed).
func CheckReplay(rp *replay.Replay, opt Options) (ReplayResult, error) {
	opt.Replay, opt.Display, opt.FixedStep = rp, NewHeadless(), true
	opt.Streaming.Workers = 0
	s, err := New(opt)
	if err != nil {
		return ReplayResult{}, err
	}
	defer s.Close()
	return s.PlayThrough(), nil
}

// PlayThrough runs the replay's steps to its end at once.
func (s *Session) PlayThrough() ReplayResult {
	p := s.rp.play
	if p == nil {
		return ReplayResult{}
	}
	s.setCamera() // the far traffic's view
	for p.more {
		s.simulate(PhysicsHz, car.Input{})
		s.clock = float64(s.rp.n) * physicsStep
	}
	return p.result(s)
}

// ReplayResult is what the replay being played found so far (false when
// the session plays none).
func (s *Session) ReplayResult() (ReplayResult, bool) {
	if p := s.rp.play; p != nil {
		return p.result(s), true
	}
	return ReplayResult{}, false
}

// Replay seek and speed steps.
const (
	seekStep = 10 * PhysicsHz
	maxSpeed = 8.0
	minSpeed = 0.25
)

// replayFrame is a replay's part of a frame in a window: its keys, and
// the frame's game time at its speed (none while paused). The recorded
// drive's own controls are the file's: the hands, a reset, the autopilot
// and edits do nothing.
func (s *Session) replayFrame(in Controls, dt float64) (Controls, float64) {
	p := s.rp.play
	if p == nil {
		return in, dt
	}
	in.Drive = car.Input{}
	in.Reset, in.ToggleAutopilot, in.Dig, in.Build = false, false, false, false
	k := s.r
	switch {
	case k.Pressed(input.KeySpace):
		p.paused = !p.paused
	case k.Pressed(input.KeyRight):
		s.SeekReplay(int64(s.rp.n) + seekStep)
	case k.Pressed(input.KeyLeft):
		s.SeekReplay(int64(s.rp.n) - seekStep)
	case k.Pressed(input.KeyUp):
		p.speed = math.Min(maxSpeed, p.speed*2)
	case k.Pressed(input.KeyDown):
		p.speed = math.Max(minSpeed, p.speed/2)
	}
	if p.paused || !p.more {
		return in, 0
	}
	return in, dt * p.speed
}

// SeekReplay goes to step n of the replay (clamped to it): on from here,
// or from the start again, the steps run at once.
func (s *Session) SeekReplay(n int64) {
	p := s.rp.play
	if p == nil {
		return
	}
	n = max(0, min(n, int64(p.rp.Steps)))
	if uint64(n) < s.rp.n {
		s.restartReplay()
	}
	for p.more && s.rp.n < uint64(n) {
		s.simulate(int(min(uint64(n)-s.rp.n, PhysicsHz)), car.Input{})
	}
	s.prev = poseOf(s.car)
}

// restartReplay puts the replay back at its start: the car where it
// began, the traffic new, the drive's figures zero.
func (s *Session) restartReplay() {
	p := s.rp.play
	if e := s.env; e != nil && e.traffic != nil {
		e.traffic.Close()
		e.traffic, e.vehicles = nil, nil
		s.driver.Traffic = nil
	}
	s.drive = driveLog{onStuck: s.drive.onStuck, onContact: s.drive.onContact}
	s.rp = simState{play: p, touched: s.rp.touched, blocks: s.rp.blocks, each: s.rp.each}
	p.rewind()
	h := p.rp.Header
	s.car = car.New(world.Vec2{X: h.Start[0], Z: h.Start[1]}, world.Vec2{X: h.Dir[0], Z: h.Dir[1]}, s.carEnv())
	s.prev = poseOf(s.car)
}

// appendReplayHUD adds the replay's line: where it is, its speed, its
// keys, and where it went another way than the recording.
func (s *Session) appendReplayHUD(hud []string) []string {
	p := s.rp.play
	if p == nil {
		return hud
	}
	state := "PLAYING"
	switch {
	case !p.more:
		state = "END"
	case p.paused:
		state = "PAUSED"
	}
	hud = append(hud, fmt.Sprintf("REPLAY %s  %s / %s  x%g   SPACE PAUSE  LEFT/RIGHT 10 S  UP/DOWN SPEED",
		state, clockOf(s.rp.n), clockOf(p.rp.Steps), p.speed))
	if p.diff != nil {
		hud = append(hud, "NOT AS RECORDED: "+p.diff.String())
	}
	return hud
}
