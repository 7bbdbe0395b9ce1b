package sweep

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/cmd/citydrive/internal/soak"
)

// fakeSoaker drives nothing: each seed's report is what report says.
// With a gate, the first soaks block until it closes, each saying so on
// entered, so a test can see how many run at once.
type fakeSoaker struct {
	report func(Job) (soak.Report, string, error)

	entered chan Job
	gate    chan struct{}

	mu                sync.Mutex
	inFlight, maxSeen int
}

func (f *fakeSoaker) Soak(ctx context.Context, j Job) (soak.Report, string, error) {
	f.mu.Lock()
	f.inFlight++
	f.maxSeen = max(f.maxSeen, f.inFlight)
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		f.inFlight--
		f.mu.Unlock()
	}()
	if f.entered != nil {
		f.entered <- j
		<-f.gate
	}
	return f.report(j)
}

// passing reports a drive that holds every rule.
func passing(j Job) (soak.Report, string, error) {
	return soak.Report{Seed: j.Seed, KM: 1, Builds: 200, GameSeconds: 60}, "", nil
}

func jobsFor(seeds ...uint64) []Job {
	var jobs []Job
	for _, s := range seeds {
		for _, h := range []float64{0, 17.5} {
			jobs = append(jobs, Job{Seed: s, Hour: h, Duration: time.Minute})
		}
	}
	return jobs
}

// Exactly Parallel soaks run at once: the first Parallel block together
// and no more begin until they are let go; then every result arrives,
// in the order of the jobs.
func TestRunnerRunsParallelAtOnceAndCollectsEveryResult(t *testing.T) {
	const parallel = 3
	f := &fakeSoaker{report: passing, entered: make(chan Job, 16), gate: make(chan struct{})}
	jobs := jobsFor(1, 2, 3, 4, 5, 6)
	var done []Result
	r := Runner{Soaker: f, Parallel: parallel, Out: t.TempDir(), Done: func(res Result) { done = append(done, res) }}
	var results []Result
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		var err error
		results, err = r.Run(context.Background(), jobs)
		assert.NoError(t, err)
	}()
	for range parallel {
		<-f.entered
	}
	f.mu.Lock()
	assert.Equal(t, parallel, f.inFlight, "Parallel soaks began together")
	f.mu.Unlock()
	close(f.gate)
	for range len(jobs) - parallel {
		<-f.entered
	}
	<-finished
	assert.Equal(t, parallel, f.maxSeen, "never more than Parallel at once")
	require.Len(t, results, len(jobs))
	assert.Len(t, done, len(jobs), "Done saw every result")
	for i, res := range results {
		assert.Equal(t, jobs[i], res.Job, "in the order of the jobs")
		assert.False(t, res.Failed(), "%v", res.Broken)
		assert.Empty(t, res.File)
	}
}

// A soak that fails to run, one whose Soaker panics and one that breaks a
// rule are failing runs with a file each; the others are unharmed.
func TestRunnerCountsCrashesAsFailingAndWritesTheirDrives(t *testing.T) {
	out := filepath.Join(t.TempDir(), "failures")
	f := &fakeSoaker{report: func(j Job) (soak.Report, string, error) {
		switch j.Seed {
		case 2:
			return soak.Report{}, "citydrive soak: joining the solo server: refused\n", errors.New("exit status 2: joining the solo server: refused")
		case 3:
			panic("the fake soak fell over")
		case 4:
			rep, _, _ := passing(j)
			rep.StuckEpisodes = 1
			return rep, `level=WARN msg="car stuck" x=12 z=-40 after_s=31 reproduce="-start 12,-40"` + "\n", nil
		}
		return passing(j)
	}}
	results, err := Runner{Soaker: f, Parallel: 2, Out: out}.Run(context.Background(), jobsFor(1, 2, 3, 4))
	require.NoError(t, err)
	require.Len(t, results, 8)
	for _, res := range results {
		if res.Seed == 1 {
			assert.False(t, res.Failed())
			assert.Empty(t, res.File)
			continue
		}
		require.True(t, res.Failed(), "seed %d", res.Seed)
		assert.Equal(t, FailureFile(out, res.Job), res.File)
		text, err := os.ReadFile(res.File)
		require.NoError(t, err)
		assert.Contains(t, string(text), res.Reproduce())
		assert.Contains(t, string(text), res.Broken[0])
		assert.Contains(t, string(text), res.Log, "the whole log, kept for a failing run")
	}
	byseed := map[uint64]Result{}
	for _, res := range results {
		byseed[res.Seed] = res
	}
	assert.Equal(t, []string{"the soak failed: exit status 2: joining the solo server: refused"}, byseed[2].Broken)
	assert.Equal(t, []string{"the soak failed: panic: the fake soak fell over"}, byseed[3].Broken)
	assert.Contains(t, Line(byseed[4]), "(first stuck at: add -start 12,-40)")
	entries, err := os.ReadDir(out)
	require.NoError(t, err)
	assert.Len(t, entries, 6, "one file per failing run")
}

// Each soak is given a directory of its own for its replays: a failing
// run's are kept beside its file and named in its line and its file, a
// passing run's are not kept, and the sweep leaves no directory of its
// own behind.
func TestRunnerKeepsAFailingRunsReplaysBesideItsFile(t *testing.T) {
	out := filepath.Join(t.TempDir(), "failures")
	var dirs []string
	var mu sync.Mutex
	f := &fakeSoaker{report: func(j Job) (soak.Report, string, error) {
		require.NotEmpty(t, j.Replays, "a directory for the replays")
		mu.Lock()
		dirs = append(dirs, j.Replays)
		mu.Unlock()
		rep, log, err := passing(j)
		rep.Replays = writeFakeReplays(j.Replays, soak.DriveReplay, "stuck-1-at-31s.replay", "contact-2-at-40s.replay")
		if j.Seed == 2 {
			rep.StuckEpisodes = 1
		}
		return rep, log, err
	}}
	results, err := Runner{Soaker: f, Parallel: 2, Out: out}.Run(context.Background(), jobsFor(1, 2))
	require.NoError(t, err)
	for _, res := range results {
		assert.Empty(t, res.Job.Replays, "the job is the one asked for")
		if res.Seed == 1 {
			assert.Empty(t, res.Replays)
			assert.Empty(t, res.Report.Replays, "a passing run's are gone")
			continue
		}
		stuck := ReplayFile(out, res.Job, "stuck-1-at-31s.replay")
		assert.Equal(t, []string{ReplayFile(out, res.Job, soak.DriveReplay), stuck, ReplayFile(out, res.Job, "contact-2-at-40s.replay")}, res.Replays)
		assert.Equal(t, res.Replays, res.Report.Replays)
		for _, p := range res.Replays {
			assert.FileExists(t, p)
		}
		line := Line(res)
		assert.Contains(t, line, "; replay: citydrive replay "+stuck+"; details: "+res.File, "the first incident's")
		assert.NotContains(t, line, "reproduce:")
		text, err := os.ReadFile(res.File)
		require.NoError(t, err)
		assert.Contains(t, string(text), "replay: citydrive replay "+stuck+"\n")
		assert.Contains(t, string(text), "  "+res.Replays[2]+"\n", "every replay listed")
		assert.Contains(t, string(text), "soak again: "+res.Reproduce())
	}
	for _, d := range dirs {
		assert.NoDirExists(t, d)
	}
	entries, err := os.ReadDir(out)
	require.NoError(t, err)
	assert.Len(t, entries, 2*(1+3), "the failing runs' files and replays")
}

// No failure, no directory: -out is made only when there is something
// to put in it.
func TestRunnerMakesNoDirectoryWhenAllPass(t *testing.T) {
	out := filepath.Join(t.TempDir(), "failures")
	_, err := Runner{Soaker: &fakeSoaker{report: passing}, Parallel: 4, Out: out}.Run(context.Background(), jobsFor(1, 2))
	require.NoError(t, err)
	assert.NoDirExists(t, out)
}

// A drive that cannot be written is reported, and the sweep goes on.
func TestRunnerReportsAnUnwritableDirectory(t *testing.T) {
	blocker := filepath.Join(t.TempDir(), "a-file")
	require.NoError(t, os.WriteFile(blocker, nil, 0o644))
	f := &fakeSoaker{report: func(Job) (soak.Report, string, error) { return soak.Report{}, "", nil }}
	results, err := Runner{Soaker: f, Parallel: 1, Out: filepath.Join(blocker, "failures")}.Run(context.Background(), jobsFor(1, 2))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "writing the failing drive")
	assert.Len(t, results, 4)
}

// Once the context ends no more soaks begin, and runs cut short are left
// out rather than counted as failing.
func TestRunnerStopsWhenTheContextEnds(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	f := &fakeSoaker{}
	f.report = func(j Job) (soak.Report, string, error) {
		if j.Seed == 2 {
			cancel()
			return soak.Report{}, "", errors.New("signal: killed")
		}
		return passing(j)
	}
	results, err := Runner{Soaker: f, Parallel: 1, Out: t.TempDir()}.Run(ctx, jobsFor(1, 2, 3, 4))
	require.NoError(t, err)
	require.Len(t, results, 2, "seed 1's two runs; seed 2's was cut short")
	for _, res := range results {
		assert.Equal(t, uint64(1), res.Seed)
	}
}

func TestJobReproducesTheSoak(t *testing.T) {
	j := Job{Seed: 5015, Hour: 17.5, Duration: 3 * time.Minute, Args: []string{"-workers=1"}}
	assert.Equal(t, "citydrive soak -seed 5015 -hour 17.5 -duration 3m -workers=1 -v", j.Reproduce())
	for d, want := range map[time.Duration]string{time.Minute: "1m", 90 * time.Second: "1m30s", time.Hour: "1h",
		5 * time.Second: "5s", 1500 * time.Millisecond: "1.5s", 2*time.Hour + time.Minute: "2h1m"} {
		assert.Equal(t, want, FormatDuration(d))
	}
	assert.Equal(t, filepath.Join("d", "seed-5015-hour-17.5.txt"), FailureFile("d", j))
}
