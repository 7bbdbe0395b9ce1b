//go:build js && wasm

// Command wasm is the browser game: package game's frame loop, drawn by
// render/webgl into the page's canvas. With a join code in the fragment
// and a server that takes browsers (/play/config), it joins that server
// over WebTransport (join.go) and plays in its world, as `citydrive join`
// does; otherwise it plays solo on a server in the page (solo.go), with
// its edits kept in IndexedDB. It publishes window.citydrive.stats (see statsEvery) and
// window.citydrive.link, and takes window.citydrive.edit(x, y, z, block)
// and window.citydrive.terrainChunk(x, y, z) (probe.go).
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"strconv"
	"strings"
	"syscall/js"

	"citydrive/buildworkers"
	"citydrive/cmd/citydrive/internal/game"
	"citydrive/netsync"
	"citydrive/render/scene"
	"citydrive/render/webgl"
	"citydrive/roadgraph/world"
	"citydrive/voxel/ground"
)

// statsEvery is how many frames pass between the statistics' quantiles
// (sorting every frame's times each frame would itself cost a frame).
const statsEvery = 30

// statsEveryMs bounds the wait between two of them in wall time.
const statsEveryMs = 2000

// defaultSeed is the world without ?seed= or a join code.
const defaultSeed = 1

// maxInFlight bounds the builds a worker holds: on one thread the worker
// runs them while the frame goroutine waits for the next animation frame,
// so this bounds the build work between two frames.
const maxInFlight = 2

func main() {
	doc := js.Global().Get("document")
	hud := doc.Call("getElementById", "hud")
	stats := doc.Call("getElementById", "stats")
	page := js.Global().Get("citydrive")
	perf := js.Global().Get("performance")
	fail := func(err error) {
		page.Set("error", err.Error())
		hud.Set("textContent", "citydrive: "+err.Error())
		js.Global().Get("console").Call("error", err.Error())
	}
	defer func() { // a panic ends the program: say so on the page, not only in the console
		if r := recover(); r != nil {
			fail(fmt.Errorf("the game stopped: %v", r))
			panic(r)
		}
	}()
	loc := js.Global().Get("location")
	q, _ := url.ParseQuery(strings.TrimPrefix(loc.Get("search").String(), "?"))
	code, joining, err := parseJoinCode(loc.Get("hash").String())
	if err != nil {
		fail(err)
		return
	}
	seed, err := seedOf(q.Get("seed"), code, joining)
	if err != nil {
		fail(err)
		return
	}
	autopilot := q.Get("autopilot") == "1"
	log := slog.New(slog.NewTextHandler(console{}, &slog.HandlerOptions{Level: slog.LevelInfo}))
	id := pageIdentity(log)
	name, err := pageName(q)
	if err != nil {
		fail(err)
		return
	}

	// Joined: the server's world and the car where the server puts it.
	var c *netsync.Client
	var redial game.Dialer
	var start world.Vec2
	linkObj := js.Global().Get("Object").New()
	linkObj.Set("connected", false)
	linkObj.Set("key", fmt.Sprintf("%016x", id.Key()))
	linkObj.Set("name", name)
	page.Set("link", linkObj)
	if joining {
		j := joiner{code: code, id: id, name: name, log: log}
		hud.Set("textContent", "joining "+code.addr+" over WebTransport…")
		t0 := perf.Call("now").Float()
		ctx, cancel := context.WithTimeout(context.Background(), dialTimeout)
		target, err := fetchConfig(ctx, code)
		switch {
		case errors.Is(err, errNoWebTransport):
			log.Info("playing solo", "why", err) // the page's solo server, in the code's world
		case err != nil:
			cancel()
			fail(err)
			return
		default:
			if c, err = j.dialTarget(ctx, target); err != nil {
				cancel()
				fail(err)
				return
			}
			linkObj.Set("connectMs", perf.Call("now").Float()-t0)
			redial = j.dial
			x, _, z := c.Spawn().Position()
			start = world.Vec2{X: x, Z: z}
			seed = code.seed
			log.Info("joined over WebTransport", "server", code.addr, "player", c.Player(), "url", target.URL)
		}
		cancel()
	}
	if c == nil { // solo: the page's own server, as the desktop runs one on loopback
		linkObj.Set("solo", true)
		solo, err := startSolo(seed, log)
		if err != nil {
			fail(err)
			return
		}
		defer solo.close()
		hooks, release := solo.hooks()
		defer release()
		page.Set("solo", hooks)
		if c, err = solo.dial(id, name, log); err != nil {
			fail(err)
			return
		}
		log.Info("playing solo on the page's own server", "seed", seed, "edited_blocks", solo.world.Edited())
	}

	cfg := buildworkers.DefaultConfig()
	cfg.MaxInFlight = maxInFlight
	w := world.New(seed)
	cfg.NewBuilder = func() buildworkers.Builder { return buildworkers.NewCityBuilder(w, cfg.Slots.VertsPerSlot) }
	d, err := webgl.New(doc.Call("getElementById", "view"), hud, cfg.Layout())
	if err != nil {
		fail(err)
		return
	}
	audioObj := js.Global().Get("Object").New()
	page.Set("audio", audioObj)
	opt := game.Options{Streaming: cfg, World: w, Display: d, Autopilot: autopilot,
		Traffic: true, TimeOfDay: 11, Log: log, Out: console{}, Start: start}
	var audio *pageAudio
	if q.Get("mute") == "1" {
		audioObj.Set("state", "muted (?mute=1)")
	} else {
		audio = newPageAudio(audioObj)
		opt.Sound = audio.synth
	}
	if c != nil {
		opt.Net, opt.Redial, opt.TerrainRadius = c, redial, ground.DefaultRadius
	}
	s, err := game.New(opt)
	if err != nil {
		fail(err)
		return
	}
	edit := editHook(s)
	defer edit.Release()
	page.Set("edit", edit)
	probe := terrainHook(d)
	defer probe.Release()
	page.Set("terrainChunk", probe)
	st := js.Global().Get("Object").New()
	page.Set("stats", st)
	st.Set("seed", strconv.FormatUint(seed, 10))
	st.Set("autopilot", autopilot)
	st.Set("loading", true)
	var frames int
	var first float64 // ms from navigation to the first frame of the world
	var last, fps, prev float64
	var lastFrames int
	d.OnPresent = func() {
		now := perf.Call("now").Float()
		if audio != nil && prev > 0 {
			audio.pump((now - prev) / 1000)
		}
		prev = now
		ds := d.Stats()
		if c != nil {
			publishLink(linkObj, s.Link())
		}
		if d.Loading() {
			st.Set("loading", true)
			return
		}
		if first == 0 {
			first = now
			st.Set("firstFrameMs", first)
			st.Set("loading", false)
		}
		frames++
		st.Set("presented", frames) // every frame: fps over any window, not only statsEvery's
		d.PublishStats(st)          // counters, every frame: a test sees a re-mesh the frame it is stored
		// Every statsEvery frames, or statsEveryMs on a page drawing a
		// frame a second or less (a loaded machine, SwiftShader).
		if frames%statsEvery != 0 && now-last < statsEveryMs {
			return
		}
		if last > 0 {
			fps = float64(frames-lastFrames) * 1000 / (now - last)
		}
		last, lastFrames = now, frames
		sum := s.Summarise()
		st.Set("frames", sum.Frames)
		st.Set("fps", fps)
		st.Set("frameMsP50", sum.FrameMSMedian) // main-thread work per frame: update + draw calls
		st.Set("frameMsP99", sum.FrameMSP99)
		st.Set("updateMsP50", sum.WorkUSMedian/1000)
		st.Set("updateMsP99", sum.WorkUSP99/1000)
		st.Set("builds", sum.Stats.Builds)
		st.Set("stale", sum.Stats.StaleDropped)
		st.Set("overflows", sum.Stats.Overflows)
		st.Set("slots", sum.Stats.Used)
		st.Set("km", sum.Drive.Distance/1000)
		st.Set("multiDraws", ds.Main.MultiDraws)
		st.Set("draws", ds.Main.Draws)
		st.Set("vertices", ds.Main.Vertices)
		st.Set("fallback", sum.Stats.Fallback)
		stats.Set("textContent", fmt.Sprintf("%s%.0f fps  frame work p50 %.1f ms p99 %.1f ms  %d builds  %d stale  %d slots  %s",
			linkText(c, s.Link()), fps, sum.FrameMSMedian, sum.FrameMSP99, sum.Stats.Builds, sum.Stats.StaleDropped, sum.Stats.Used, drawsText(ds)))
	}
	if err := s.Run(); err != nil {
		fail(err)
	}
	s.Close()
}

// linkText is the stats line's connection part ("" solo).
func linkText(c *netsync.Client, l game.LinkState) string {
	switch {
	case c == nil:
		return ""
	case !l.Connected:
		return "reconnecting…  "
	}
	return fmt.Sprintf("player %d  edits %d/%d  ", l.Player, l.EditsApplied, l.EditsSent)
}

func drawsText(ds scene.Stats) string {
	if ds.Main.MultiDraws > 0 {
		return fmt.Sprintf("%d multi-draws", ds.Main.MultiDraws)
	}
	return fmt.Sprintf("%d draws", ds.Main.Draws)
}

// seedOf is ?seed= if given, else the join code's seed, else
// defaultSeed. Joined, the server's world wins (main).
func seedOf(param string, code joinCode, joining bool) (uint64, error) {
	switch {
	case param != "":
		v, err := strconv.ParseUint(param, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("?seed=%q is not a seed (a whole number)", param)
		}
		return v, nil
	case joining:
		return code.seed, nil
	}
	return defaultSeed, nil
}

// console writes the game's log and summary to the browser's console.
type console struct{}

func (console) Write(b []byte) (int, error) {
	js.Global().Get("console").Call("log", strings.TrimRight(string(b), "\n"))
	return len(b), nil
}

var _ io.Writer = console{}
