package game

import (
	"math"

	"citydrive/cmd/citydrive/internal/remote"
	"citydrive/render/hud"
	"citydrive/roadgraph"
	"citydrive/roadgraph/world"
)

// The minimap (key M turns it between north-up and heading-up) shows the
// loaded road graph within minimapRange of the car and the other players.
const (
	minimapRange = 220.0 // metres from the car to the map's edge
	// minimapStep: the shortest road segment drawn (metres). Roads carry a
	// node every few metres; at the map's scale (about a metre per pixel)
	// fewer, longer segments look the same for a fraction of the vertices.
	minimapStep = 12.0
	// minimapRoads bounds the road segments per frame (the scratch never
	// grows past it).
	minimapRoads = 2048
	// minimapRefresh: the roads are gathered again when the graph changes
	// or the car has moved this far (metres); they are gathered this much
	// wider, so nothing the map shows is missing in between.
	minimapRefresh = 25.0
)

// minimap is the session's map state: the scratch it fills each frame.
type minimap struct {
	view      hud.Minimap
	near      []float64 // road segments gathered around gathAt, world metres
	gathered  bool
	graphSig  uint64
	gathAt    world.Vec2
	roads     []float32
	others    []float32
	water     waterGrid
	wet       []float32
	headingUp bool
}

func newMinimap(w world.World) minimap {
	return minimap{
		roads:  make([]float32, 0, 4*minimapRoads),
		near:   make([]float64, 0, 4*minimapRoads),
		others: make([]float32, 0, 2*maxRemoteCars),
		wet:    make([]float32, 0, 4*waterN*waterN/2),
		water:  waterGrid{height: w.Height, runs: make([]waterRun, 0, waterN*waterN/2)},
	}
}

// fill describes the map around (at, heading) for the frame.
func (m *minimap) fill(g *roadgraph.Graph, at world.Vec2, heading float64, others []remote.Pose) *hud.Minimap {
	if d := at.Sub(m.gathAt); !m.gathered || g.Signature() != m.graphSig || d.X*d.X+d.Z*d.Z > minimapRefresh*minimapRefresh {
		m.near = appendRoads(m.near[:0], g.Edges(), at, minimapRange*math.Sqrt2+minimapRefresh, minimapStep, minimapRoads)
		m.gathered, m.graphSig, m.gathAt = true, g.Signature(), at
	}
	m.roads = m.roads[:0]
	for i := 0; i+3 < len(m.near); i += 4 {
		r := m.near[i : i+4]
		m.roads = append(m.roads, float32(r[0]-at.X), float32(r[1]-at.Z), float32(r[2]-at.X), float32(r[3]-at.Z))
	}
	m.water.update(at, waterPerFrame)
	m.wet = m.water.appendRuns(m.wet[:0], at)
	m.others = m.others[:0]
	for i, p := range others {
		if i == maxRemoteCars {
			break
		}
		m.others = append(m.others, float32(p.X-at.X), float32(p.Z-at.Z))
	}
	m.view = hud.Minimap{Roads: m.roads, Water: m.wet, Others: m.others, Heading: heading, HeadingUp: m.headingUp, Range: minimapRange}
	return &m.view
}

// appendRoads appends the parts of edges that come within reach of at as
// segments (x0, z0, x1, z1, world metres), each at least step long except
// an edge's last, and at most limit segments in all.
func appendRoads(dst []float64, edges []*roadgraph.Edge, at world.Vec2, reach, step float64, limit int) []float64 {
	for _, e := range edges {
		if e.Max.X < at.X-reach || e.Min.X > at.X+reach || e.Max.Z < at.Z-reach || e.Min.Z > at.Z+reach || len(e.Nodes) < 2 {
			continue
		}
		from := e.Nodes[0]
		for i := 1; i < len(e.Nodes); i++ {
			n := e.Nodes[i]
			if d := n.Sub(from); i < len(e.Nodes)-1 && d.X*d.X+d.Z*d.Z < step*step {
				continue
			}
			if max(from.X, n.X) < at.X-reach || min(from.X, n.X) > at.X+reach ||
				max(from.Z, n.Z) < at.Z-reach || min(from.Z, n.Z) > at.Z+reach {
				from = n // out of reach: not drawn, not counted
				continue
			}
			if len(dst) >= 4*limit {
				return dst
			}
			dst = append(dst, from.X, from.Z, n.X, n.Z)
			from = n
		}
	}
	return dst
}

// SetMinimapHeadingUp turns the minimap with the car (true) or keeps
// north up, as key M toggles.
func (s *Session) SetMinimapHeadingUp(on bool) { s.mini.headingUp = on }

// The lake on the minimap: a grid of waterCell cells around the car, each
// wet where the terrain lies below the water level. Cells are kept by
// world position in a ring (a cell keeps its slot while the car moves),
// so driving on computes only the new edge, at most waterPerFrame height
// samples a frame (about 0.35 µs each).
const (
	waterCell     = 16.0 // metres
	waterN        = 40   // cells across: 640 m, past the map's corners when turned
	waterPerFrame = 64
)

type waterCellState struct {
	i, j      int32 // the world cell this slot holds
	done, wet bool
}

// waterRun is wet cells i0 ≤ i < i1 of row j.
type waterRun struct{ i0, i1, j int32 }

type waterGrid struct {
	height func(x, z float64) float64
	cells  [waterN * waterN]waterCellState
	// The window last updated, whether every cell of it is sampled, and
	// its runs: a frame with nothing new only converts the runs.
	wi, wj   int32
	complete bool
	runs     []waterRun
}

// window is the first world cell of the grid around at.
func (g *waterGrid) window(at world.Vec2) (i0, j0 int32) {
	return int32(math.Floor(at.X/waterCell)) - waterN/2, int32(math.Floor(at.Z/waterCell)) - waterN/2
}

func (g *waterGrid) slot(i, j int32) *waterCellState {
	m := func(a int32) int32 { return ((a % waterN) + waterN) % waterN }
	return &g.cells[m(j)*waterN+m(i)]
}

// update samples at most budget cells of the window around at that the
// ring does not hold yet, nearest rows first (from the car outwards).
func (g *waterGrid) update(at world.Vec2, budget int) {
	i0, j0 := g.window(at)
	if g.complete && i0 == g.wi && j0 == g.wj {
		return
	}
	g.wi, g.wj = i0, j0
	g.complete = false
	for r := int32(0); r < waterN && budget > 0; r++ {
		// Rows in the order centre, centre-1, centre+1, … .
		dj := (r + 1) / 2
		if r%2 == 1 {
			dj = -dj
		}
		j := j0 + waterN/2 + dj
		if j < j0 || j >= j0+waterN {
			continue
		}
		for i := i0; i < i0+waterN && budget > 0; i++ {
			c := g.slot(i, j)
			if c.done && c.i == i && c.j == j {
				continue
			}
			x, z := (float64(i)+0.5)*waterCell, (float64(j)+0.5)*waterCell
			*c = waterCellState{i: i, j: j, done: true, wet: g.height(x, z) < world.WaterLevel}
			budget--
		}
	}
	g.complete = budget > 0 // nothing was left over (or exactly none)
	g.findRuns()
}

// findRuns collects the window's runs of wet cells along each row.
func (g *waterGrid) findRuns() {
	g.runs = g.runs[:0]
	i0, j0 := g.wi, g.wj
	for j := j0; j < j0+waterN; j++ {
		run, inRun := int32(0), false
		for i := i0; i <= i0+waterN; i++ {
			wet := false
			if i < i0+waterN {
				c := g.slot(i, j)
				wet = c.done && c.i == i && c.j == j && c.wet
			}
			switch {
			case wet && !inRun:
				run, inRun = i, true
			case !wet && inRun:
				g.runs = append(g.runs, waterRun{run, i, j})
				inRun = false
			}
		}
	}
}

// appendRuns appends the runs of wet cells as rectangles relative to at
// (x0, z0, x1, z1).
func (g *waterGrid) appendRuns(dst []float32, at world.Vec2) []float32 {
	for _, r := range g.runs {
		dst = append(dst,
			float32(float64(r.i0)*waterCell-at.X), float32(float64(r.j)*waterCell-at.Z),
			float32(float64(r.i1)*waterCell-at.X), float32(float64(r.j+1)*waterCell-at.Z))
	}
	return dst
}
