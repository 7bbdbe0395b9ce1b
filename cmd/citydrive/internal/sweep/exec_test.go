package sweep

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/cmd/citydrive/internal/soak"
)

// childEnv makes the test binary play a soak (TestFakeSoakChild).
const childEnv = "CITYDRIVE_SWEEP_FAKE_SOAK"

// TestFakeSoakChild is not a test: run by Exec as the child, it plays
// `citydrive soak ... -json`, its seed picking what it does.
func TestFakeSoakChild(t *testing.T) {
	if os.Getenv(childEnv) != "1" {
		t.Skip("the child of TestExecRunsEachSoakInAProcess")
	}
	args := flag.Args() // after "--": soak -seed S -hour H -duration D -json [-replays DIR]
	seed, replays := "", ""
	for i, a := range args {
		switch a {
		case "-seed":
			seed = args[i+1]
		case "-replays":
			replays = args[i+1]
		}
	}
	switch seed {
	case "1":
		fmt.Fprintln(os.Stderr, `level=WARN msg="car touched an obstacle" what=furniture`)
		fmt.Println("soak: the report for a person")
		rep := soak.Report{Seed: 1, KM: 0.7, Builds: 150, Contacts: 1, ContactsByKind: map[string]int{"furniture": 1}}
		if replays != "" {
			rep.Replays = writeFakeReplays(replays, soak.DriveReplay, "contact-1-at-3s.replay")
		}
		b, _ := json.Marshal(rep)
		fmt.Printf("%s\n", b)
		os.Exit(0)
	case "2":
		fmt.Fprintln(os.Stderr, "citydrive soak: joining the solo server: refused")
		os.Exit(2)
	case "3":
		panic("the game fell over")
	case "4":
		fmt.Println("not a report")
		os.Exit(0)
	}
	fmt.Fprintf(os.Stderr, "unexpected arguments %q\n", args)
	os.Exit(3)
}

// writeFakeReplays writes files of the names into dir, as a soak writes
// its replays, and returns their paths.
func writeFakeReplays(dir string, names ...string) []string {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		panic(err)
	}
	var paths []string
	for _, n := range names {
		p := filepath.Join(dir, n)
		if err := os.WriteFile(p, []byte(n), 0o644); err != nil {
			panic(err)
		}
		paths = append(paths, p)
	}
	return paths
}

func testExec() Exec {
	return Exec{Path: os.Args[0], Before: []string{"-test.run=^TestFakeSoakChild$", "--"},
		Env: append(os.Environ(), childEnv+"=1")}
}

func TestExecRunsEachSoakInAProcess(t *testing.T) {
	e := testExec()
	j := Job{Seed: 1, Hour: 17.5, Duration: time.Minute}
	rep, log, err := e.Soak(context.Background(), j)
	require.NoError(t, err)
	assert.Equal(t, uint64(1), rep.Seed)
	assert.Equal(t, 1, rep.ContactsByKind["furniture"], "the report is the last line")
	assert.Contains(t, log, "car touched an obstacle", "the log is kept")

	for seed, want := range map[uint64]string{
		2: "exit status 2: citydrive soak: joining the solo server: refused",
		3: "exit status 2: panic: the game fell over", // the panic's line, not the trace's last
		4: `the soak's last line is not its JSON report: "not a report"`,
	} {
		_, _, err := e.Soak(context.Background(), Job{Seed: seed, Duration: time.Minute})
		if assert.Error(t, err, "seed %d", seed) {
			assert.True(t, strings.HasPrefix(err.Error(), want), "seed %d: %v", seed, err)
		}
	}
}

// A crashed child is one failing run of a sweep, its neighbours passed.
func TestExecCrashIsOneFailingRun(t *testing.T) {
	out := t.TempDir()
	results, err := Runner{Soaker: testExec(), Parallel: 2, Out: out}.Run(context.Background(),
		[]Job{{Seed: 1, Duration: time.Minute}, {Seed: 3, Duration: time.Minute}})
	require.NoError(t, err)
	require.Len(t, results, 2)
	assert.Equal(t, []string{"1 contacts with obstacles or parked cars in 0.70 km (want ≤ 0: 1 per 10 km)"}, results[0].Broken,
		"a finished child is checked")
	require.Len(t, results[1].Broken, 1)
	assert.Contains(t, results[1].Broken[0], "the soak failed: exit status 2: panic: the game fell over")
	text, err := os.ReadFile(results[1].File)
	require.NoError(t, err)
	assert.Contains(t, string(text), "goroutine", "the crash's trace is in the file")
	assert.True(t, strings.HasPrefix(string(text), "seed: 3\n"))
	// The child that finished wrote its replays where the sweep said;
	// they are beside its file now.
	first := filepath.Join(out, "seed-1-hour-0-contact-1-at-3s.replay")
	assert.Equal(t, []string{filepath.Join(out, "seed-1-hour-0-drive.replay"), first}, results[0].Replays)
	assert.FileExists(t, first)
	assert.Contains(t, Line(results[0]), "replay: citydrive replay "+first)
}

func TestCappedKeepsTheStartOfALongLog(t *testing.T) {
	c := &capped{max: 10}
	n, err := c.Write([]byte("0123456"))
	assert.Equal(t, 7, n)
	assert.NoError(t, err)
	_, _ = c.Write([]byte("789abcdef"))
	assert.Equal(t, "0123456789\n[… 6 more bytes of log left out]\n", c.String())
}

// A soak gets its share of the cores as GOMAXPROCS, at least one, unless
// the environment names it already.
func TestChildEnvGivesEachSoakItsShareOfTheCores(t *testing.T) {
	for _, tc := range []struct {
		env             []string
		cores, parallel int
		want            string
	}{
		{[]string{"A=1"}, 16, 16, "GOMAXPROCS=1"},
		{[]string{"A=1"}, 16, 4, "GOMAXPROCS=4"},
		{[]string{"A=1"}, 2, 8, "GOMAXPROCS=1"},
		{[]string{"A=1"}, 2, 0, "GOMAXPROCS=2"},
		{[]string{"GOMAXPROCS=3"}, 16, 16, "GOMAXPROCS=3"},
	} {
		got := ChildEnv(tc.env, tc.cores, tc.parallel)
		assert.Contains(t, got, tc.want, "%v on %d cores, %d at once", tc.env, tc.cores, tc.parallel)
		n := 0
		for _, kv := range got {
			if strings.HasPrefix(kv, "GOMAXPROCS=") {
				n++
			}
		}
		assert.Equal(t, 1, n, "GOMAXPROCS once")
	}
}
