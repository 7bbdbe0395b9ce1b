package game

import (
	"github.com/go-gl/mathgl/mgl32"
	"github.com/go-gl/mathgl/mgl64"

	"citydrive/render/scene"
	"citydrive/slots"
)

// originGroups splits a frame's slots into render groups by the origin
// their vertices are relative to: one normally, two while a re-base's
// rebuilds land. A slot of a further origin is not drawn until its own
// rebuild lands. Near and far tiers each keep one.
type originGroups struct {
	g [scene.MaxGroups]scene.Group
	n int
}

// reset empties every group, keeping its slice.
func (o *originGroups) reset() {
	for i := range o.g {
		o.g[i].Slots = o.g[i].Slots[:0]
	}
	o.n = 0
}

// add appends slot sl (count vertices, bounds b in world metres) to the
// group of origin and returns its draw for the caller to complete; nil
// when every group holds another origin.
func (o *originGroups) add(origin [3]float64, sl int32, count int32, b slots.Bounds) *scene.SlotDraw {
	org := mgl64.Vec3(origin)
	gi := -1
	for i := range o.n {
		if o.g[i].Origin == org {
			gi = i
			break
		}
	}
	if gi < 0 {
		if o.n == len(o.g) {
			return nil
		}
		gi = o.n
		o.g[gi].Origin = org
		o.n++
	}
	g := &o.g[gi]
	g.Slots = append(g.Slots, scene.SlotDraw{
		Slot: int(sl), Count: int(count),
		Min: mgl32.Vec3{float32(b.Min[0] - origin[0]), float32(b.Min[1] - origin[1]), float32(b.Min[2] - origin[2])},
		Max: mgl32.Vec3{float32(b.Max[0] - origin[0]), float32(b.Max[1] - origin[1]), float32(b.Max[2] - origin[2])},
	})
	return &g.Slots[len(g.Slots)-1]
}

// groups is the frame's groups, valid until the next reset.
func (o *originGroups) groups() []scene.Group { return o.g[:o.n] }
