package roadgraph

import (
	"fmt"
	"slices"

	"citydrive/roadgraph/world"
)

// EdgeRecord is an edge flattened for a mirror: references become ids.
type EdgeRecord struct {
	ID, A, B  uint64
	HalfWidth float64
	Nodes     []world.Vec2 // owned by the record (a copy)
}

// JunctionRecord is a junction flattened for a mirror; its arms are the next
// Arms entries of ChangeSet.ArmIDs.
type JunctionRecord struct {
	ID       uint64
	Pos      world.Vec2
	Expanded bool
	Arms     uint8
}

// ChangeSet brings one mirror from the state it last saw to the graph's
// current state: new edges in full, removed edges as ids, junctions and side
// flags in full (two bits per node, edges in FlagEdges order).
type ChangeSet struct {
	Signature uint64
	NewEdges  []EdgeRecord
	Removed   []uint64
	Junctions []JunctionRecord
	ArmIDs    []uint64
	FlagEdges []uint64
	Flags     []byte
}

// Cursor is what the source graph remembers about one mirror.
type Cursor struct {
	signature uint64
	synced    bool
	known     map[uint64]struct{}
}

// NewCursor returns a cursor for a mirror that holds nothing yet.
func NewCursor() *Cursor { return &Cursor{known: make(map[uint64]struct{}, initialCapacity)} }

// Reset forgets what the mirror behind c holds: the next change set sends
// everything (a new or resynchronised mirror).
func (c *Cursor) Reset() {
	clear(c.known)
	c.synced = false
}

// Changes returns a new change set that brings the mirror behind c up to
// date, or false when the graph's signature has not moved since c last
// synced.
func (g *Graph) Changes(c *Cursor) (*ChangeSet, bool) {
	cs := &ChangeSet{}
	if !g.FillChanges(c, cs) {
		return nil, false
	}
	return cs, true
}

// FillChanges is Changes into a recycled change set: cs's slices (and the
// node slices of its edge records) are reused, so steady-state syncing
// allocates nothing. It returns false, leaving cs alone, when nothing
// changed.
func (g *Graph) FillChanges(c *Cursor, cs *ChangeSet) bool {
	if c.synced && c.signature == g.signature {
		return false
	}
	cs.Signature = g.signature
	cs.Removed = cs.Removed[:0]
	for id := range c.known {
		if g.edges[id] == nil {
			cs.Removed = append(cs.Removed, id)
			delete(c.known, id)
		}
	}
	nodes := 0
	n := 0
	for _, e := range g.edgeList {
		nodes += len(e.Nodes)
		if _, ok := c.known[e.ID]; ok {
			continue
		}
		c.known[e.ID] = struct{}{}
		if n < cap(cs.NewEdges) {
			cs.NewEdges = cs.NewEdges[:n+1]
		} else {
			cs.NewEdges = append(cs.NewEdges[:n], EdgeRecord{Nodes: make([]world.Vec2, 0, world.MaxSegments)})
		}
		r := &cs.NewEdges[n]
		r.ID, r.A, r.B, r.HalfWidth = e.ID, e.A.ID, e.B.ID, e.HalfWidth
		r.Nodes = append(r.Nodes[:0], e.Nodes...)
		n++
	}
	cs.NewEdges = cs.NewEdges[:n]
	cs.Junctions, cs.ArmIDs = cs.Junctions[:0], cs.ArmIDs[:0]
	for _, j := range g.junctList {
		cs.Junctions = append(cs.Junctions, JunctionRecord{ID: j.ID, Pos: j.Pos, Expanded: j.Expanded, Arms: uint8(len(j.Arms))})
		for _, a := range j.Arms {
			cs.ArmIDs = append(cs.ArmIDs, a.ID)
		}
	}
	cs.FlagEdges = cs.FlagEdges[:0]
	nb := (nodes + 3) / 4
	if cap(cs.Flags) < nb {
		cs.Flags = make([]byte, nb, nb+nb/2)
	}
	cs.Flags = cs.Flags[:nb]
	clear(cs.Flags)
	bit := 0
	for _, e := range g.edgeList {
		cs.FlagEdges = append(cs.FlagEdges, e.ID)
		for _, f := range e.Flags {
			cs.Flags[bit>>2] |= byte(f&sideMask) << (2 * (bit & 3))
			bit++
		}
	}
	c.signature, c.synced = g.signature, true
	return true
}

// NewMirror returns an empty graph that is only ever changed by Apply.
func NewMirror(w world.World) *Graph { return New(w) }

// Apply brings a mirror to the state described by cs, rebuilding every
// reference from ids. It copies what it keeps, so cs may be reused. An
// inconsistent change set (an edge or junction it names is unknown) is an
// error and leaves the mirror unusable until a full resync.
func (g *Graph) Apply(cs *ChangeSet) error {
	for _, id := range cs.Removed {
		if e := g.edges[id]; e != nil {
			delete(g.edges, id)
			g.edgeList = removeSorted(g.edgeList, id, edgeID)
			g.freeEdges = append(g.freeEdges, e)
		}
	}
	// Junctions in full: reuse existing records, drop the unlisted. The
	// records arrive sorted by id, as the source keeps them.
	for _, r := range cs.Junctions {
		j := g.junctions[r.ID]
		if j == nil {
			j = g.newJunction()
			j.ID = r.ID
			g.junctions[r.ID] = j
			g.junctList = insertSorted(g.junctList, j, junctID)
		}
		j.Pos, j.Expanded = r.Pos, r.Expanded
	}
	for i := 0; i < len(g.junctList); {
		id := g.junctList[i].ID
		if _, ok := slices.BinarySearchFunc(cs.Junctions, id, func(r JunctionRecord, k uint64) int { return cmpU64(r.ID, k) }); ok {
			i++
			continue
		}
		g.freeJuncts = append(g.freeJuncts, g.junctList[i])
		delete(g.junctions, id)
		g.junctList = append(g.junctList[:i], g.junctList[i+1:]...)
	}
	for _, r := range cs.NewEdges {
		if len(r.Nodes) < 2 || len(r.Nodes) > world.MaxSegments {
			return fmt.Errorf("roadgraph: edge %d has %d nodes", r.ID, len(r.Nodes))
		}
		e := g.newEdge()
		e.ID, e.HalfWidth = r.ID, r.HalfWidth
		e.Nodes = append(e.Nodes, r.Nodes...)
		e.Flags = resizeFlags(e.Flags, len(r.Nodes))
		if e.A, e.B = g.junctions[r.A], g.junctions[r.B]; e.A == nil || e.B == nil {
			return fmt.Errorf("roadgraph: edge %d names unknown junction", r.ID)
		}
		e.updateBounds()
		if old := g.edges[e.ID]; old != nil {
			g.edgeList = removeSorted(g.edgeList, e.ID, edgeID)
			g.freeEdges = append(g.freeEdges, old)
		}
		g.edgeList = insertSorted(g.edgeList, e, edgeID)
		g.edges[e.ID] = e
	}
	for _, e := range g.edgeList {
		if e.A = g.junctions[e.A.ID]; e.A == nil {
			return fmt.Errorf("roadgraph: edge %d lost its junction", e.ID)
		}
		if e.B = g.junctions[e.B.ID]; e.B == nil {
			return fmt.Errorf("roadgraph: edge %d lost its junction", e.ID)
		}
	}
	arm := 0
	for _, r := range cs.Junctions {
		j := g.junctions[r.ID]
		j.Arms = j.Arms[:0]
		if arm+int(r.Arms) > len(cs.ArmIDs) {
			return fmt.Errorf("roadgraph: junction %d arms out of range", r.ID)
		}
		for _, id := range cs.ArmIDs[arm : arm+int(r.Arms)] {
			e := g.edges[id]
			if e == nil {
				return fmt.Errorf("roadgraph: junction %d names unknown edge %d", r.ID, id)
			}
			j.Arms = append(j.Arms, e)
		}
		arm += int(r.Arms)
	}
	bit := 0
	for _, id := range cs.FlagEdges {
		e := g.edges[id]
		if e == nil {
			return fmt.Errorf("roadgraph: flags for unknown edge %d", id)
		}
		if (bit+len(e.Flags)+3)/4 > len(cs.Flags) {
			return fmt.Errorf("roadgraph: flags truncated at edge %d", id)
		}
		for i := range e.Flags {
			e.Flags[i] = SideFlags(cs.Flags[bit>>2]>>(2*(bit&3))) & sideMask
			bit++
		}
	}
	g.signature = cs.Signature
	return nil
}
