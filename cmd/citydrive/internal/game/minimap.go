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
)

// minimap is the session's map state: the scratch it fills each frame.
type minimap struct {
	view      hud.Minimap
	roads     []float32
	others    []float32
	headingUp bool
}

func newMinimap() minimap {
	return minimap{
		roads:  make([]float32, 0, 4*minimapRoads),
		others: make([]float32, 0, 2*maxRemoteCars),
	}
}

// fill describes the map around (at, heading) for the frame.
func (m *minimap) fill(g *roadgraph.Graph, at world.Vec2, heading float64, others []remote.Pose) *hud.Minimap {
	m.roads = appendRoads(m.roads[:0], g.Edges(), at, minimapRange*math.Sqrt2, minimapStep, minimapRoads)
	m.others = m.others[:0]
	for i, p := range others {
		if i == maxRemoteCars {
			break
		}
		m.others = append(m.others, float32(p.X-at.X), float32(p.Z-at.Z))
	}
	m.view = hud.Minimap{Roads: m.roads, Others: m.others, Heading: heading, HeadingUp: m.headingUp, Range: minimapRange}
	return &m.view
}

// appendRoads appends the edges that come within reach of at as segments
// (x0, z0, x1, z1 relative to at), each at least step long except an
// edge's last, and at most limit segments in all.
func appendRoads(dst []float32, edges []*roadgraph.Edge, at world.Vec2, reach, step float64, limit int) []float32 {
	for _, e := range edges {
		if e.Max.X < at.X-reach || e.Min.X > at.X+reach || e.Max.Z < at.Z-reach || e.Min.Z > at.Z+reach || len(e.Nodes) < 2 {
			continue
		}
		from := e.Nodes[0]
		for i := 1; i < len(e.Nodes); i++ {
			n := e.Nodes[i]
			if i < len(e.Nodes)-1 && n.Sub(from).Len() < step {
				continue
			}
			if math.Max(from.X, n.X) < at.X-reach || math.Min(from.X, n.X) > at.X+reach ||
				math.Max(from.Z, n.Z) < at.Z-reach || math.Min(from.Z, n.Z) > at.Z+reach {
				from = n // out of reach: not drawn, not counted
				continue
			}
			if len(dst) >= 4*limit {
				return dst
			}
			dst = append(dst, float32(from.X-at.X), float32(from.Z-at.Z), float32(n.X-at.X), float32(n.Z-at.Z))
			from = n
		}
	}
	return dst
}

// SetMinimapHeadingUp turns the minimap with the car (true) or keeps
// north up, as key M toggles.
func (s *Session) SetMinimapHeadingUp(on bool) { s.mini.headingUp = on }
