package traffic

import (
	"math"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"citydrive/roadgraph"
	"citydrive/roadgraph/world"
)

const testSeed = 1

// busyJunction is a signalled junction near the origin of the test world.
func busyJunction(t testing.TB, w world.World) (world.Cell, world.Vec2) {
	for r := int32(0); r < 6; r++ {
		for i := -r; i <= r; i++ {
			for j := -r; j <= r; j++ {
				c := world.Cell{I: i, J: j}
				// off the trunks: the tests set their scenes on streets
				if p, ok := w.Junction(c); ok && !c.OnTrunk() && len(w.Arms(c, nil)) == 4 {
					return c, p
				}
			}
		}
	}
	t.Fatal("no four-way junction near the origin")
	return world.Cell{}, world.Vec2{}
}

// bothModels runs f with the platoons driving through and queued at the
// signals.
func bothModels(t *testing.T, f func(t *testing.T, queues bool)) {
	for _, q := range []bool{false, true} {
		t.Run(map[bool]string{false: "through", true: "queued"}[q], func(t *testing.T) { f(t, q) })
	}
}

func TestTwoSchedulesAgreeWhateverTheyWereAskedBefore(t *testing.T) {
	w := world.New(testSeed)
	_, p := busyJunction(t, w)
	a, b := NewSchedule(w, 17.5), NewSchedule(w, 17.5)
	// Warm the two in different orders, at other places and times.
	for _, q := range []world.Vec2{{X: 3000, Z: -2000}, p, {X: -900, Z: 450}} {
		a.Vehicles(100, q, 300, nil)
	}
	for _, q := range []world.Vec2{{X: -900, Z: 450}, {X: 600, Z: 600}} {
		b.Vehicles(7, q, 300, nil)
	}
	seen := 0
	for _, tt := range []float64{0, 12.3, 1000.05, 86400 + 3.7} {
		va := a.Vehicles(tt, p, 250, nil)
		vb := b.Vehicles(tt, p, 250, nil)
		require.Len(t, vb, len(va), "t=%v", tt)
		for i := range va {
			require.Equal(t, va[i].Key, vb[i].Key)
			assert.Less(t, va[i].Pos.Sub(vb[i].Pos).Len(), 0.1, "vehicle %+v", va[i].Key)
		}
		seen += len(va)
	}
	assert.Greater(t, seen, 40, "a busy junction at rush hour has traffic")
}

// Vehicles run on the lanes of the road graph, whichever way it was grown:
// on an edge both graphs loaded, LaneOffset right of its centre line.
func TestVehiclesRunOnTheRightHandLaneOfTheLoadedGraph(t *testing.T) {
	w := world.New(testSeed)
	_, p := busyJunction(t, w)
	g1, g2 := roadgraph.New(w), roadgraph.New(w)
	g1.EnsureAround(p)
	for _, q := range []world.Vec2{p.Add(world.Vec2{X: 600}), p.Add(world.Vec2{X: 300, Z: 150}), p} {
		g2.EnsureAround(q)
	}
	s := NewSchedule(w, 12)
	checked := 0
	for tt := 0.0; tt < SignalPeriod; tt += 1.7 {
		for _, v := range s.Vehicles(tt, p, 200, nil) {
			e1, e2 := g1.Edge(v.Key.Edge), g2.Edge(v.Key.Edge)
			require.NotNil(t, e1, "vehicle on an edge the graph does not hold")
			require.NotNil(t, e2)
			if v.U > v.Stop {
				continue // turning through a junction
			}
			near := nearestPoint(e1.Nodes, v.Pos)
			off := v.Pos.Sub(near)
			assert.InDelta(t, LaneOffset, off.Len(), 0.15, "distance from the centre line")
			assert.Greater(t, off.Dot(right(v.Dir)), 0.0, "on the right of the centre line")
			assert.Equal(t, e1.Nodes, e2.Nodes)
			checked++
		}
	}
	assert.Greater(t, checked, 20)
}

func nearestPoint(nodes []world.Vec2, p world.Vec2) world.Vec2 {
	best, bd := nodes[0], math.Inf(1)
	for i := 0; i+1 < len(nodes); i++ {
		a, b := nodes[i], nodes[i+1]
		ab := b.Sub(a)
		f := math.Max(0, math.Min(1, p.Sub(a).Dot(ab)/ab.Dot(ab)))
		q := a.Add(ab.Scale(f))
		if d := q.Dist2(p); d < bd {
			best, bd = q, d
		}
	}
	return best
}

// Every vehicle crosses its stop line on green, as the junction's signal
// shows it: the lights everyone agrees on.
func TestVehiclesCrossTheStopLineOnGreen(t *testing.T) {
	bothModels(t, func(t *testing.T, queues bool) {
		w := world.New(testSeed)
		_, p := busyJunction(t, w)
		s := newSchedule(w, 17.5, queues)
		const dt = 0.25
		crossings := 0
		for tt := 0.0; tt < 3*SignalPeriod; tt += dt {
			for _, v := range s.Vehicles(tt, p, 300, nil) {
				if v.U > v.Stop || v.U <= v.Stop-v.Speed*dt {
					continue
				}
				e, ok := w.Edge(v.Key.Edge)
				require.True(t, ok)
				end := e.B
				if v.Key.Lane == 1 {
					end = e.A
				}
				arms := len(w.Arms(end, nil))
				// it crosses within dt after tt
				light := SignalLight(world.JunctionID(end), arms, e.Dir, tt+dt/2)
				assert.Equal(t, Green, light, "vehicle %+v at the stop line", v.Key)
				if arms >= SignalArms {
					crossings++
				}
			}
		}
		assert.Greater(t, crossings, 20)
	})
}

func TestSignalsAlternateBetweenAxes(t *testing.T) {
	w := world.New(testSeed)
	c, _ := busyJunction(t, w)
	id := world.JunctionID(c)
	green := map[world.Dir]float64{}
	for tt := 0.0; tt < SignalPeriod; tt += 0.1 {
		x, z := SignalLight(id, 4, world.DirX, tt), SignalLight(id, 4, world.DirZ, tt)
		assert.False(t, x == Green && z == Green, "both axes green at %v", tt)
		assert.True(t, x == Red || z == Red, "one axis is red at %v", tt)
		if x == Green {
			green[world.DirX] += 0.1
		}
		if z == Green {
			green[world.DirZ] += 0.1
		}
		assert.Equal(t, Green, SignalLight(id, 2, world.DirX, tt), "a bend has no signal")
	}
	assert.InDelta(t, greenLength, green[world.DirX], 0.2)
	assert.InDelta(t, greenLength, green[world.DirZ], 0.2)
}

// The signals are a green wave east and south: a car that leaves one
// junction as its light turns green and goes on at waveSpeed reaches the
// next one, a cell on, as that one turns green too, whichever the seed.
func TestSignalsMakeAGreenWave(t *testing.T) {
	greenAt := func(c world.Cell, d world.Dir) float64 {
		id := world.JunctionID(c)
		for tt := 0.0; tt < SignalPeriod; tt += 0.01 {
			if SignalLight(id, 4, d, tt) == Green && SignalLight(id, 4, d, tt-0.01) != Green {
				return tt
			}
		}
		t.Fatalf("no green at %v", c)
		return 0
	}
	rapid.Check(t, func(rt *rapid.T) {
		c := world.Cell{I: rapid.Int32Range(-20000, 20000).Draw(rt, "i"), J: rapid.Int32Range(-20000, 20000).Draw(rt, "j")}
		for _, d := range []world.Dir{world.DirX, world.DirZ} {
			next := world.Cell{I: c.I + 1, J: c.J}
			if d == world.DirZ {
				next = world.Cell{I: c.I, J: c.J + 1}
			}
			late := floorMod(greenAt(next, d)-greenAt(c, d), SignalPeriod)
			assert.InDelta(rt, world.CellSize/waveSpeed, late, 0.02, "%v along %v", c, d)
		}
	})
}

// Vehicles within a radius are all of them: none is left out because
// its turn through a junction bulges beyond its edge's nodes.
func TestVehiclesWithinARadiusAreAllOfThem(t *testing.T) {
	for _, seed := range []uint64{412, testSeed} {
		w := world.New(seed)
		s, wide := NewSchedule(w, 17.5), NewSchedule(w, 17.5)
		_, p := busyJunction(t, w)
		found := 0
		for i := range 400 {
			c := p.Add(world.Vec2{X: float64(i%20)*23 - 230, Z: float64(i/20)*29 - 290})
			tt := 1000 + 0.73*float64(i)
			for _, r := range []float64{20, 50, 120} {
				got := map[Key]bool{}
				for _, v := range s.Vehicles(tt, c, r, nil) {
					got[v.Key] = true
				}
				for _, v := range wide.Vehicles(tt, c, r+300, nil) {
					if v.Pos.Dist2(c) <= r*r {
						found++
						assert.True(t, got[v.Key], "seed %d: %+v, %.1f m from %v (radius %v), left out", seed, v.Key, v.Pos.Sub(c).Len(), c, r)
					}
				}
			}
		}
		assert.Greater(t, found, 5000, "seed %d: busy streets", seed)
	}
}

// A vehicle moves smoothly, along its lane and through its turn.
func TestVehiclesMoveWithoutJumps(t *testing.T) {
	bothModels(t, func(t *testing.T, queues bool) {
		w := world.New(testSeed)
		_, p := busyJunction(t, w)
		s := newSchedule(w, 17.5, queues)
		const dt = 0.05
		prev := map[Key]Vehicle{}
		moves, standing := 0, 0
		for tt := 0.0; tt < 2*SignalPeriod; tt += dt {
			next := map[Key]Vehicle{}
			for _, v := range s.Vehicles(tt, p, 250, nil) {
				if u, ok := prev[v.Key]; ok {
					d := v.Pos.Sub(u.Pos).Len()
					if u.Speed == 0 && v.Speed == 0 {
						require.Zero(t, d, "vehicle %+v stands still in its queue", v.Key)
						standing++
					}
					// the lane's offset line kinks at its nodes by up to ~15 cm
					require.Less(t, d, 2*max(v.Speed, u.Speed)*dt+0.2, "vehicle %+v jumped at U %.1f (stop %.1f)", v.Key, v.U, v.Stop)
					require.LessOrEqual(t, u.U, v.U, "vehicle %+v never backs up", v.Key)
					moves++
				}
				next[v.Key] = v
			}
			prev = next
		}
		assert.Greater(t, moves, 1000)
		if queues {
			assert.Greater(t, standing, 100, "queues at the red")
		}
	})
}

func TestRushHourDowntownIsBusierThanNight(t *testing.T) {
	w := world.New(testSeed)
	_, p := busyJunction(t, w)
	rush, night := NewSchedule(w, 17.5), NewSchedule(w, 3)
	nr, nn := 0, 0
	for tt := 0.0; tt < 4*SignalPeriod; tt += 3.1 {
		nr += len(rush.Vehicles(tt, p, 300, nil))
		nn += len(night.Vehicles(tt, p, 300, nil))
	}
	assert.Greater(t, nr, 2*nn)
	assert.Greater(t, nn, 0)
	assert.Greater(t, districtFactor(world.Downtown), districtFactor(world.Fields))
}

func TestVehiclesDoNotAllocateOnceWarm(t *testing.T) {
	w := world.New(testSeed)
	_, p := busyJunction(t, w)
	s := NewSchedule(w, 17.5)
	dst := make([]Vehicle, 0, 1024)
	s.Vehicles(0, p, 250, dst)
	tt := 0.0
	allocs := testing.AllocsPerRun(200, func() {
		tt += 1.0 / 60
		dst = s.Vehicles(tt, p.Add(world.Vec2{X: tt}), 250, dst[:0])
	})
	assert.Zero(t, allocs)
}

// The light a drawn signal head shows from its stored offset and the
// clock is the light the schedule's lanes obey, at every moment of a few
// cycles, for both axes of a signalled junction.
func TestSignalOffsetShowsTheScheduleLight(t *testing.T) {
	w := world.New(412)
	lat := world.NewCache(w)
	var specs []world.EdgeSpec
	checked := 0
	for i := int32(0); i < 6 && checked < 6; i++ {
		c := world.Cell{I: i, J: 2}
		specs = lat.Arms(c, specs[:0])
		if len(specs) < SignalArms {
			continue
		}
		s := NewSchedule(w, 8)
		for _, e := range specs {
			atB := e.B == c
			off := SignalOffset(world.JunctionID(c), e.Dir)
			for tt := 1000.0; tt < 1000+3*SignalPeriod; tt += 0.25 {
				require.Equal(t, s.Light(e.ID, atB, tt), ShowLight(floorMod(tt, SignalPeriod)+off), "edge %d at %v", e.ID, tt)
			}
			checked++
		}
	}
	require.Greater(t, checked, 2, "signalled approaches checked")
}

func TestHeightsCoverTheLongestEdge(t *testing.T) {
	assert.GreaterOrEqual(t, float64(maxHeights), world.MaxSegments*world.SegmentLength/heightStep+2)
}

// Vehicles stand on the road: the memoised heights are the surface's
// within a few centimetres.
func TestVehiclesStandOnTheRoad(t *testing.T) {
	w := world.New(testSeed)
	_, p := busyJunction(t, w)
	s := NewSchedule(w, 17.5)
	vs := s.Vehicles(1000, p, 250, nil)
	require.NotEmpty(t, vs)
	// A vehicle turning across a junction that is level well below its
	// arms' road can stand up to a metre off it (its height comes from
	// its lanes' memo): a few in a thousand, left for now.
	off := 0
	for _, v := range vs {
		if d := w.Surface(v.Pos.X, v.Pos.Z).Y - v.Y; d > 0.15 || d < -0.15 {
			off++
			t.Logf("%+v at %v: %.2f m off the road", v.Key, v.Pos, -d)
		}
	}
	assert.LessOrEqual(t, off, 2, "of %d vehicles", len(vs))
}

// Vehicles of one lane never run into each other: through the queue at
// the red, its standing and its moving off, and from one cycle's platoon
// to the next, each keeps a car's length and more from the one ahead.
func TestVehiclesOfALaneKeepTheirDistance(t *testing.T) {
	bothModels(t, func(t *testing.T, queues bool) {
		w := world.New(412)
		s := newSchedule(w, 17.5, queues)
		type lane struct {
			edge uint64
			l    uint8
		}
		queued, checked := 0, 0
		for tt := 1000.0; tt < 1000+3*SignalPeriod; tt += 0.1 {
			byLane := map[lane][]float64{}
			for _, v := range s.Vehicles(tt, downtown412, 300, nil) {
				if v.U <= v.Stop+2 {
					k := lane{v.Key.Edge, v.Key.Lane}
					byLane[k] = append(byLane[k], v.U)
				}
				if v.Speed == 0 {
					queued++
				}
			}
			for k, us := range byLane {
				slices.Sort(us)
				for i := 1; i < len(us); i++ {
					require.Greater(t, us[i]-us[i-1], VehicleLength+0.5, "lane %+v at %.1f: %v", k, tt, us)
					checked++
				}
			}
		}
		assert.Greater(t, checked, 10000)
		if queues {
			assert.Greater(t, queued, 10000, "vehicles standing at the red")
		}
	})
}

// A queue holds what fits: room to brake after entering the lane, the
// last across the stop line before the green ends; vehicles arrive in
// order and stand before they move off.
func TestQueuesFitTheirLane(t *testing.T) {
	long := laneTiming{start: 10, stop: 200, speed: 10}
	assert.Equal(t, 6, queueFits(&long), "the green lets six go from standing")
	short := laneTiming{start: 10, stop: 40, speed: 10}
	assert.Equal(t, 3, queueFits(&short), "three have room to brake")
	tiny := laneTiming{start: 10, stop: 20, speed: 10}
	assert.Zero(t, queueFits(&tiny))
	s := NewSchedule(world.New(412), 17.5)
	long.queued, long.most = true, queueFits(&long)
	prevS, prevE := math.Inf(-1), math.Inf(-1)
	for k := range long.most {
		m := s.motion(&long, Key{Edge: 7, Cycle: 3, K: uint8(k)})
		require.Less(t, m.tS, m.tE, "vehicle %d stands before it moves off", k)
		require.Greater(t, m.tS, prevS)
		require.Greater(t, m.tE, prevE)
		prevS, prevE = m.tS, m.tE
		assert.InDelta(t, m.q, uAt(&long, &m, (m.tS+m.tE)/2, 0), 1e-9)
		assert.Zero(t, speedAt(&long, &m, (m.tS+m.tE)/2))
		assert.InDelta(t, long.speed, speedAt(&long, &m, m.tE+accelTime+1), 1e-9)
		// continuous where the phases meet
		for _, at := range []float64{m.tS - decelTime, m.tS, m.tE, m.tE + accelTime} {
			assert.InDelta(t, uAt(&long, &m, at-1e-7, 0), uAt(&long, &m, at+1e-7, 0), 1e-5, "vehicle %d at %v", k, at)
		}
	}
}
