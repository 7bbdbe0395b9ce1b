package traffic

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/roadgraph/world"
)

// A lane bends with its road: its point moves on smoothly through the
// edge's nodes (no sideways step where the segments turn), and it keeps
// LaneOffset to the right of the centre line, on both lanes.
func TestLanesAreContinuousAndKeepTheirOffset(t *testing.T) {
	w := world.New(412)
	s := NewSchedule(w, 17.5)
	s.nearby(downtown412, 400)
	require.NotEmpty(t, s.near)
	const step = 0.05
	bends := 0
	for _, g := range s.near {
		if len(g.nodes) < 3 {
			continue
		}
		bends++
		for l := uint8(0); l < 2; l++ {
			prev, _ := g.lanePoint(l, 0)
			for u := step; u <= g.length; u += step {
				p, d := g.lanePoint(l, u)
				require.Less(t, p.Sub(prev).Len(), 2*step, "edge %d lane %d: a step at %.2f m", g.spec.ID, l, u)
				prev = p
				assert.InDelta(t, 1, d.Len(), 1e-9)
			}
		}
		// at each segment's middle the lane is LaneOffset from the centre
		for i := 0; i+1 < len(g.nodes); i++ {
			mid := g.nodes[i].Lerp(g.nodes[i+1], 0.5)
			sm := (g.cum[i] + g.cum[i+1]) / 2
			p0, _ := pointAt(g.nodes, g.cum, g.dirs, g.offs, 0, len(g.nodes), sm, 0)
			p1, _ := pointAt(g.nodes, g.cum, g.dirs, g.offs, 0, len(g.nodes), sm, 1)
			off0 := p0.Sub(mid).Dot(right(g.dirs[i]))
			off1 := p1.Sub(mid).Dot(right(g.dirs[i]))
			assert.InDelta(t, LaneOffset, off0, 0.01, "edge %d segment %d lane 0", g.spec.ID, i)
			assert.InDelta(t, -LaneOffset, off1, 0.01, "edge %d segment %d lane 1", g.spec.ID, i)
		}
	}
	assert.Greater(t, bends, 20, "curving edges downtown")
}
