package main

import (
	"flag"
	"runtime"

	"citydrive/buildworkers"
	"citydrive/roadgraph/world"
)

// streamFlags are the streaming budgets every driving command shares.
type streamFlags struct {
	seed           *uint64
	slots          *int
	slotVerts      *int
	workers        *int
	inflight       *int
	viewCost       *float64
	buildsPerFrame *int
	uploadKB       *int
	farSlots       *int
	farSlotVerts   *int
	farCost        *float64
}

// defaultWorkers leaves one core to the main goroutine.
func defaultWorkers() int { return max(1, runtime.NumCPU()-1) }

func addStreamFlags(fs *flag.FlagSet) *streamFlags {
	d := buildworkers.DefaultConfig()
	return &streamFlags{
		seed:           fs.Uint64("seed", defaultSeed, "world seed: the same seed is the same city for every player"),
		slots:          fs.Int("slots", d.Slots.Slots, "slots in the vertex buffer (and the walk's item cap)"),
		slotVerts:      fs.Int("slot-verts", d.Slots.VertsPerSlot, "vertices per slot (24 bytes each)"),
		workers:        fs.Int("workers", defaultWorkers(), "build worker goroutines (0: the main goroutine builds)"),
		inflight:       fs.Int("inflight", d.MaxInFlight, "build requests in flight per worker"),
		viewCost:       fs.Float64("view-cost", d.Walk.ViewCost, "walk cost limit (metres × weight): how far the city reaches"),
		buildsPerFrame: fs.Int("builds-per-frame", d.MainBuildsPerFrame, "items the main goroutine builds per frame once workers have failed"),
		uploadKB:       fs.Int("upload-kb", d.UploadBytesPerFrame>>10, "vertex KiB applied to slots per frame (at least one item always lands)"),
		farSlots:       fs.Int("far-slots", d.Far.Slots, "far-tier slots (one coarse item per lattice edge, past the near walk; 0: no far tier)"),
		farSlotVerts:   fs.Int("far-slot-verts", d.Far.VertsPerSlot, "vertices per far slot (24 bytes each)"),
		farCost:        fs.Float64("far-cost", d.Far.Walk.Cost, "far walk cost limit (metres × weight): 2,400 reaches 2.4 km ahead, ~900 m behind"),
	}
}

// config turns the flags into a validated streaming config.
func (f *streamFlags) config() (buildworkers.Config, world.World, error) {
	c := buildworkers.DefaultConfig()
	c.Slots.Slots = *f.slots
	c.Slots.VertsPerSlot = *f.slotVerts
	c.Walk.ViewCost = *f.viewCost
	c.Workers = *f.workers
	c.MaxInFlight = *f.inflight
	c.MainBuildsPerFrame = *f.buildsPerFrame
	c.UploadBytesPerFrame = *f.uploadKB << 10
	c.Far.Slots = *f.farSlots
	c.Far.VertsPerSlot = *f.farSlotVerts
	c.Far.Walk.Cost = *f.farCost
	w := world.New(*f.seed)
	verts := *f.slotVerts
	c.NewBuilder = func() buildworkers.Builder { return buildworkers.NewCityBuilder(w, verts) }
	if c.EvictKeep < c.Walk.ViewCost*1.5 {
		c.EvictKeep = c.Walk.ViewCost * 1.5
	}
	return c, w, c.Validate()
}
