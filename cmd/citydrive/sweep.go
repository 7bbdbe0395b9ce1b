package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"syscall"
	"time"

	"citydrive/cmd/citydrive/internal/sweep"
)

// newSoaker is how the sweep runs one soak: the same binary's soak
// command in a child process, with its share of the cores (parallel run
// at once). Tests swap it for their own binary.
var newSoaker = func(exe string, parallel int) sweep.Soaker {
	return sweep.Exec{Path: exe, Env: sweep.ChildEnv(nil, runtime.NumCPU(), parallel)}
}

// maxParallel bounds -parallel: each soak is a whole game with its
// workers, so far more than the cores only queues them in the kernel.
const maxParallel = 256

const sweepAbout = `Runs 'citydrive soak' over every seed of -seeds at every time of -times,
-parallel at a time, each in its own process, and checks each drive (the
streaming flags and -traffic below are passed on to every soak). A run
fails when the soak did not finish, or when its drive has
  - a stuck episode,
  - a contact with traffic,
  - more contacts with obstacles or parked cars than 1 per 10 km driven,
    rounded down (none in a drive under 10 km),
  - less than 0.5 km driven per simulated minute (1.5 km in 3m; the
    floor is -min-km-per-min),
  - fewer than 100 builds per simulated minute (300 in 3m),
  - the car lower than 0.05 m below the road surface.
A failing run prints a line with what broke and its replay to open
(citydrive replay FILE: the first stuck episode or contact, or the whole
drive); its replays (the drive's and each incident's), seed, hour,
report and log go to -out.
The end is a summary: runs, failing runs, stuck episodes, contacts by kind,
km, builds, average speed, the worst run and the ten slowest. The exit
status is non-zero when any run failed.`

func runSweep(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("sweep", stdout, "sweep [flags]", sweepAbout)
	seedList := fs.String("seeds", "1-100", "seeds to soak: a `list` of seeds and inclusive ranges, 1-1000 or 1,5,7-9")
	hourList := fs.String("times", "0,17.5", "times of day in hours (0..24) to soak each seed at, a comma-separated `list`: traffic is busiest at 8 and 17.5")
	fs.alias("hours", "times")
	duration := fs.Duration("duration", 3*time.Minute, "game time each soak drives (simulated, not paced); the distance and build floors scale with it")
	parallel := fs.Int("parallel", runtime.NumCPU(), "soaks run at once, each a process of its own")
	asJSON := fs.Bool("json", false, "print one JSON object per run as it finishes, then the summary as one JSON object as the last line (the failing-run lines go to stderr)")
	outDir := fs.String("out", "sweep-failures", "`directory` a failing run's drive (seed-S-hour-H.txt) and its replays (seed-S-hour-H-*.replay) are written to; made at the first failure")
	verbose := fs.Bool("v", false, "a line for every run, not only the failing ones")
	kmPerMin := fs.Float64("min-km-per-min", sweep.MinKMPerMinute, "the distance floor, `km` per simulated minute (a one-minute drive from rest may spend much of it at its first red lights)")
	soakArgs, validate := addSoakFlags(fs.FlagSet)
	if err := fs.parse(args); err != nil {
		return err
	}
	jobs, err := sweepJobs(*seedList, *hourList, *duration)
	if err != nil {
		return err
	}
	if !(*kmPerMin >= 0) || *kmPerMin > 100 {
		return fmt.Errorf("-min-km-per-min must be in [0, 100], got %v", *kmPerMin)
	}
	if *parallel < 1 || *parallel > maxParallel {
		return fmt.Errorf("-parallel must be in 1..%d, got %d", maxParallel, *parallel)
	}
	if err := validate(); err != nil {
		return err
	}
	if err := checkOutputDir("out", *outDir); err != nil {
		return err
	}
	if err := ready(); err != nil {
		return err
	}
	extra := soakArgs()
	for i := range jobs {
		jobs[i].Args, jobs[i].KMPerMinute = extra, *kmPerMin
	}
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("finding this binary to run the soaks: %w", err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	p := sweepPrinter{stdout: stdout, stderr: stderr, json: *asJSON, verbose: *verbose}
	began := time.Now()
	run := sweep.Runner{Soaker: newSoaker(exe, *parallel), Parallel: *parallel, Out: *outDir, Done: p.result}
	results, writeErr := run.Run(ctx, jobs)
	if writeErr != nil {
		fmt.Fprintf(stderr, "citydrive sweep: %v\n", writeErr)
	}
	s := sweep.Summarise(results, time.Since(began))
	p.summary(s)
	switch {
	case ctx.Err() != nil:
		return fmt.Errorf("interrupted: %d of %d runs finished, %d failing", s.Runs, len(jobs), s.FailingRuns)
	case s.FailingRuns > 0:
		return fmt.Errorf("%d of %d runs failed (their drives are in %s)", s.FailingRuns, s.Runs, *outDir)
	}
	return writeErr
}

// sweepJobs is every seed at every hour, seed by seed.
func sweepJobs(seedList, hourList string, d time.Duration) ([]sweep.Job, error) {
	if d <= 0 || d > 24*time.Hour {
		return nil, fmt.Errorf("-duration must be in (0, 24h], got %v", d)
	}
	hours, err := sweep.ParseHours(hourList)
	if err != nil {
		return nil, fmt.Errorf("-times: %w", err)
	}
	seeds, err := sweep.ParseSeeds(seedList, sweep.MaxRuns/len(hours))
	if err != nil {
		return nil, fmt.Errorf("-seeds: %w (a sweep is at most %d runs, seeds × hours)", err, sweep.MaxRuns)
	}
	jobs := make([]sweep.Job, 0, len(seeds)*len(hours))
	for _, s := range seeds {
		for _, h := range hours {
			jobs = append(jobs, sweep.Job{Seed: s, Hour: h, Duration: d})
		}
	}
	return jobs, nil
}

// addSoakFlags gives the sweep the soak's own flags that it passes on to
// every soak: the streaming budgets and -traffic (not -seed: -seeds
// replaces it). soakArgs is the ones set, as soak arguments; validate
// checks them as the soak would, so a bad one is one error, not a failure
// per run.
func addSoakFlags(fs *flag.FlagSet) (soakArgs func() []string, validate func() error) {
	own := flag.NewFlagSet("citydrive soak", flag.ContinueOnError)
	sf := addStreamFlags(own)
	own.Bool("traffic", true, "drive among the city's traffic (-traffic=false: empty roads)")
	own.VisitAll(func(f *flag.Flag) {
		if f.Name != "seed" {
			fs.Var(f.Value, f.Name, f.Usage)
		}
	})
	soakArgs = func() []string {
		var args []string
		fs.Visit(func(f *flag.Flag) {
			if f.Name != "seed" && own.Lookup(f.Name) != nil {
				args = append(args, "-"+f.Name+"="+f.Value.String())
			}
		})
		return args
	}
	validate = func() error {
		_, _, err := sf.config()
		return err
	}
	return soakArgs, validate
}

// sweepPrinter reports runs as they finish and the sweep at its end.
type sweepPrinter struct {
	stdout, stderr io.Writer
	json, verbose  bool
}

// result reports one run: a line when it failed (or -v), and its JSON
// record with -json (the lines then go to stderr, so stdout is JSON).
func (p sweepPrinter) result(r sweep.Result) {
	lines := p.stdout
	if p.json {
		b, _ := json.Marshal(sweep.RecordOf(r)) // a Record always marshals
		fmt.Fprintf(p.stdout, "%s\n", b)
		lines = p.stderr
	}
	if r.Failed() || p.verbose {
		fmt.Fprintln(lines, sweep.Line(r))
	}
}

// summary prints the sweep's summary: lines, or one JSON object.
func (p sweepPrinter) summary(s sweep.Summary) {
	if !p.json {
		fmt.Fprint(p.stdout, s.String())
		return
	}
	b, _ := json.Marshal(s) // a Summary always marshals
	fmt.Fprintf(p.stdout, "%s\n", b)
}
