// Package slots is the fixed slot table: every visible item owns one range
// of one vertex buffer allocated once. It maps keys to slots, keeps the
// pending builds sorted by walk cost, and tracks per-slot vertex counts,
// bounds and a nearest-first draw order. The buffer itself sits behind Sink.
package slots

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"citydrive/walker"
)

// Sink is the vertex buffer the table writes to: a GPU buffer in the game, a
// preallocated slice headless.
type Sink interface {
	// Upload writes count vertices (WordsPerVertex words each, see
	// format.go) at the start of slot.
	Upload(slot int, verts []uint32, count int) error
	// Clear marks slot empty. It need not touch the buffer.
	Clear(slot int)
}

// Config sizes the table.
type Config struct {
	Slots        int
	VertsPerSlot int
	DynamicVerts int
}

// DefaultConfig is 180 slots of 7,200 vertices plus 16,200 dynamic ones.
func DefaultConfig() Config {
	return Config{Slots: DefaultSlots, VertsPerSlot: DefaultVertsPerSlot, DynamicVerts: DefaultDynamicVerts}
}

// Validate reports sizes no table could honour.
func (c Config) Validate() error {
	var errs []error
	if c.Slots < 1 || c.Slots > MaxSlots {
		errs = append(errs, fmt.Errorf("slots: slot count must be 1..%d, got %d", MaxSlots, c.Slots))
	}
	if c.VertsPerSlot < MinVertsPerSlot || c.VertsPerSlot > MaxVertsPerSlot {
		errs = append(errs, fmt.Errorf("slots: vertices per slot must be %d..%d, got %d", MinVertsPerSlot, MaxVertsPerSlot, c.VertsPerSlot))
	}
	if c.DynamicVerts < 0 || c.DynamicVerts > MaxVertsPerSlot {
		errs = append(errs, fmt.Errorf("slots: dynamic vertices must be 0..%d, got %d", MaxVertsPerSlot, c.DynamicVerts))
	}
	return errors.Join(errs...)
}

// SlotVerts is the number of vertices in the slot region.
func (c Config) SlotVerts() int { return c.Slots * c.VertsPerSlot }

// TotalVerts is the size of the whole buffer in vertices.
func (c Config) TotalVerts() int { return c.SlotVerts() + c.DynamicVerts }

// Bounds is an axis-aligned box in world metres.
type Bounds struct{ Min, Max [3]float64 }

// Centre is the middle of the box.
func (b Bounds) Centre() [3]float64 {
	return [3]float64{(b.Min[0] + b.Max[0]) / 2, (b.Min[1] + b.Max[1]) / 2, (b.Min[2] + b.Max[2]) / 2}
}

// Pending is an item waiting for its geometry.
type Pending struct {
	Slot int32
	Item walker.Item
}

// ErrOverflow is returned (wrapped) by Upload when geometry exceeds a slot.
var ErrOverflow = errors.New("geometry exceeds slot")

// ErrStale is returned by Upload when the slot no longer holds the key.
var ErrStale = errors.New("slot no longer holds the item")

// obstaclesPerSlot is the preallocated obstacle capacity of a slot; more
// still works (the slot's slice grows once).
const obstaclesPerSlot = 96

// drawOrderMove is how far the camera may move before the nearest-first
// order is recomputed.
const drawOrderMove = 4.0

// Table is the slot table. It is not safe for concurrent use: it belongs to
// the main goroutine.
type Table struct {
	cfg   Config
	sink  Sink
	keys  []int64 // per slot; 0 = free (no item has key 0)
	items []walker.Item
	built []bool // geometry uploaded since claim (or requeue)
	count []int32
	claim []uint32 // bumped on every claim: a stale result names an old one
	seq   []uint32 // bumped on every upload
	bound []Bounds
	obst  [][]Obstacle // collision shapes per slot, dropped on release
	slot  map[int64]int32
	free  []int32
	pend  []Pending
	want  map[int64]struct{}

	version     uint64 // bumped when a slot's drawable content changes
	order       []int32
	orderVer    uint64
	orderCam    [3]float64
	orderOK     bool
	orderBuilds int
	overflows   uint64
}

// New returns a table writing to sink.
func New(cfg Config, sink Sink) (*Table, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if sink == nil {
		return nil, errors.New("slots: nil sink")
	}
	t := &Table{
		cfg: cfg, sink: sink,
		keys:  make([]int64, cfg.Slots),
		items: make([]walker.Item, cfg.Slots),
		built: make([]bool, cfg.Slots),
		count: make([]int32, cfg.Slots),
		claim: make([]uint32, cfg.Slots),
		seq:   make([]uint32, cfg.Slots),
		bound: make([]Bounds, cfg.Slots),
		obst:  make([][]Obstacle, cfg.Slots),
		slot:  make(map[int64]int32, cfg.Slots),
		free:  make([]int32, 0, cfg.Slots),
		pend:  make([]Pending, 0, cfg.Slots),
		want:  make(map[int64]struct{}, cfg.Slots),
		order: make([]int32, 0, cfg.Slots),
	}
	for s := cfg.Slots - 1; s >= 0; s-- {
		t.free = append(t.free, int32(s))
	}
	// One backing array for every slot's obstacles: steady-state uploads
	// append within capacity.
	backing := make([]Obstacle, cfg.Slots*obstaclesPerSlot)
	for s := range t.obst {
		t.obst[s] = backing[s*obstaclesPerSlot : s*obstaclesPerSlot : (s+1)*obstaclesPerSlot]
	}
	return t, nil
}

// Config returns the table's sizes.
func (t *Table) Config() Config { return t.cfg }

// Sync makes the slots hold exactly the visible items (up to the slot
// count): slots of items no longer visible are released (no buffer write),
// their pending builds dropped; each new item claims a free slot and joins
// pending; items that stay keep their slot and are not rebuilt. Pending ends
// sorted by walk cost.
func (t *Table) Sync(visible []walker.Item) {
	clear(t.want)
	for _, it := range visible {
		t.want[it.Key] = struct{}{}
	}
	for s, k := range t.keys {
		if k == 0 {
			continue
		}
		if _, ok := t.want[k]; !ok {
			t.release(int32(s))
		}
	}
	t.pend = slices.DeleteFunc(t.pend, func(p Pending) bool { return t.keys[p.Slot] != p.Item.Key })
	for _, it := range visible {
		if s, ok := t.slot[it.Key]; ok {
			t.items[s] = it // the cost moves with the car
			continue
		}
		if len(t.free) == 0 {
			continue // more visible than slots: the walk cap should prevent it
		}
		s := t.free[len(t.free)-1]
		t.free = t.free[:len(t.free)-1]
		t.keys[s], t.items[s], t.built[s] = it.Key, it, false
		t.claim[s]++
		t.slot[it.Key] = s
		t.pend = append(t.pend, Pending{Slot: s})
	}
	for i := range t.pend {
		t.pend[i].Item = t.items[t.pend[i].Slot]
	}
	t.sortPending()
}

func (t *Table) sortPending() {
	slices.SortStableFunc(t.pend, func(a, b Pending) int {
		switch {
		case a.Item.Cost < b.Item.Cost:
			return -1
		case a.Item.Cost > b.Item.Cost:
			return 1
		}
		return int(a.Slot - b.Slot)
	})
}

func (t *Table) release(s int32) {
	delete(t.slot, t.keys[s])
	t.keys[s] = 0
	t.items[s] = walker.Item{}
	t.built[s] = false
	t.obst[s] = t.obst[s][:0]
	if t.count[s] != 0 {
		t.count[s] = 0
		t.version++
	}
	t.sink.Clear(int(s))
	t.free = append(t.free, s)
}

// Pending returns the items waiting to be built, cheapest first. Do not
// modify; it is valid until the next call that changes the table.
func (t *Table) Pending() []Pending { return t.pend }

// TakePending removes and returns the cheapest pending item.
func (t *Table) TakePending() (Pending, bool) {
	if len(t.pend) == 0 {
		return Pending{}, false
	}
	p := t.pend[0]
	t.pend = slices.Delete(t.pend, 0, 1)
	return p, true
}

// Requeue puts slot s's item back on pending (e.g. a build came back
// "missing" or must be redone). It does nothing for a free slot or an item
// already pending.
func (t *Table) Requeue(s int32) {
	if t.keys[s] == 0 || slices.ContainsFunc(t.pend, func(p Pending) bool { return p.Slot == s }) {
		return
	}
	t.pend = append(t.pend, Pending{Slot: s, Item: t.items[s]})
	t.sortPending()
}

// RequeueNear requeues every built item whose bounds' centre lies within
// radius (horizontally) of (x, z): a new road may now cross its lots. It
// returns how many were requeued.
func (t *Table) RequeueNear(x, z, radius float64) int {
	n := 0
	for s, k := range t.keys {
		if k == 0 || !t.built[s] {
			continue
		}
		c := t.bound[s].Centre()
		if dx, dz := c[0]-x, c[2]-z; dx*dx+dz*dz <= radius*radius {
			if !slices.ContainsFunc(t.pend, func(p Pending) bool { return p.Slot == int32(s) }) {
				t.pend = append(t.pend, Pending{Slot: int32(s), Item: t.items[s]})
				n++
			}
		}
	}
	if n > 0 {
		t.sortPending()
	}
	return n
}

// Claim is the generation of slot s's current claim; a build result names
// the claim it was requested under.
func (t *Table) Claim(s int32) uint32 { return t.claim[s] }

// Holds reports whether slot s still holds key under claim.
func (t *Table) Holds(s int32, key int64, claim uint32) bool {
	return s >= 0 && int(s) < len(t.keys) && t.keys[s] == key && t.claim[s] == claim
}

// SlotOf returns the slot holding key.
func (t *Table) SlotOf(key int64) (int32, bool) {
	s, ok := t.slot[key]
	return s, ok
}

// Key returns the key in slot s (0 when free).
func (t *Table) Key(s int32) int64 { return t.keys[s] }

// Item returns the item in slot s.
func (t *Table) Item(s int32) walker.Item { return t.items[s] }

// Upload writes an item's geometry into slot s if it still holds key. More
// vertices than a slot holds is never truncated silently: nothing is written,
// the overflow is counted and an error wrapping ErrOverflow is returned, so
// the caller can handle it.
func (t *Table) Upload(s int32, key int64, verts []uint32, count int, b Bounds) error {
	if t.keys[s] != key {
		return ErrStale
	}
	if count > t.cfg.VertsPerSlot {
		t.overflows++
		return fmt.Errorf("slots: item %d needs %d vertices, slot holds %d: %w", key, count, t.cfg.VertsPerSlot, ErrOverflow)
	}
	if count < 0 || len(verts) < count*WordsPerVertex {
		return fmt.Errorf("slots: item %d: %d words for %d vertices", key, len(verts), count)
	}
	if err := t.sink.Upload(int(s), verts, count); err != nil {
		return err
	}
	t.count[s] = int32(count)
	t.seq[s]++
	t.bound[s] = b
	t.built[s] = true
	t.version++
	return nil
}

// SetObstacles replaces slot s's collision shapes (copied) if it still
// holds key.
func (t *Table) SetObstacles(s int32, key int64, boxes []Obstacle) {
	if t.keys[s] == key {
		t.obst[s] = append(t.obst[s][:0], boxes...)
	}
}

// Obstacles returns slot s's collision shapes. Do not modify.
func (t *Table) Obstacles(s int32) []Obstacle { return t.obst[s] }

// UploadSeq changes every time slot s receives geometry.
func (t *Table) UploadSeq(s int32) uint32 { return t.seq[s] }

// Count is the number of vertices to draw from slot s.
func (t *Table) Count(s int32) int32 { return t.count[s] }

// Bounds is slot s's bounding box as of its last upload.
func (t *Table) Bounds(s int32) Bounds { return t.bound[s] }

// Built reports whether slot s holds uploaded geometry for its item.
func (t *Table) Built(s int32) bool { return t.built[s] }

// Version changes whenever a slot's drawable content changes.
func (t *Table) Version() uint64 { return t.version }

// Overflows counts uploads refused because they exceeded a slot.
func (t *Table) Overflows() uint64 { return t.overflows }

// Used is the number of slots holding an item.
func (t *Table) Used() int { return t.cfg.Slots - len(t.free) }

// Ready reports whether the world around the car is built: slots exist,
// nothing is pending. (In-flight work is the caller's to add.)
func (t *Table) Ready() bool { return t.Used() > 0 && len(t.pend) == 0 }

// BuiltCount is the number of used slots whose geometry is uploaded.
func (t *Table) BuiltCount() int {
	n := 0
	for s, k := range t.keys {
		if k != 0 && t.built[s] {
			n++
		}
	}
	return n
}

// DrawOrder returns the slots with geometry, nearest bounds centre first. The
// order is cached until a slot's content changes or the camera moves more
// than 4 m.
func (t *Table) DrawOrder(cam [3]float64) []int32 {
	if t.orderOK && t.orderVer == t.version && dist2(cam, t.orderCam) <= drawOrderMove*drawOrderMove {
		return t.order
	}
	t.order = t.order[:0]
	for s := range t.keys {
		if t.count[s] > 0 {
			t.order = append(t.order, int32(s))
		}
	}
	slices.SortFunc(t.order, func(a, b int32) int {
		da, db := dist2(t.bound[a].Centre(), cam), dist2(t.bound[b].Centre(), cam)
		switch {
		case da < db:
			return -1
		case da > db:
			return 1
		}
		return int(a - b)
	})
	t.orderVer, t.orderCam, t.orderOK = t.version, cam, true
	t.orderBuilds++
	return t.order
}

// OrderRecomputes counts how often the draw order was recomputed.
func (t *Table) OrderRecomputes() int { return t.orderBuilds }

func dist2(a, b [3]float64) float64 {
	dx, dy, dz := a[0]-b[0], a[1]-b[1], a[2]-b[2]
	return dx*dx + dy*dy + dz*dz
}

// BoundsOf computes the bounds of count vertices, offset by origin.
func BoundsOf(verts []uint32, count int, origin [3]float64) Bounds {
	b := Bounds{Min: [3]float64{math.Inf(1), math.Inf(1), math.Inf(1)}, Max: [3]float64{math.Inf(-1), math.Inf(-1), math.Inf(-1)}}
	for i := 0; i < count; i++ {
		var v [3]float32
		v[0], v[1], v[2] = UnpackPos(verts[i*WordsPerVertex], verts[i*WordsPerVertex+1])
		for a := 0; a < 3; a++ {
			p := origin[a] + float64(v[a])
			b.Min[a] = math.Min(b.Min[a], p)
			b.Max[a] = math.Max(b.Max[a], p)
		}
	}
	if count == 0 {
		return Bounds{Min: origin, Max: origin}
	}
	return b
}
