package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"time"

	"citydrive/cmd/citydrive/internal/soak"
)

func runSoak(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("soak", stdout, "soak [flags]", soakAbout)
	sf := addStreamFlags(fs.FlagSet)
	duration := fs.Duration("duration", 2*time.Minute, "game time to drive (simulated, not paced)")
	asJSON := fs.Bool("json", false, "print the report as one JSON object as the last line")
	verbose := fs.Bool("v", false, "log the game's and the server's messages to stderr")
	hour := addTimeFlag(fs.FlagSet, 0, "time of day in hours, 0..24, the city's traffic runs at: busiest at 8 and 17.5")
	fs.alias("hour", "time")
	withTraffic := fs.Bool("traffic", true, "drive among the city's traffic (-traffic=false: empty roads)")
	frames := fs.Bool("frames", true, "build each frame's description (slot groups, far tier, HUD) as the game does; -frames=false skips it, as the sweep does: the drive is the same, the work per frame is not")
	cpuprofile := fs.String("cpuprofile", "", "write a CPU profile of the soak to this `file`")
	var start pointFlag
	fs.Var(&start, "start", "start on the road nearest `x,z` metres (a stuck episode logs its -start)")
	replays := fs.String("replays", "", "write the drive's replay, and one of each stuck episode and contact, into this `directory` (citydrive replay plays them)")
	if err := fs.parse(args); err != nil {
		return err
	}
	if *duration <= 0 || *duration > 24*time.Hour {
		return fmt.Errorf("-duration must be in (0, 24h], got %v", *duration)
	}
	cfg, w, err := sf.config()
	if err != nil {
		return err
	}
	if err := checkTime(*hour); err != nil {
		return err
	}
	if err := checkOptionalFile("cpuprofile", *cpuprofile); err != nil {
		return err
	}
	if *replays != "" {
		if err := checkOutputDir("replays", *replays); err != nil {
			return err
		}
	}
	if err := ready(); err != nil {
		return err
	}
	stop, err := startCPUProfile(*cpuprofile)
	if err != nil {
		return err
	}
	defer stop()
	level := slog.LevelWarn
	if *verbose {
		level = slog.LevelInfo
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	r, err := soak.Run(context.Background(), soak.Options{
		Seed: *sf.seed, Duration: *duration, Start: start.p, Streaming: cfg, World: w, Log: log,
		Hour: *hour, Traffic: *withTraffic, Undrawn: !*frames, Replays: *replays,
	})
	if err != nil {
		return err
	}
	fmt.Fprint(stdout, r.String())
	if *asJSON {
		b, err := json.Marshal(r)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s\n", b)
	}
	return nil
}

const soakAbout = `The real game loop with no window, as fast as the machine allows: streamer
and workers, car physics and obstacles, the autopilot, and the voxel ground
through a solo server on loopback. Prints what a player's drive was like.`
