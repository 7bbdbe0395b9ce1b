package world

// Cache memoises junction positions in front of a World. Growing a graph
// asks about the same few lattice cells over and over (every arm of every
// junction looks at its neighbours), and each answer costs a terrain
// height; the cache makes the repeats free. It is not safe for concurrent
// use: one per graph.
type Cache struct {
	w     World
	m     map[Cell]cachedJunction
	limit int
}

type cachedJunction struct {
	p  Vec2
	ok bool
}

// cacheCells bounds the cache; when full it starts over (clearing keeps the
// map's memory, so a full cache never allocates).
const cacheCells = 4096

// NewCache returns an empty cache for w.
func NewCache(w World) *Cache { return newCache(w, cacheCells) }

func newCache(w World, cells int) *Cache {
	return &Cache{w: w, m: make(map[Cell]cachedJunction, cells), limit: cells}
}

// World is the world behind the cache.
func (c *Cache) World() World { return c.w }

// Junction is World.Junction, memoised.
func (c *Cache) Junction(cell Cell) (Vec2, bool) {
	if j, ok := c.m[cell]; ok {
		return j.p, j.ok
	}
	if len(c.m) >= c.limit {
		clear(c.m)
	}
	p, ok := c.w.Junction(cell)
	c.m[cell] = cachedJunction{p, ok}
	return p, ok
}

// Edge is World.Edge through the cache.
func (c *Cache) Edge(id uint64) (EdgeSpec, bool) { return edge(c.w, c, id) }

// Arms is World.Arms through the cache.
func (c *Cache) Arms(cell Cell, dst []EdgeSpec) []EdgeSpec { return arms(c.w, c, cell, dst) }

// EdgeNodes is World.EdgeNodes through the cache.
func (c *Cache) EdgeNodes(e EdgeSpec, dst []Vec2) []Vec2 { return edgeNodes(c.w, c, e, dst) }
