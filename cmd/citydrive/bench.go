package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"time"

	"citydrive/cmd/citydrive/internal/bench"
)

func runBench(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("bench", stdout, "bench [flags]", benchAbout)
	sf := addStreamFlags(fs.FlagSet)
	duration := fs.Duration("duration", 60*time.Second, "simulated driving time after the initial world is built")
	speed := fs.Float64("speed", 30, "autopilot speed in m/s")
	asJSON := fs.Bool("json", false, "print one JSON object as the last line of stdout")
	realtime := fs.Bool("realtime", true, "pace frames at 60 Hz of wall time, as the game does (false: back to back)")
	memprofile := fs.String("memprofile", "", "write an allocation profile (every allocation sampled) to this `file`")
	cpuprofile := fs.String("cpuprofile", "", "write a CPU profile of the bench to this `file`")
	withTraffic := fs.Bool("traffic", true, "measure the traffic work per frame too (-traffic=false: streaming only)")
	plan := fs.Bool("traffic-plan", true, "find the traffic's vehicles ahead on a goroutine (false: every frame searches the schedule on the main goroutine, the old way, for comparison, and no far traffic is drawn: it comes from the plans)")
	hour := addTimeFlag(fs.FlagSet, 17.5, "time of day in hours, 0..24, of the traffic: busiest at 8 and 17.5")
	fs.alias("hour", "time")
	var start pointFlag
	fs.Var(&start, "start", "start near `x,z` metres")
	if err := fs.parse(args); err != nil {
		return err
	}
	cfg, _, err := sf.config()
	if err != nil {
		return err
	}
	if *duration <= 0 || *duration > 24*time.Hour {
		return fmt.Errorf("-duration must be in (0, 24h], got %v", *duration)
	}
	if !(*speed > 0 && *speed <= 200) {
		return fmt.Errorf("-speed must be in (0, 200] m/s, got %g", *speed)
	}
	if err := checkTime(*hour); err != nil {
		return err
	}
	for name, path := range map[string]string{"memprofile": *memprofile, "cpuprofile": *cpuprofile} {
		if err := checkOptionalFile(name, path); err != nil {
			return err
		}
	}
	if err := ready(); err != nil {
		return err
	}
	if *memprofile != "" {
		runtime.MemProfileRate = 1
		defer func() {
			if f, err := os.Create(*memprofile); err == nil {
				pprof.Lookup("allocs").WriteTo(f, 0)
				f.Close()
			}
		}()
	}
	stop, err := startCPUProfile(*cpuprofile)
	if err != nil {
		return err
	}
	defer stop()
	rep, err := bench.Run(bench.Options{
		Seed: *sf.seed, Duration: *duration, Speed: *speed, Streaming: cfg,
		Realtime: *realtime, Start: start.p, Traffic: *withTraffic, Hour: *hour, NoTrafficPlan: !*plan,
	})
	if err != nil {
		return err
	}
	rep.WriteTable(stdout)
	if *asJSON {
		b, err := json.Marshal(rep)
		if err != nil {
			return err
		}
		fmt.Fprintln(stdout, string(b))
	}
	return nil
}

const benchAbout = `A headless run: the autopilot drives through the real walker, slots, workers
and a CPU slot buffer; prints what the main goroutine paid per frame.`
