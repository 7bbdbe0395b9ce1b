package game

import (
	"fmt"
	"math"

	"citydrive/buildworkers"
	"citydrive/render/scene"
	"citydrive/slots"
)

// The far tier as the frame loop sees it: its slots become Frame.FarGroups
// and the near slots that hold geometry become the near mask, so the
// renderer draws far items only where no near item is (far.go in render).
const (
	maskCell   = 4.0 // metres per near-mask cell
	maskN      = 256 // cells per side: ±512 m around the car
	maskRecent = 128 // metres the car may move before the mask re-centres
)

type farView struct {
	on      bool
	groups  originGroups
	mask    scene.NearMask
	nearVer uint64
	valid   bool
	// full marks mask blocks of blockCells×blockCells cells that are all
	// marked: a far slot whose bounds lie in full blocks only is not drawn
	// at all (every fragment of it would be discarded).
	full   []bool
	hidden int // far slots skipped this frame as wholly under near items
}

const blockCells = 8 // 32 m blocks

// farHUD is the HUD line of the far tier.
func (s *Session) farHUD() string {
	if s.stream.FarTable() == nil {
		return "FAR TIER OFF"
	}
	st := s.stream.FarStats()
	return fmt.Sprintf("FAR %d/%d BUILT  HIDDEN %d  REACH %.0f M AHEAD %.0f BEHIND", st.Built, st.Used, s.far.hidden, st.Reach.Ahead, st.Reach.Behind)
}

// farSinkOf is the display's far region, when it has one and the far tier
// is asked for.
func farSinkOf(d Display, c buildworkers.FarConfig) slots.Sink {
	f, ok := d.(FarSinker)
	if !ok || c.Slots == 0 {
		return nil
	}
	return f.FarSink()
}

// buildFar fills the frame's far groups and near mask.
func (s *Session) buildFar() {
	ft := s.stream.FarTable()
	if ft == nil {
		s.frame.FarGroups, s.frame.NearMask = nil, nil
		return
	}
	f := &s.far
	f.groups.reset()
	v := s.view()
	s.updateMask(v.Pos.X, v.Pos.Z)
	f.hidden = 0
	n := int32(ft.Config().Slots)
	for sl := int32(0); sl < n; sl++ {
		c := ft.Count(sl)
		if c <= 0 {
			continue
		}
		if f.underNear(ft.Bounds(sl)) {
			f.hidden++
			continue
		}
		f.groups.add(s.stream.FarSlotOrigin(sl), sl, c, ft.Bounds(sl))
	}
	s.frame.FarGroups = f.groups.groups()
	s.frame.NearMask = &f.mask
}

// updateMask marks the ground under every near slot that holds geometry
// (its bounds), re-centred on the car when it strays. A near item not yet
// built is not marked, so the far tier still covers its place.
func (s *Session) updateMask(x, z float64) {
	f := &s.far
	m := &f.mask
	table := s.stream.Table()
	half := maskN * maskCell / 2
	cx, cz := m.OriginX+half, m.OriginZ+half
	recentre := !f.valid || math.Abs(x-cx) > maskRecent || math.Abs(z-cz) > maskRecent
	if !recentre && table.Version() == f.nearVer {
		return
	}
	if recentre {
		m.OriginX = math.Round(x/64)*64 - half
		m.OriginZ = math.Round(z/64)*64 - half
	}
	if m.Cells == nil {
		m.Cells = make([]uint8, maskN*maskN)
		m.N, m.Cell = maskN, maskCell
	}
	clear(m.Cells)
	for sl := int32(0); sl < int32(table.Config().Slots); sl++ {
		if table.Count(sl) <= 0 {
			continue
		}
		markBounds(m, table.Bounds(sl))
	}
	f.nearVer, f.valid = table.Version(), true
	m.Version++
	nb := maskN / blockCells
	if f.full == nil {
		f.full = make([]bool, nb*nb)
	}
	for bj := 0; bj < nb; bj++ {
		for bi := 0; bi < nb; bi++ {
			all := true
			for j := bj * blockCells; j < (bj+1)*blockCells && all; j++ {
				row := m.Cells[j*maskN+bi*blockCells : j*maskN+(bi+1)*blockCells]
				for _, c := range row {
					if c == 0 {
						all = false
						break
					}
				}
			}
			f.full[bj*nb+bi] = all
		}
	}
}

// underNear reports whether bounds b lie wholly in fully marked blocks.
func (f *farView) underNear(b slots.Bounds) bool {
	m := &f.mask
	if f.full == nil {
		return false
	}
	bs := m.Cell * blockCells
	nb := maskN / blockCells
	i0, i1 := int(math.Floor((b.Min[0]-m.OriginX)/bs)), int(math.Floor((b.Max[0]-m.OriginX)/bs))
	j0, j1 := int(math.Floor((b.Min[2]-m.OriginZ)/bs)), int(math.Floor((b.Max[2]-m.OriginZ)/bs))
	if i0 < 0 || j0 < 0 || i1 >= nb || j1 >= nb {
		return false
	}
	for j := j0; j <= j1; j++ {
		for i := i0; i <= i1; i++ {
			if !f.full[j*nb+i] {
				return false
			}
		}
	}
	return true
}

// markBounds marks the cells whose centres lie inside b (horizontally).
func markBounds(m *scene.NearMask, b slots.Bounds) {
	i0 := int(math.Ceil((b.Min[0]-m.OriginX)/m.Cell - 0.5))
	i1 := int(math.Floor((b.Max[0]-m.OriginX)/m.Cell - 0.5))
	j0 := int(math.Ceil((b.Min[2]-m.OriginZ)/m.Cell - 0.5))
	j1 := int(math.Floor((b.Max[2]-m.OriginZ)/m.Cell - 0.5))
	i0, j0 = max(i0, 0), max(j0, 0)
	i1, j1 = min(i1, m.N-1), min(j1, m.N-1)
	for j := j0; j <= j1; j++ {
		row := m.Cells[j*m.N : (j+1)*m.N]
		for i := i0; i <= i1; i++ {
			row[i] = 1
		}
	}
}

// FarSink is the headless far region: the Headless itself, which drops
// what it is given.
func (h *Headless) FarSink() slots.Sink { return h }
