// Package ground is the client side of the voxel ground: which chunks
// exist around the car comes from the server (a chunk nobody edited arrives
// as a "procedural default" marker, an edited one with its sparse edits);
// the client generates the blocks itself on worker goroutines, applies the
// edits, meshes them through the mesh pool and hands meshes to the
// renderer. Nothing here blocks the frame.
package ground

import (
	"sync"

	"citydrive/roadgraph/world"
	"citydrive/voxel"
	"citydrive/voxel/gen"
	"citydrive/voxel/meshpool"
	"citydrive/voxel/plan"
	"citydrive/voxel/residency"
)

// DefaultRadius is the client's chunk radius (chunks of 32 m).
const DefaultRadius = 4

// Subscriber is told when the client's centre chunk changes (the network
// client sends a Subscribe). It returns the radius the server will serve
// (the asked one clamped to the server's maximum): chunks that leave that
// cylinder get no ChunkDrop from the server, the client evicts them itself.
type Subscriber func(centre voxel.ChunkPos, radius int32) (served int32)

// Client keeps the chunks around the car.
type Client struct {
	res       *residency.Residency
	pool      *meshpool.Manager
	radius    int32
	served    int32 // the radius of our latest Subscribe as the server serves it
	subscribe Subscriber
	local     bool // no server: every chunk counts as announced

	mu       sync.Mutex // guards overlays: the loader reads it on workers
	overlays map[voxel.ChunkPos]voxel.Overlay

	announced map[voxel.ChunkPos]struct{}
	delivered map[voxel.ChunkPos]*voxel.Chunk
	centre    voxel.ChunkPos
	started   bool
	dirty     bool
	desired   plan.Desired
	list      []voxel.ChunkPos
	scratch   []voxel.ChunkPos
}

// Options configure a client.
type Options struct {
	Seed    uint64
	Radius  int32
	Workers int // generation workers (mesh workers alike)
	Sink    meshpool.MeshSink
	// Subscribe is called when the centre chunk changes; nil means local
	// mode: no server, every chunk is a procedural default.
	Subscribe Subscriber
}

// New starts the generation and mesh workers.
func New(o Options) *Client {
	if o.Radius <= 0 {
		o.Radius = DefaultRadius
	}
	o.Workers = max(1, o.Workers)
	c := &Client{
		radius: o.Radius, served: o.Radius, subscribe: o.Subscribe, local: o.Subscribe == nil,
		overlays:  map[voxel.ChunkPos]voxel.Overlay{},
		announced: map[voxel.ChunkPos]struct{}{},
		delivered: map[voxel.ChunkPos]*voxel.Chunk{},
	}
	g := gen.New(o.Seed)
	c.res = residency.New(func(p voxel.ChunkPos) (*voxel.Chunk, error) {
		ch := g.Chunk(p)
		c.mu.Lock()
		o := c.overlays[p]
		c.mu.Unlock()
		o.Apply(ch)
		return ch, nil
	}, o.Workers)
	c.pool = meshpool.New(o.Sink, o.Workers, nil)
	return c
}

// Close stops the workers.
func (c *Client) Close() {
	c.res.Close()
	c.pool.Close()
}

// Announced reports whether the server has told us about chunk p.
func (c *Client) Announced(p voxel.ChunkPos) bool {
	_, ok := c.announced[p]
	return ok
}

// Resubscribe makes the next Update subscribe again (after a reconnect):
// the server answers with the area, chunks already held stay.
func (c *Client) Resubscribe() { c.started = false }

// ChunkDefault: the server says p exists and nobody edited it.
func (c *Client) ChunkDefault(p voxel.ChunkPos) {
	c.mu.Lock()
	delete(c.overlays, p)
	c.mu.Unlock()
	c.announce(p)
}

// ChunkEdits: the server says p exists with these edits.
func (c *Client) ChunkEdits(p voxel.ChunkPos, o voxel.Overlay) {
	c.mu.Lock()
	c.overlays[p] = o
	c.mu.Unlock()
	if _, ok := c.delivered[p]; ok {
		// Already built from an older state: bring it up to date.
		for _, e := range o {
			c.res.Edit(p, int(e.Index), e.Block)
			c.pool.Edit(p, int(e.Index), e.Block)
		}
	}
	c.announce(p)
}

// ChunkDrop: the server no longer streams p to us.
func (c *Client) ChunkDrop(p voxel.ChunkPos) {
	if _, ok := c.announced[p]; ok {
		delete(c.announced, p)
		c.dirty = true
	}
}

// EditBroadcast applies an edit made by anyone (ourselves included).
func (c *Client) EditBroadcast(p voxel.ChunkPos, idx uint16, b voxel.Block) {
	c.mu.Lock()
	c.overlays[p] = c.overlays[p].With(idx, b)
	c.mu.Unlock()
	if c.res.Edit(p, int(idx), b) {
		if ch, ok := c.res.Chunk(p); ok {
			c.delivered[p] = ch
		}
		c.pool.Edit(p, int(idx), b)
	}
}

// Built reports whether a player's edit put a solid block (not air or
// water) at world block (x, y, z). The car collides with these; the
// generated ground under it is what world.Surface describes.
func (c *Client) Built(x, y, z int64) bool {
	p, idx := voxel.ChunkOf(x, y, z)
	c.mu.Lock()
	o := c.overlays[p]
	c.mu.Unlock()
	b, ok := o.Get(uint16(idx))
	return ok && b != voxel.Air && b != voxel.Water
}

func (c *Client) announce(p voxel.ChunkPos) {
	if _, ok := c.announced[p]; !ok {
		c.announced[p] = struct{}{}
		c.dirty = true
	}
}

// Update runs one frame: follow the car, reconcile generation, deliver new
// chunks to the mesh pool, drop what left the radius, run the pool's
// budgeted frame.
func (c *Client) Update(car world.Vec2, y float64) {
	centre := voxel.ChunkAt(car.X, y, car.Z)
	if !c.started || centre != c.centre {
		c.started, c.centre, c.dirty = true, centre, true
		if c.subscribe != nil {
			c.served = min(c.radius, c.subscribe(centre, c.radius))
		}
	}
	changed := c.dirty
	if c.dirty {
		c.dirty = false
		// Announced chunks that left the served cylinder get no ChunkDrop
		// from the server (protocol 2): forget them here.
		for p := range c.announced {
			if !plan.InCylinder(centre, c.served, p) {
				delete(c.announced, p)
			}
		}
		c.scratch = plan.NearFirst(centre, plan.Cylinder(centre, c.radius, c.scratch[:0]))
		c.list = c.list[:0]
		for _, p := range c.scratch {
			if _, ok := c.announced[p]; ok || c.local {
				c.list = append(c.list, p)
			}
		}
		c.desired = plan.Of(c.list...)
		// Evict what left our own radius without waiting for the server.
		for p := range c.delivered {
			if !c.desired.Contains(p) {
				delete(c.delivered, p)
				c.pool.Drop(p)
			}
		}
	}
	// Settled (the same chunks desired, none in flight, all delivered):
	// reconciling would find nothing to do, at a few map look-ups per
	// chunk in the radius, every frame.
	if changed || !c.res.Idle() || len(c.delivered) != c.desired.Len() {
		c.reconcile()
	}
	c.pool.Update()
}

// reconcile has the residency drain, evict and dispatch, and hands the
// mesh pool what became resident.
func (c *Client) reconcile() {
	c.res.Reconcile(c.desired)
	for _, p := range c.desired.Order() {
		if ch, ok := c.res.Chunk(p); ok {
			if _, had := c.delivered[p]; !had {
				c.delivered[p] = ch
				c.pool.Deliver(p, ch)
			}
		}
	}
}

// Stats for the HUD.
type Stats struct {
	Announced, Resident, Generating, Meshed, MeshPending int
}

// Stats returns the client's counters.
func (c *Client) Stats() Stats {
	return Stats{
		Announced: len(c.announced), Resident: c.res.Resident(), Generating: c.res.InFlight(),
		Meshed: c.pool.Resident(), MeshPending: c.pool.Pending() + c.pool.InFlight() + c.pool.Queued(),
	}
}

// Ready reports whether every desired chunk is generated and handed to the
// mesh pool (the loading gate).
func (c *Client) Ready() bool {
	return c.started && c.res.Idle() && len(c.delivered) == c.desired.Len() && c.pool.Queued() == 0
}
