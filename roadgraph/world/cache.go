package world

// Cache memoises junctions in front of a World. Growing a graph asks about
// the same few lattice cells over and over (every arm of every junction
// looks at its neighbours), and each answer costs a terrain height, or a
// whole block's network rule (network.go); the cache makes the repeats
// free. It is not safe for concurrent use: one per graph.
type Cache struct {
	w     World
	m     map[Cell]cachedJunction
	limit int
	// blocks holds the network rule's answer for the blocks asked about
	// last, recycled least recently used: a block is 121 raw junctions.
	blocks []blockNet
	used   []uint64
	clock  uint64
}

type cachedJunction struct {
	p    Vec2
	raw  bool // the lattice's candidate
	kept bool // kept by the network rule (known once asked)
	told bool // kept is known
}

// cacheCells bounds the cache; when full it starts over (clearing keeps the
// map's memory, so a full cache never allocates). cacheBlocks: a graph
// grown kilometres ahead spans a few blocks of 1.5 km.
const (
	cacheCells  = 4096
	cacheBlocks = 16
)

// NewCache returns an empty cache for w.
func NewCache(w World) *Cache { return newCache(w, cacheCells, cacheBlocks) }

func newCache(w World, cells, blocks int) *Cache {
	return &Cache{w: w, m: make(map[Cell]cachedJunction, cells), limit: cells,
		blocks: make([]blockNet, blocks), used: make([]uint64, blocks)}
}

// World is the world behind the cache.
func (c *Cache) World() World { return c.w }

func (c *Cache) entry(cell Cell) cachedJunction {
	if j, ok := c.m[cell]; ok {
		return j
	}
	if len(c.m) >= c.limit {
		clear(c.m)
	}
	p, ok := c.w.RawJunction(cell)
	j := cachedJunction{p: p, raw: ok}
	if !ok || cell.OnTrunk() {
		j.kept, j.told = ok, true
	}
	c.m[cell] = j
	return j
}

// RawJunction is World.RawJunction, memoised.
func (c *Cache) RawJunction(cell Cell) (Vec2, bool) {
	j := c.entry(cell)
	return j.p, j.raw
}

// Junction is World.Junction, memoised.
func (c *Cache) Junction(cell Cell) (Vec2, bool) {
	j := c.entry(cell)
	if !j.told {
		b := c.block(blockOrigin(cell))
		j.kept, j.told = b.kept[blockIndex(b.origin, cell)], true
		c.m[cell] = j
	}
	return j.p, j.kept
}

// block is the network rule's answer for the block at origin.
func (c *Cache) block(origin Cell) *blockNet {
	c.clock++
	oldest := 0
	for i := range c.blocks {
		if b := &c.blocks[i]; b.valid && b.origin == origin {
			c.used[i] = c.clock
			return b
		}
		if c.used[i] < c.used[oldest] {
			oldest = i
		}
	}
	b := &c.blocks[oldest]
	computeBlock(c.w, c, origin, b)
	c.used[oldest] = c.clock
	return b
}

// Edge is World.Edge through the cache.
func (c *Cache) Edge(id uint64) (EdgeSpec, bool) { return edge(c.w, c, id) }

// Arms is World.Arms through the cache.
func (c *Cache) Arms(cell Cell, dst []EdgeSpec) []EdgeSpec { return arms(c.w, c, cell, dst) }

// EdgeNodes is World.EdgeNodes through the cache.
func (c *Cache) EdgeNodes(e EdgeSpec, dst []Vec2) []Vec2 { return edgeNodes(c.w, c, e, dst) }

// JunctionRadiusAt is World.JunctionRadiusAt through the cache.
func (c *Cache) JunctionRadiusAt(j Cell) float64 { return junctionRadiusAt(c.w, c, j) }
