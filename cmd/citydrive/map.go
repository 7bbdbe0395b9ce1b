package main

import (
	"fmt"
	"image/png"
	"io"
	"os"
	"time"

	"citydrive/buildworkers"
	"citydrive/cmd/citydrive/internal/mapimg"
	"citydrive/roadgraph"
	"citydrive/roadgraph/world"
	"citydrive/slots"
	"citydrive/walker"
)

func runMap(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("map", stdout, "map [flags]", mapAbout)
	seed := fs.Uint64("seed", defaultSeed, "world seed")
	out := fs.String("o", "map.png", "output PNG `file`")
	var at pointFlag
	fs.Var(&at, "start", "the car on the road nearest `x,z` metres (default: a road near the origin)")
	fs.alias("at", "start")
	size := fs.Int("size", 1024, "picture size in pixels")
	scale := fs.Float64("scale", 1.6, "metres per pixel")
	occupancy := fs.Bool("occupancy", false, "stream through the real slot table and workers and show slot occupancy (built: cost colour, pending: pale)")
	frames := fs.Int("frames", 6, "with -occupancy: 60 Hz frames of streaming before the picture")
	if err := fs.parse(args); err != nil {
		return err
	}
	if *size < 16 || *size > 8192 {
		return fmt.Errorf("-size must be 16..8192, got %d", *size)
	}
	if !(*scale > 0.01 && *scale < 1000) {
		return fmt.Errorf("-scale must be in (0.01, 1000) m/px, got %g", *scale)
	}
	if *occupancy && (*frames < 0 || *frames > 100000) {
		return fmt.Errorf("-frames must be 0..100000, got %d", *frames)
	}
	if err := checkOutputFile("o", *out); err != nil {
		return err
	}
	if err := ready(); err != nil {
		return err
	}
	w := world.New(*seed)
	g := roadgraph.New(w)
	pos, heading, err := startPose(g, at)
	if err != nil {
		return err
	}
	wk, err := walker.New(walker.DefaultParams(), slots.DefaultSlots)
	if err != nil {
		return err
	}
	items := wk.Walk(g, pos, heading)
	var occ map[int64]mapimg.SlotState
	if *occupancy {
		var note string
		g, items, occ, note, err = streamOccupancy(*seed, pos, heading, *frames)
		if err != nil {
			return err
		}
		fmt.Fprintln(stdout, note)
	}
	img := mapimg.Draw(mapimg.Scene{
		World: w, Graph: g, Visible: items, Slots: occ, Car: pos, Heading: heading,
		Centre: pos, Size: *size, Scale: *scale, MaxCost: wk.Params().ViewCost,
	})
	f, err := os.Create(*out)
	if err != nil {
		return err
	}
	if err := png.Encode(f, img); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s: %d edges, %d junctions loaded, %d visible items around (%.0f, %.0f)\n",
		*out, len(g.Edges()), len(g.Junctions()), len(items), pos.X, pos.Z)
	return nil
}

const mapAbout = `Draws a top-down picture of the road network around a car, with the items
the walker would stream in, coloured by cost. No GPU or display needed.`

// startPose puts the car on the road nearest at (or near the origin): the
// middle of a segment, heading along it.
func startPose(g *roadgraph.Graph, at pointFlag) (world.Vec2, world.Vec2, error) {
	j := g.JunctionNear(at.p)
	if j == nil {
		return world.Vec2{}, world.Vec2{}, fmt.Errorf("no road within a few hundred metres of %s (lake?)", at.String())
	}
	g.EnsureJunctionArms(j)
	h, ok := g.Nearest(at.p)
	if !ok {
		return world.Vec2{}, world.Vec2{}, fmt.Errorf("no road near %s", at.String())
	}
	if !at.set {
		// Default: the middle of the longest arm of the junction.
		e := j.Arms[0]
		for _, a := range j.Arms {
			if a.Segments() > e.Segments() {
				e = a
			}
		}
		h.Edge, h.Seg = e, e.Segments()/2
	}
	e := h.Edge
	return e.Nodes[h.Seg].Lerp(e.Nodes[h.Seg+1], 0.5), e.Tangent(h.Seg), nil
}

// streamOccupancy runs the real streamer (workers, CPU slot buffer) for a
// number of frames with the car standing at pos, and reports each visible
// item's slot state.
func streamOccupancy(seed uint64, pos, heading world.Vec2, frames int) (*roadgraph.Graph, []walker.Item, map[int64]mapimg.SlotState, string, error) {
	cfg := buildworkers.DefaultConfig()
	cfg.Workers = defaultWorkers()
	w := world.New(seed)
	cfg.NewBuilder = func() buildworkers.Builder { return buildworkers.NewCityBuilder(w, cfg.Slots.VertsPerSlot) }
	buf, err := slots.NewCPUBuffer(cfg.Slots)
	if err != nil {
		return nil, nil, nil, "", err
	}
	now := time.Now()
	s, err := buildworkers.NewStreamer(cfg, w, buf, now)
	if err != nil {
		return nil, nil, nil, "", err
	}
	defer s.Close()
	for f := 0; f < frames; f++ {
		now = now.Add(time.Second / 60)
		s.Update(1.0/60, pos, heading, now)
		time.Sleep(time.Second / 60) // give the workers a frame's time, as the game does
	}
	t := s.Table()
	occ := map[int64]mapimg.SlotState{}
	items := append([]walker.Item(nil), s.Visible()...)
	for _, it := range items {
		if sl, ok := t.SlotOf(it.Key); ok {
			occ[it.Key] = mapimg.SlotPending
			if t.Built(sl) {
				occ[it.Key] = mapimg.SlotBuilt
			}
		}
	}
	st := s.Stats()
	note := fmt.Sprintf("after %d frames: %d of %d slots used, %d built, %d pending, %d in flight", frames, st.Used, st.Total, t.BuiltCount(), st.Pending, st.InFlight)
	return s.Graph(), items, occ, note, nil
}
