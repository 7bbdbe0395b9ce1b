package netsync

import (
	"math"

	"citydrive/netsync/wire"
	"citydrive/voxel"
)

// HandoverRules are the distances (metres) of a client's handover between
// the servers owning the regions it drives through. Approach < Drop and
// Switch > 0 are the hysteresis: driving back and forth along a border
// neither switches nor redials.
type HandoverRules struct {
	// Approach: a spare connection is opened to another server once the
	// car is this close to a region it owns.
	Approach float64
	// Switch: the car switches to the owner of the region it is in once
	// it is this deep inside that owner's regions (and the spare is
	// ready).
	Switch float64
	// Drop: the spare is closed once the car is this far from every
	// region its server owns.
	Drop float64
}

// DefaultHandoverRules: open at 64 m, switch 16 m inside, close at 96 m.
func DefaultHandoverRules() HandoverRules { return HandoverRules{Approach: 64, Switch: 16, Drop: 96} }

// regionMetres is a region's side (wire.RegionChunks chunks).
const regionMetres = wire.RegionChunks * voxel.ChunkSize

// handoverStep is what the policy asks for; at most one thing at a time.
type handoverStep struct {
	open   string // dial a spare to this server
	swap   bool   // the spare becomes the primary, the primary the spare
	drop   bool   // close the spare
	reason string // for the log
}

// handoverState is what the policy decides from: the car's position, the
// latest Owners (ok false: none yet), and the connections.
type handoverState struct {
	x, z       float64
	owners     wire.Owners
	ok         bool
	primary    string
	spare      string // "" none (dialling counts as held)
	spareReady bool   // dialled, and its server has heard the car
}

// decide is the handover policy, pure.
func (r HandoverRules) decide(s handoverState) handoverStep {
	if !s.ok {
		return handoverStep{}
	}
	here := s.ownerAt(s.x, s.z)
	if here != "" && here != s.primary && here == s.spare && s.spareReady && s.depthIn(here) >= r.Switch {
		return handoverStep{swap: true, reason: "deep enough in the next owner's region"}
	}
	// The nearest other server within Approach (inside its region: 0).
	next, nextD := "", math.Inf(1)
	for _, a := range s.owners.Addrs {
		if a == "" || a == s.primary {
			continue
		}
		if d := s.distTo(a); d < nextD || d == nextD && a < next {
			next, nextD = a, d
		}
	}
	if nextD > r.Approach {
		next = ""
	}
	if s.spare != "" && s.spare != s.primary {
		if d := s.distTo(s.spare); d >= r.Drop || s.spare != next && next != "" && d > r.Approach {
			return handoverStep{drop: true, reason: "far from every region of the spare's server"}
		}
		return handoverStep{}
	}
	if next != "" {
		return handoverStep{open: next, reason: "near a region of another server"}
	}
	return handoverStep{}
}

// cell is the Owners index of the region holding (x, z), false outside
// the 3 × 3 block.
func (s *handoverState) cell(rx, rz int64) (int, bool) {
	dx, dz := rx-int64(s.owners.RX), rz-int64(s.owners.RZ)
	if dx < -1 || dx > 1 || dz < -1 || dz > 1 {
		return 0, false
	}
	return wire.OwnerIndex(int(dx), int(dz)), true
}

func regionAt(m float64) int64 { return int64(math.Floor(m / regionMetres)) }

// ownerAt is the owner of the region holding (x, z), "" if unknown.
func (s *handoverState) ownerAt(x, z float64) string {
	i, ok := s.cell(regionAt(x), regionAt(z))
	if !ok {
		return ""
	}
	return s.owners.Addrs[i]
}

// rectDist is the distance from the car to the region at offset (dx, dz)
// from the block's centre, 0 inside it.
func (s *handoverState) rectDist(dx, dz int) float64 {
	x0 := float64(int64(s.owners.RX)+int64(dx)) * regionMetres
	z0 := float64(int64(s.owners.RZ)+int64(dz)) * regionMetres
	ex := max(x0-s.x, 0, s.x-(x0+regionMetres))
	ez := max(z0-s.z, 0, s.z-(z0+regionMetres))
	return math.Hypot(ex, ez)
}

// distTo is the distance from the car to the nearest region of the block
// owned by addr (+Inf: none).
func (s *handoverState) distTo(addr string) float64 {
	d := math.Inf(1)
	for dz := -1; dz <= 1; dz++ {
		for dx := -1; dx <= 1; dx++ {
			if s.owners.Addrs[wire.OwnerIndex(dx, dz)] == addr {
				d = min(d, s.rectDist(dx, dz))
			}
		}
	}
	return d
}

// depthIn is how far the car is from the nearest region not owned by
// addr: the block's other regions, and past its edge (unknown).
func (s *handoverState) depthIn(addr string) float64 {
	// The block's outer edge: regions beyond it are unknown.
	x0 := float64(int64(s.owners.RX)-1) * regionMetres
	z0 := float64(int64(s.owners.RZ)-1) * regionMetres
	d := max(0, min(s.x-x0, x0+3*regionMetres-s.x, s.z-z0, z0+3*regionMetres-s.z))
	for dz := -1; dz <= 1; dz++ {
		for dx := -1; dx <= 1; dx++ {
			if s.owners.Addrs[wire.OwnerIndex(dx, dz)] != addr {
				d = min(d, s.rectDist(dx, dz))
			}
		}
	}
	return d
}
