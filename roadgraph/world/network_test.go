package world

import (
	"container/heap"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// The tests named after a seed use only Junction, Arms, Edge, EdgeNodes
// and Height, so they run against the rule before the network rule too
// (where each of them fails).

// farthest is a best-first search over the lattice's roads from cell
// start, farthest junction first: on an endless network it reaches goal
// metres quickly; on a finite component it runs out. It gives up after
// limit junctions.
func farthest(w World, start Cell, goal float64, limit int) (reached float64, visited int) {
	c := NewCache(w)
	p0, ok := c.Junction(start)
	if !ok {
		return 0, 0
	}
	seen := map[Cell]bool{start: true}
	q := &cellHeap{{start, 0}}
	var arms []EdgeSpec
	for q.Len() > 0 && visited < limit {
		at := heap.Pop(q).(cellDist)
		visited++
		reached = math.Max(reached, at.d)
		if reached >= goal {
			return reached, visited
		}
		arms = c.Arms(at.c, arms[:0])
		for _, e := range arms {
			next := e.B
			if next == at.c {
				next = e.A
			}
			if seen[next] {
				continue
			}
			seen[next] = true
			p, _ := c.Junction(next)
			heap.Push(q, cellDist{next, math.Sqrt(p.Dist2(p0))})
		}
	}
	return reached, visited
}

type cellDist struct {
	c Cell
	d float64
}

type cellHeap []cellDist

func (h cellHeap) Len() int           { return len(h) }
func (h cellHeap) Less(i, j int) bool { return h[i].d > h[j].d }
func (h cellHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *cellHeap) Push(x any)        { *h = append(*h, x.(cellDist)) }
func (h *cellHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// spawnCell is the junction a drive starting at p begins from: the
// nearest with arms, searching outwards ring by ring.
func spawnCell(w World, p Vec2, rings int32) (Cell, bool) {
	c := CellAt(p.X, p.Z)
	for r := int32(0); r <= rings; r++ {
		best, bestD, found := Cell{}, math.Inf(1), false
		for di := -r; di <= r; di++ {
			for dj := -r; dj <= r; dj++ {
				if max(abs32(di), abs32(dj)) != r {
					continue
				}
				cc := Cell{c.I + di, c.J + dj}
				if q, ok := w.Junction(cc); ok && len(w.Arms(cc, nil)) > 0 {
					if d := q.Dist2(p); d < bestD {
						best, bestD, found = cc, d, true
					}
				}
			}
		}
		if found {
			return best, true
		}
	}
	return Cell{}, false
}

func abs32(v int32) int32 {
	if v < 0 {
		return -v
	}
	return v
}

const endlessGoal = 10_000.0 // metres a search from the spawn must reach

func TestSeed31337DoesNotStartOnAnIsland(t *testing.T) {
	w := New(31337)
	start, ok := spawnCell(w, Vec2{}, 3)
	require.True(t, ok)
	reached, visited := farthest(w, start, endlessGoal, 200_000)
	assert.GreaterOrEqual(t, reached, endlessGoal, "from the spawn %v the roads reach only %.0f m (%d junctions)", start, reached, visited)
}

// bridgeEnds lists the junctions at the ends of edges whose centre line
// crosses water, around cell c.
func bridgeEnds(w World, c Cell, r int32) []Cell {
	var ends []Cell
	for di := -r; di <= r; di++ {
		for dj := -r; dj <= r; dj++ {
			cc := Cell{c.I + di, c.J + dj}
			for _, e := range w.Arms(cc, nil) {
				if e.A != cc {
					continue
				}
				for _, p := range w.EdgeNodes(e, nil) {
					if w.Height(p.X, p.Z) < WaterLevel+WetMargin {
						ends = append(ends, e.A, e.B)
						break
					}
				}
			}
		}
	}
	return ends
}

// landAround reports whether the ring of radius r around p is land.
func landAround(w World, p Vec2, r float64) bool {
	for k := range 16 {
		a := float64(k) * math.Pi / 8
		if w.Height(p.X+r*math.Cos(a), p.Z+r*math.Sin(a)) < WaterLevel+WetMargin {
			return false
		}
	}
	return true
}

func TestSeed2718BridgesLandOnRoadOnLand(t *testing.T) {
	w := New(2718)
	ends := bridgeEnds(w, CellAt(418, -329), 4)
	require.NotEmpty(t, ends, "the lake there is still bridged")
	for _, c := range ends {
		p, _ := w.Junction(c)
		assert.GreaterOrEqual(t, len(w.Arms(c, nil)), 2, "the bridge's end %v at (%.0f, %.0f) goes on", c, p.X, p.Z)
		assert.True(t, landAround(w, p, sweptRadius-1), "the bridge's end %v at (%.0f, %.0f) stands on land", c, p.X, p.Z)
	}
}

func TestSeed5015HasNoDeadEndOnTheShore(t *testing.T) {
	w := New(5015)
	c := CellAt(13, 577)
	for di := int32(-3); di <= 3; di++ {
		for dj := int32(-3); dj <= 3; dj++ {
			cc := Cell{c.I + di, c.J + dj}
			if p, ok := w.Junction(cc); ok {
				assert.GreaterOrEqual(t, len(w.Arms(cc, nil)), 2, "junction %v at (%.0f, %.0f)", cc, p.X, p.Z)
			}
		}
	}
}

// Seed 34 and 21 others of 1–2000 had no road within three cells of the
// origin.
func TestSeed34Starts(t *testing.T) {
	for _, seed := range []uint64{34, 201, 257, 354, 594, 2000} {
		_, ok := spawnCell(New(seed), Vec2{}, 3)
		assert.True(t, ok, "seed %d", seed)
	}
}

func randomCell(rt *rapid.T, name string) Cell {
	const reach = 1 << 20 // cells: 150,000 km
	return Cell{rapid.Int32Range(-reach, reach).Draw(rt, name+"i"), rapid.Int32Range(-reach, reach).Draw(rt, name+"j")}
}

// The network goes on without end from wherever a drive starts.
func TestPropertySpawnReachesTenKilometres(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		w := New(rapid.Uint64().Draw(rt, "seed"))
		c := randomCell(rt, "start")
		p := Vec2{float64(c.I) * CellSize, float64(c.J) * CellSize}
		start, ok := spawnCell(w, p, TrunkEvery/2)
		require.True(rt, ok, "a road within %d cells of %v", TrunkEvery/2, c)
		reached, visited := farthest(w, start, endlessGoal, 100_000)
		require.GreaterOrEqual(rt, reached, endlessGoal, "from %v: %.0f m over %d junctions", start, reached, visited)
	})
}

// Every junction has a way on (no dead ends), every road reaches a trunk
// within its block, and trunks are complete.
func TestPropertyNoDeadEndsAndEveryRoadMeetsATrunk(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		w := New(rapid.Uint64().Draw(rt, "seed"))
		c := randomCell(rt, "cell")
		cache := NewCache(w)
		p, ok := cache.Junction(c)
		if c.OnTrunk() {
			require.True(rt, ok, "a trunk cell holds a junction")
			require.GreaterOrEqual(rt, len(cache.Arms(c, nil)), 2)
		}
		if !ok {
			return
		}
		_, raw := cache.RawJunction(c)
		require.True(rt, raw, "kept junctions are raw ones")
		arms := cache.Arms(c, nil)
		require.GreaterOrEqual(rt, len(arms), 2, "junction %v at (%.0f, %.0f) is a dead end", c, p.X, p.Z)
		// A walk along the block's roads meets a trunk.
		seen := map[Cell]bool{c: true}
		queue := []Cell{c}
		met := false
		for len(queue) > 0 && !met {
			at := queue[0]
			queue = queue[1:]
			met = at.OnTrunk()
			for _, e := range cache.Arms(at, nil) {
				for _, n := range []Cell{e.A, e.B} {
					if !seen[n] {
						seen[n] = true
						queue = append(queue, n)
					}
				}
			}
		}
		require.True(rt, met, "junction %v reaches no trunk", c)
		require.LessOrEqual(rt, len(seen), blockCells*4, "the search stayed near its block")
	})
}

// Every bridge (an edge whose centre line crosses water) ends at
// junctions whose swept area is land, each with a way on.
func TestPropertyBridgesLandOnRoadOnLand(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		w := New(rapid.Uint64().Draw(rt, "seed"))
		c := randomCell(rt, "cell")
		for _, e := range bridgeEnds(w, c, 2) {
			p, ok := w.Junction(e)
			require.True(rt, ok)
			require.GreaterOrEqual(rt, w.Height(p.X, p.Z), WaterLevel+0.5)
			if !e.OnTrunk() {
				require.True(rt, landAround(w, p, sweptRadius-1), "the bridge end %v at (%.0f, %.0f) stands on land", e, p.X, p.Z)
			}
		}
	})
}

// Found by the property above: eight samples on the ring were dry while
// the shore cut in between two of them (at 202.5°).
func TestAShoreBetweenTheRingSamplesIsSeen(t *testing.T) {
	w := New(0x3df5e0)
	for _, e := range bridgeEnds(w, Cell{-895, 1048574}, 2) {
		p, ok := w.Junction(e)
		require.True(t, ok)
		if !e.OnTrunk() {
			require.True(t, landAround(w, p, sweptRadius-1), "the bridge end %v at (%.0f, %.0f) stands on land", e, p.X, p.Z)
		}
	}
}

// The cache answers what the world answers.
func TestPropertyCacheAgreesWithTheNetworkRule(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		w := New(rapid.Uint64().Draw(rt, "seed"))
		c := randomCell(rt, "cell")
		cache := newCache(w, 16, 1) // tiny: exercises recycling
		for di := int32(-2); di <= 2; di++ {
			for dj := int32(-2); dj <= 2; dj++ {
				cc := Cell{c.I + di*4, c.J + dj*4}
				p1, ok1 := w.Junction(cc)
				p2, ok2 := cache.Junction(cc)
				require.Equal(rt, ok1, ok2, "%v", cc)
				require.Equal(rt, p1, p2)
				require.Equal(rt, w.Arms(cc, nil), cache.Arms(cc, nil))
			}
		}
	})
}

func TestCausewayCarriesATrunkAcrossTheLake(t *testing.T) {
	// Seed 31337's lake: 4 km across on the trunk row J = 0.
	w := New(31337)
	wet := 0
	for x := -2000.0; x <= 2000; x += 5 {
		require.GreaterOrEqual(t, w.Height(x, 0), causewayTop, "on the causeway at x=%v", x)
		if w.Height(x, causewayHalfTop+40) < WaterLevel {
			wet++
		}
	}
	assert.Greater(t, wet, 100, "there is a lake either side")
}

// A cache meeting a new block: its network rule.
func BenchmarkCacheJunctionNewBlocks(b *testing.B) {
	c := NewCache(New(412))
	for i := range b.N {
		c.Junction(Cell{int32(i*TrunkEvery) + 3, 4})
	}
}

func BenchmarkComputeBlock(b *testing.B) {
	w := New(412)
	var bn blockNet
	for i := range b.N {
		computeBlock(w, w, Cell{int32(i%64) * TrunkEvery, 0}, &bn)
	}
}

func BenchmarkRawJunction(b *testing.B) {
	w := New(412)
	for i := range b.N {
		w.RawJunction(Cell{int32(i%1000) + 1, 3})
	}
}

// MinArmAngle is the sharpest angle (degrees) two arms of a junction
// meet at: streets leave a junction along the line to the next, so only
// the jitter of the junctions bends a lattice corner.
const minArmAngle = 45.0

// armAngles is the smallest angle between the arms of the junction in
// cell c (degrees; 180 with fewer than two arms).
func armAngle(c *Cache, cell Cell) float64 {
	var dirs []Vec2
	for _, e := range c.Arms(cell, nil) {
		nodes := c.EdgeNodes(e, nil)
		d := nodes[1].Sub(nodes[0]).Norm()
		if e.A != cell {
			n := len(nodes) - 1
			d = nodes[n-1].Sub(nodes[n]).Norm()
		}
		dirs = append(dirs, d)
	}
	least := 180.0
	for i := range dirs {
		for j := i + 1; j < len(dirs); j++ {
			a := math.Acos(math.Max(-1, math.Min(1, dirs[i].Dot(dirs[j])))) * 180 / math.Pi
			least = math.Min(least, a)
		}
	}
	return least
}

// No hairpins: a car can turn from any arm into any other.
func TestPropertyArmsMeetAtWideAngles(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		w := New(rapid.Uint64().Draw(rt, "seed"))
		c := randomCell(rt, "cell")
		cache := NewCache(w)
		for di := int32(-2); di <= 2; di++ {
			for dj := int32(-2); dj <= 2; dj++ {
				cc := Cell{c.I + di, c.J + dj}
				if _, ok := cache.Junction(cc); ok {
					require.GreaterOrEqual(rt, armAngle(cache, cc), minArmAngle, "junction %v", cc)
				}
			}
		}
	})
}

// Seed 2169's junction at (880, 144) had two arms 35° apart: the autopilot
// stuck in the hairpin for minutes.
func TestSeed2169HasNoHairpin(t *testing.T) {
	w := New(2169)
	c := NewCache(w)
	at := CellAt(880, 144)
	for di := int32(-1); di <= 1; di++ {
		for dj := int32(-1); dj <= 1; dj++ {
			cc := Cell{at.I + di, at.J + dj}
			if _, ok := c.Junction(cc); ok {
				assert.GreaterOrEqual(t, armAngle(c, cc), minArmAngle, "junction %v", cc)
			}
		}
	}
}

// Found by TestPropertyBridgesLandOnRoadOnLand: a junction 2.61 m above
// the lake, taken as dry all round by a slope bound of 0.15 that the shore
// there (0.18) exceeded; its swept ring dipped into the water.
func TestASteepShoreJunctionIsNoBridgeEnd(t *testing.T) {
	w := New(0)
	for _, e := range bridgeEnds(w, Cell{-968240, 3}, 2) {
		p, ok := w.Junction(e)
		require.True(t, ok)
		if !e.OnTrunk() {
			assert.True(t, landAround(w, p, sweptRadius-1), "the bridge end %v at (%.0f, %.0f) stands on land", e, p.X, p.Z)
		}
	}
	_, ok := w.RawJunction(Cell{-968242, 5})
	assert.False(t, ok, "the junction on the steep shore is not a candidate")
}

// The swept-area rule proves a ring dry from samples and maxSlope: the
// terrain's slope must never exceed it, anywhere.
func TestPropertyHeightSlopeIsBounded(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		w := New(rapid.Uint64().Draw(rt, "seed"))
		c := randomCell(rt, "cell")
		x := float64(c.I)*CellSize + rapid.Float64Range(0, CellSize).Draw(rt, "dx")
		z := float64(c.J)*CellSize + rapid.Float64Range(0, CellSize).Draw(rt, "dz")
		a := rapid.Float64Range(0, 2*math.Pi).Draw(rt, "a")
		const d = 0.25
		dh := math.Abs(w.Height(x+d*math.Cos(a), z+d*math.Sin(a)) - w.Height(x, z))
		require.LessOrEqual(rt, dh, maxSlope*d, "slope at (%.1f, %.1f)", x, z)
	})
}

// Near shores, where the bound matters, the steepest slope found stays
// under it with room (a guard against a terrain change that outgrows it).
func TestShoreSlopeIsUnderTheBound(t *testing.T) {
	steepest := 0.0
	for seed := uint64(1); seed <= 200; seed++ {
		w := New(seed)
		for i := range 2000 {
			x := float64(i%50)*37.3 - 900
			z := float64(i/50)*41.9 - 900
			h := w.Height(x, z)
			if h < -1 || h > sweptSure {
				continue
			}
			gx := (w.Height(x+0.25, z) - w.Height(x-0.25, z)) / 0.5
			gz := (w.Height(x, z+0.25) - w.Height(x, z-0.25)) / 0.5
			steepest = max(steepest, math.Hypot(gx, gz))
		}
	}
	assert.Less(t, steepest, maxSlope, "the steepest shore slope")
	assert.Greater(t, steepest, 0.15, "the old bound was too low: the test still sees steep shores")
}
