// Package soak runs the real game loop headless, as fast as the machine
// allows: the streamer and its workers, car physics against the obstacles,
// the autopilot, and the voxel ground through a solo server on loopback
// QUIC. No window and no GL: the game draws into a game.Headless display.
//
// Faster than real time, the workers' results would arrive later in game
// time than a player sees them, and the car would meet a world that is
// not there yet. So the session runs paced: every frame is 1/60 s of game
// time, the loop waits for the workers between frames, and each result is
// handed over at the game time a 60 fps player's worker would have
// finished it (buildworkers.Streamer.Pace).
package soak

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"citydrive/buildworkers"
	"citydrive/cmd/citydrive/internal/game"
	"citydrive/cmd/citydrive/internal/host"
	"citydrive/cmd/citydrive/internal/replay"
	"citydrive/netsync"
	"citydrive/roadgraph/world"
	"citydrive/voxel/ground"
)

// Options configure a soak.
type Options struct {
	Seed      uint64
	Duration  time.Duration // game time
	Start     world.Vec2
	Streaming buildworkers.Config
	World     world.World
	Log       *slog.Logger // nil: discarded
	Traffic   bool         // drive among the city's traffic (the command's default)
	Hour      float64      // time of day: traffic is busiest in the rush hours
	// Undrawn skips the frame description a display would draw
	// (game.Options.Undrawn): the drive is the same, the main goroutine's
	// work per frame is not.
	Undrawn bool
	// Replays is a directory the drive's replay (drive.replay) and one of
	// each stuck episode and contact (up to 8: the drive from its start to
	// 3 s after it) are written to; "": none.
	Replays string

	display game.Display // nil: game.NewHeadless() (tests: one whose keys drive)
}

// Report is what a soak measured. JSON field names are the -json output.
type Report struct {
	Seed            uint64  `json:"seed"`
	GameSeconds     float64 `json:"game_s"`
	WallSeconds     float64 `json:"wall_s"`
	KM              float64 `json:"km"`
	AverageKMH      float64 `json:"avg_kmh"`
	StuckEpisodes   int     `json:"stuck_episodes"`
	LongestStuckS   float64 `json:"longest_stuck_s"`
	Contacts        int     `json:"contacts"`
	CarContacts     int     `json:"parked_car_contacts"`
	TrafficContacts int     `json:"traffic_contacts"`
	TrafficMean     float64 `json:"traffic_vehicles_mean"`
	TrafficMax      int     `json:"traffic_vehicles_max"`
	TrafficFarMean  float64 `json:"traffic_far_drawn_mean"` // far vehicles drawn per frame (in view, beyond the simulated ones)
	TrafficLagging  int     `json:"traffic_held_up_max"`
	TrafficUSP50    float64 `json:"traffic_us_p50"`
	TrafficUSP99    float64 `json:"traffic_us_p99"`
	TrafficCPUUSP50 float64 `json:"traffic_cpu_us_p50"` // the same on the thread's CPU clock
	TrafficCPUUSP99 float64 `json:"traffic_cpu_us_p99"`
	// the traffic goroutine's step a frame ahead (trafficframe.Pipeline) on its thread's CPU clock
	// (the frames that computed their traffic themselves are in the figures above)
	TrafficWorkerCPUUSP50 float64 `json:"traffic_worker_cpu_us_p50"`
	TrafficWorkerCPUUSP99 float64 `json:"traffic_worker_cpu_us_p99"`
	TrafficWaits          int     `json:"traffic_main_waits"`  // frames that waited for the traffic goroutine to finish
	TrafficStolen         int     `json:"traffic_main_stolen"` // frames that computed the traffic the goroutine had not begun
	TrafficOwn            int     `json:"traffic_own_frames"`  // frames that computed their own (start, reset, clock jump)
	MinHeightM            float64 `json:"min_height_above_road_m"`
	Recoveries            int     `json:"autopilot_recoveries"`
	Frames                int     `json:"frames"`
	WorkUSP50             float64 `json:"main_work_us_p50"`
	WorkUSP99             float64 `json:"main_work_us_p99"`
	RoadUSP99             float64 `json:"road_streaming_us_p99"`
	VoxelUSP99            float64 `json:"voxel_network_us_p99"`
	Builds                int     `json:"builds"`
	StaleDropped          int     `json:"stale_dropped"`
	Fallback              string  `json:"fallback"`

	// ContactsByKind counts contacts by what they began on, every kind
	// present (game.ContactKinds); a contact with two kinds counts in both.
	ContactsByKind map[string]int `json:"contacts_by_kind"`

	// Replays is the files written to Options.Replays: the drive's first,
	// then each incident's, in order.
	Replays []string `json:"replays,omitempty"`
}

// soakEpoch is the world time a soak's server starts at.
const soakEpoch = 1_000_000 * time.Second

// Run drives for o.Duration of game time and reports.
func Run(ctx context.Context, o Options) (Report, error) {
	log := o.Log
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	data, err := os.MkdirTemp("", "citydrive-soak-")
	if err != nil {
		return Report{}, err
	}
	defer os.RemoveAll(data)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// The world clock starts at a fixed time, so a soak meets the same
	// traffic every run (the game takes the world time at its join,
	// rounded to the second).
	began := time.Now()
	clock := func() time.Duration { return soakEpoch + time.Since(began) }
	// The server judges a car's speed by when its snapshots arrive, in
	// wall time, and a soak drives many times faster than that: the rule
	// would hold the car back where it was a second ago.
	// Its spawn is the drive's start, as in solo play.
	tuning := netsync.DefaultServerConfig().Tuning
	tuning.MaxCarSpeed = 0
	tuning.SpawnX, tuning.SpawnZ = o.Start.X, o.Start.Z
	h, err := host.Start(ctx, host.Options{Addr: "127.0.0.1:0", DataDir: data, Seed: o.Seed, Logger: log, WorldClock: clock, Tuning: tuning})
	if err != nil {
		return Report{}, fmt.Errorf("starting the solo server: %w", err)
	}
	defer h.Close()
	cc := h.ClientConfig()
	cc.Radius, cc.Logger = ground.DefaultRadius, log
	dctx, dcancel := context.WithTimeout(ctx, 10*time.Second)
	c, err := netsync.Dial(dctx, cc)
	dcancel()
	if err != nil {
		return Report{}, fmt.Errorf("joining the solo server: %w", err)
	}
	wall := time.Now()
	display := o.display
	if display == nil {
		display = game.NewHeadless()
	}
	s, err := game.New(game.Options{
		Streaming: o.Streaming, World: o.World, Start: o.Start,
		Display: display, Autopilot: true,
		Duration: o.Duration, FixedStep: true, Paced: true, Undrawn: o.Undrawn,
		Net: c, Log: log, Out: io.Discard, Traffic: o.Traffic, TimeOfDay: o.Hour,
		Record: o.Replays != "", RecordIncidents: o.Replays != "",
	})
	if err != nil {
		return Report{}, err
	}
	defer s.Close()
	runErr := s.Run()
	var replays []string
	if o.Replays != "" {
		// Written whatever the end: a drive that failed is the one to see.
		if replays, err = WriteReplays(o.Replays, s.Recording()); err != nil && runErr == nil {
			runErr = fmt.Errorf("writing the replays: %w", err)
		}
	}
	if runErr != nil {
		return Report{}, runErr
	}
	sum := s.Summarise()
	d := sum.Drive
	ts := s.TrafficStats()
	return Report{
		Seed: o.Seed, GameSeconds: sum.GameSeconds, WallSeconds: time.Since(wall).Seconds(),
		KM: d.Distance / 1000, AverageKMH: d.AverageSpeed() * 3.6,
		StuckEpisodes: d.StuckEpisodes, LongestStuckS: d.LongestStuck,
		Contacts: d.Contacts, CarContacts: d.CarContacts, MinHeightM: d.MinHeight,
		TrafficContacts: d.TrafficContacts, ContactsByKind: contactsByKind(d), TrafficMean: ts.MeanVehicles, TrafficMax: ts.MaxVehicles, TrafficFarMean: ts.MeanFar, TrafficLagging: ts.MaxLagging, TrafficUSP50: ts.USP50, TrafficUSP99: ts.USP99,
		Recoveries: s.Recoveries(), Frames: sum.Frames,
		TrafficCPUUSP50: ts.CPUUSP50, TrafficCPUUSP99: ts.CPUUSP99, TrafficWorkerCPUUSP50: ts.WorkCPUUSP50, TrafficWorkerCPUUSP99: ts.WorkCPUUSP99,
		TrafficWaits: ts.Waits, TrafficStolen: ts.Stolen, TrafficOwn: ts.Own,
		WorkUSP50: sum.WorkUSMedian, WorkUSP99: sum.WorkUSP99, RoadUSP99: sum.RoadUSP99, VoxelUSP99: sum.VoxelUSP99,
		Builds: sum.Stats.Builds, StaleDropped: sum.Stats.StaleDropped, Fallback: sum.Stats.Fallback,
		Replays: replays,
	}, nil
}

// DriveReplay is the name of the whole drive's replay in Options.Replays.
const DriveReplay = "drive" + replay.Ext

// WriteReplays writes rec's drive to dir as DriveReplay and each
// incident's cut as KIND-N-at-Ss.replay (N counts the drive's incidents,
// S is when it began, in seconds), and returns their paths.
func WriteReplays(dir string, rec *replay.Recorder) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, DriveReplay)
	if err := replay.WriteFile(path, rec.File()); err != nil {
		return nil, err
	}
	paths := []string{path}
	for i, c := range rec.Cuts() {
		name := fmt.Sprintf("%s-%d-at-%ds%s", c.Incident.Kind, i+1, c.Incident.Step/game.PhysicsHz, replay.Ext)
		path := filepath.Join(dir, name)
		if err := replay.WriteFile(path, rec.CutFile(c)); err != nil {
			return paths, err
		}
		paths = append(paths, path)
	}
	return paths, nil
}

// contactsByKind is d's per-kind contact counts under their names.
func contactsByKind(d game.DriveStats) map[string]int {
	m := make(map[string]int, len(game.ContactKinds))
	for i, name := range game.ContactKinds {
		m[name] = d.ContactsByKind[i]
	}
	return m
}

// String is the report as lines for a person.
func (r Report) String() string {
	s := r.figures()
	for _, p := range r.Replays {
		s += "  replay:    citydrive replay " + p + "\n"
	}
	return s
}

func (r Report) figures() string {
	return fmt.Sprintf(`soak: seed %d, %.0f s of game time in %.1f s of wall time (%.1f× real time)
  driven:    %.2f km, average %.1f km/h
  stuck:     %d episodes (speed < 1 m/s for over 2 s), longest %.1f s; autopilot recoveries %d
  contacts:  %d with obstacles, %d with parked cars, %d with traffic
  traffic:   %.0f vehicles simulated per frame on average, %d at most, and %.0f far ones in view drawn; at most %d held up by the car at once; main-goroutine traffic work p50 %.0f µs, p99 %.0f µs
  height:    lowest %.3f m above the road surface
  frames:    %d; main-goroutine work per frame p50 %.0f µs, p99 %.0f µs (road streaming p99 %.0f µs, voxel + network p99 %.0f µs)
  streaming: %d builds, %d stale dropped, fallback %q
  traffic work on the thread's CPU clock (others' time left out): p50 %.0f µs, p99 %.0f µs; the traffic goroutine's step a frame ahead: p50 %.0f µs, p99 %.0f µs; the main goroutine waited for it in %d frames, computed what it had not begun in %d and its own in %d
`, r.Seed, r.GameSeconds, r.WallSeconds, r.GameSeconds/max(r.WallSeconds, 1e-9),
		r.KM, r.AverageKMH, r.StuckEpisodes, r.LongestStuckS, r.Recoveries,
		r.Contacts, r.CarContacts, r.TrafficContacts, r.TrafficMean, r.TrafficMax, r.TrafficFarMean, r.TrafficLagging, r.TrafficUSP50, r.TrafficUSP99, r.MinHeightM, r.Frames, r.WorkUSP50, r.WorkUSP99, r.RoadUSP99, r.VoxelUSP99,
		r.Builds, r.StaleDropped, r.Fallback,
		r.TrafficCPUUSP50, r.TrafficCPUUSP99, r.TrafficWorkerCPUUSP50, r.TrafficWorkerCPUUSP99, r.TrafficWaits, r.TrafficStolen, r.TrafficOwn)
}
