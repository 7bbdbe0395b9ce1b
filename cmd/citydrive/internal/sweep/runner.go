// Package sweep runs the soak (citydrive soak) over many seeds and times
// of day, checks each drive against the rules a drive must hold (Check),
// writes what replays a failing one, and sums the runs up.
//
// A Runner runs the soaks through a Soaker: the command's runs each soak
// as a child process of the same binary (Exec), so a crash is one failing
// run and -parallel uses the cores; the tests give a fake.
package sweep

import (
	"context"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"citydrive/cmd/citydrive/internal/soak"
)

// Job is one soak of a sweep.
type Job struct {
	Seed     uint64
	Hour     float64
	Duration time.Duration // simulated
	// KMPerMinute is the distance floor (0: MinKMPerMinute).
	KMPerMinute float64
	// Args are further soak flags (streaming budgets), the same for
	// every job, so that the reproduce command is the whole drive.
	Args []string
	// Replays is the directory the soak writes its replays to (soak
	// -replays): the Runner's own for the run, "" for none.
	Replays string
}

// SoakArgs is the soak command line for j, after "citydrive".
func (j Job) SoakArgs() []string {
	return append([]string{"soak", "-seed", strconv.FormatUint(j.Seed, 10),
		"-hour", FormatHour(j.Hour), "-duration", FormatDuration(j.Duration)}, j.Args...)
}

// Reproduce is the command a person runs to watch j's drive again, with
// the game's log.
func (j Job) Reproduce() string {
	return "citydrive " + strings.Join(j.SoakArgs(), " ") + " -v"
}

// FormatHour writes h as the -hour flag takes it: 0, 17.5.
func FormatHour(h float64) string { return strconv.FormatFloat(h, 'f', -1, 64) }

// FormatDuration writes d as a flag takes it, without the zero units
// time.Duration.String keeps: 3m, 1h, 1m30s.
func FormatDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// Soaker runs one soak: its report, and its log (the warnings, with the
// reproduce hints of stuck episodes); an error when it could not run or
// crashed.
type Soaker interface {
	Soak(ctx context.Context, j Job) (r soak.Report, log string, err error)
}

// Result is one finished soak and its verdict.
type Result struct {
	Job
	Report soak.Report   // zero when Err is set
	Log    string        // the soak's log; kept only for failing runs
	Err    error         // the soak failed to run or crashed
	Wall   time.Duration // wall time of the run, start-up included
	Broken []string      // the rules broken (Check, or the error); none: passed
	File   string        // where the failing drive was written ("": passed, or not written)
	// Replays is a failing run's replays beside File: the drive's, then
	// each incident's (a stuck episode, a contact), in order.
	Replays []string
}

// Failed reports whether the run broke a rule or did not finish.
func (r Result) Failed() bool { return len(r.Broken) > 0 }

// Runner runs a sweep's soaks.
type Runner struct {
	Soaker   Soaker
	Parallel int // soaks at once (at least 1)
	// Out is the directory a failing run's drive is written to
	// (WriteFailure), and its replays (KeepReplays); "": nowhere.
	Out string
	// Done, when set, is given each result as it finishes, from Run's
	// goroutine one at a time (so it needs no lock).
	Done func(Result)

	replays string // the soaks' replays, one directory per run (Run's)
}

// Run runs every job, at most r.Parallel at once, writes each failing
// run's drive to r.Out and returns the results in the order of jobs, and
// the first error writing a drive (the sweep goes on without that file).
// When ctx ends, jobs not begun are skipped and runs cut short are left
// out: they have no verdict.
func (r Runner) Run(ctx context.Context, jobs []Job) ([]Result, error) {
	var writeErr error
	noteErr := func(err error) {
		if err != nil && writeErr == nil {
			writeErr = fmt.Errorf("writing the failing drive: %w", err)
		}
	}
	// Each soak writes its replays under one directory of the sweep's;
	// a failing run's are kept in Out, the rest go with it.
	if r.Out != "" {
		if tmp, err := os.MkdirTemp("", "citydrive-sweep-"); err == nil {
			r.replays = tmp
			defer os.RemoveAll(tmp)
		}
	}
	got := make([]*Result, len(jobs))
	for i, res := range r.results(ctx, jobs) {
		if res.Failed() {
			var err error
			res.Replays, err = KeepReplays(r.Out, res)
			noteErr(err)
			path, err := WriteFailure(r.Out, res)
			if err == nil {
				res.File = path
			}
			noteErr(err)
		}
		res.Report.Replays = res.Replays // where they are now
		if r.replays != "" {
			_ = os.RemoveAll(r.replayDir(res.Job)) // the sweep's own: gone with it anyway
		}
		if r.Done != nil {
			r.Done(res)
		}
		if !res.Failed() {
			res.Log = "" // a long sweep would keep every passing log otherwise
		}
		got[i] = &res
	}
	var results []Result
	for _, res := range got {
		if res != nil {
			results = append(results, *res)
		}
	}
	return results, writeErr
}

// results runs the jobs on r.Parallel goroutines and yields each job's
// index and result as it finishes.
func (r Runner) results(ctx context.Context, jobs []Job) iter.Seq2[int, Result] {
	return func(yield func(int, Result) bool) {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel() // yield said stop: the workers wind down
		type finished struct {
			i   int
			res Result
		}
		next, out := make(chan int), make(chan finished)
		var wg sync.WaitGroup
		for range max(1, min(r.Parallel, len(jobs))) {
			wg.Go(func() {
				for i := range next {
					res := runOne(ctx, r.Soaker, jobs[i], r.replayDir(jobs[i]))
					if ctx.Err() != nil {
						continue
					}
					select {
					case out <- finished{i, res}:
					case <-ctx.Done():
					}
				}
			})
		}
		go func() {
			defer close(next)
			for i := range jobs {
				select {
				case next <- i:
				case <-ctx.Done():
					return
				}
			}
		}()
		go func() { wg.Wait(); close(out) }()
		for f := range out {
			if !yield(f.i, f.res) {
				return
			}
		}
	}
}

// replayDir is where j's soak writes its replays ("": none).
func (r Runner) replayDir(j Job) string {
	if r.replays == "" {
		return ""
	}
	return filepath.Join(r.replays, fmt.Sprintf("seed-%d-hour-%s", j.Seed, FormatHour(j.Hour)))
}

// runOne runs j, its replays into replays, and judges it; a panicking
// Soaker is a failing run, not the end of the sweep.
func runOne(ctx context.Context, s Soaker, j Job, replays string) (r Result) {
	r.Job = j
	j.Replays = replays
	began := time.Now()
	defer func() {
		if p := recover(); p != nil {
			r.Err = fmt.Errorf("panic: %v", p)
		}
		r.Wall = time.Since(began)
		r.Broken = judge(r)
	}()
	r.Report, r.Log, r.Err = s.Soak(ctx, j)
	return r
}

// judge is the rules r broke: a soak that failed breaks the first rule,
// that it finishes; one that finished is Check'ed.
func judge(r Result) []string {
	if r.Err != nil {
		return []string{"the soak failed: " + r.Err.Error()}
	}
	if r.KMPerMinute > 0 {
		return CheckFloor(r.Report, r.Duration, r.KMPerMinute)
	}
	return Check(r.Report, r.Duration)
}
