// Package meshpool is the client-side chunk manager: it materialises
// delivered chunks, meshes them on a worker pool and hands finished meshes
// to the renderer through MeshSink, under per-frame budgets.
//
// Staleness: every dispatch takes a token from one counter shared by all
// positions; the manager records the latest token per position, and a
// finished mesh is applied only if its chunk is still resident and its
// token is that latest one. Late results are thus harmless, so re-meshing
// is just a new dispatch.
package meshpool

import (
	"sync"

	"citydrive/voxel"
	"citydrive/voxel/mesh"
)

// Per-frame budgets. Arrivals are the expensive part of a delivery burst;
// one arrival can queue seven meshes (itself and six neighbours), hence
// the larger dispatch budget. Ingesting finished meshes is cheap and
// unbounded, as are drops (freeing memory should not wait).
const (
	ArrivalsPerFrame   = 4
	DispatchesPerFrame = 16
)

// jobQueue bounds jobs waiting for a worker; excess stays pending.
const jobQueue = 2 * DispatchesPerFrame

// MeshSink receives meshes; the renderer implements it. Insert replaces
// any mesh at m.Pos. Both are called from Update's goroutine only.
type MeshSink interface {
	Insert(m *mesh.Mesh)
	Remove(p voxel.ChunkPos)
}

// Job is one mesh request: immutable snapshots of the chunk and its
// neighbours at dispatch time (shared pointers, never copied or mutated).
type Job struct {
	Pos        voxel.ChunkPos
	Token      uint64
	Chunk      *voxel.Chunk
	Neighbours mesh.Neighbours
}

// MeshFunc turns a job into a mesh; it runs on worker goroutines.
type MeshFunc func(Job) *mesh.Mesh

// Build is the default MeshFunc: the greedy mesher.
func Build(j Job) *mesh.Mesh {
	return &mesh.Mesh{Pos: j.Pos, Token: j.Token, Quads: mesh.Build(nil, j.Chunk, &j.Neighbours)}
}

type msgKind uint8

const (
	msgChunk msgKind = iota
	msgDrop
	msgEdit
)

type message struct {
	kind  msgKind
	pos   voxel.ChunkPos
	chunk *voxel.Chunk
	index int
	block voxel.Block
}

// Manager is the client chunk manager. Deliver/Drop/Edit and Update are
// called from one goroutine (the frame loop); Close from the same.
type Manager struct {
	sink     MeshSink
	inbox    []message // delivery order preserved: an edit never overtakes its chunk
	resident map[voxel.ChunkPos]*voxel.Chunk
	pending  map[voxel.ChunkPos]struct{}
	order    []voxel.ChunkPos // pending, first queued first
	latest   map[voxel.ChunkPos]uint64
	token    uint64 // the one global dispatch counter
	jobs     chan Job
	results  chan *mesh.Mesh
	done     chan struct{}
	wg       sync.WaitGroup
	closed   bool
	scratch  []voxel.ChunkPos
}

// New starts workers (at least one) running fn (nil: Build).
func New(sink MeshSink, workers int, fn MeshFunc) *Manager {
	if fn == nil {
		fn = Build
	}
	workers = max(workers, 1)
	m := &Manager{
		sink:     sink,
		resident: map[voxel.ChunkPos]*voxel.Chunk{},
		pending:  map[voxel.ChunkPos]struct{}{},
		latest:   map[voxel.ChunkPos]uint64{},
		jobs:     make(chan Job, jobQueue),
		results:  make(chan *mesh.Mesh, jobQueue+workers),
		done:     make(chan struct{}),
	}
	for range workers {
		m.wg.Go(func() {
			for {
				select {
				case <-m.done:
					return
				case j := <-m.jobs:
					r := fn(j)
					select {
					case m.results <- r:
					case <-m.done:
						return
					}
				}
			}
		})
	}
	return m
}

// Deliver queues a chunk arrival (the chunk becomes an immutable snapshot).
func (m *Manager) Deliver(p voxel.ChunkPos, c *voxel.Chunk) {
	m.inbox = append(m.inbox, message{kind: msgChunk, pos: p, chunk: c})
}

// Drop queues a chunk's removal.
func (m *Manager) Drop(p voxel.ChunkPos) { m.inbox = append(m.inbox, message{kind: msgDrop, pos: p}) }

// Edit queues a block edit; it re-meshes the chunk and every neighbour the
// block touches (voxel.Touched).
func (m *Manager) Edit(p voxel.ChunkPos, idx int, b voxel.Block) {
	m.inbox = append(m.inbox, message{kind: msgEdit, pos: p, index: idx, block: b})
}

// Update runs one frame: ingest every finished mesh, materialise at most
// ArrivalsPerFrame arrivals (drops and edits in between are free), then
// dispatch at most DispatchesPerFrame mesh jobs.
func (m *Manager) Update() {
	m.ingest()
	m.materialise()
	m.dispatch()
}

func (m *Manager) ingest() {
	for {
		select {
		case r := <-m.results:
			if tok, ok := m.latest[r.Pos]; !ok || tok != r.Token {
				continue // superseded by a newer dispatch, or dropped
			}
			delete(m.latest, r.Pos)
			if _, ok := m.resident[r.Pos]; ok {
				m.sink.Insert(r)
			}
		default:
			return
		}
	}
}

func (m *Manager) materialise() {
	arrivals, i := 0, 0
	for ; i < len(m.inbox); i++ {
		msg := m.inbox[i]
		switch msg.kind {
		case msgChunk:
			if arrivals == ArrivalsPerFrame {
				goto out
			}
			arrivals++
			m.resident[msg.pos] = msg.chunk
			m.queueWithNeighbours(msg.pos)
		case msgDrop:
			if _, ok := m.resident[msg.pos]; !ok {
				continue
			}
			delete(m.resident, msg.pos)
			delete(m.latest, msg.pos) // its in-flight mesh is now stale
			m.sink.Remove(msg.pos)
			m.queueWithNeighbours(msg.pos) // their boundary now faces air
		case msgEdit:
			c, ok := m.resident[msg.pos]
			if !ok || msg.index < 0 || msg.index >= voxel.ChunkVolume {
				continue
			}
			c = c.Clone() // snapshots held by jobs stay intact
			c.SetIndex(msg.index, msg.block)
			m.resident[msg.pos] = c
			m.scratch = voxel.Touched(msg.pos, msg.index, m.scratch[:0])
			for _, p := range m.scratch {
				m.queue(p)
			}
		}
	}
out:
	m.inbox = append(m.inbox[:0], m.inbox[i:]...)
}

func (m *Manager) queueWithNeighbours(p voxel.ChunkPos) {
	m.queue(p)
	for f := voxel.Face(0); f < voxel.NumFaces; f++ {
		m.queue(p.Neighbour(f))
	}
}

// queue adds a resident chunk to the de-duplicated pending set.
func (m *Manager) queue(p voxel.ChunkPos) {
	if _, ok := m.resident[p]; !ok {
		return
	}
	if _, dup := m.pending[p]; dup {
		return
	}
	m.pending[p] = struct{}{}
	m.order = append(m.order, p)
}

func (m *Manager) dispatch() {
	n, i := 0, 0
	for ; i < len(m.order) && n < DispatchesPerFrame; i++ {
		p := m.order[i]
		delete(m.pending, p)
		c, ok := m.resident[p]
		if !ok {
			continue // dropped since it was queued
		}
		j := Job{Pos: p, Token: m.token + 1, Chunk: c}
		for f := voxel.Face(0); f < voxel.NumFaces; f++ {
			j.Neighbours[f] = m.resident[p.Neighbour(f)]
		}
		select {
		case m.jobs <- j:
			m.token++ // wraps after 2⁶⁴ dispatches: harmless
			m.latest[p] = j.Token
			n++
		default: // workers saturated: keep it pending for the next frame
			m.pending[p] = struct{}{}
			goto out
		}
	}
out:
	m.order = append(m.order[:0], m.order[i:]...)
}

// Chunk returns a resident chunk snapshot.
func (m *Manager) Chunk(p voxel.ChunkPos) (*voxel.Chunk, bool) {
	c, ok := m.resident[p]
	return c, ok
}

// Resident, Pending, InFlight and Queued report sizes for HUDs and tests.
func (m *Manager) Resident() int { return len(m.resident) }
func (m *Manager) Pending() int  { return len(m.pending) }
func (m *Manager) InFlight() int { return len(m.latest) }
func (m *Manager) Queued() int   { return len(m.inbox) }

// Close stops the workers.
func (m *Manager) Close() {
	if m.closed {
		return
	}
	m.closed = true
	close(m.done)
	m.wg.Wait()
}
