package sweep

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
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
	args := flag.Args() // after "--": soak -seed S -hour H -duration D -json
	seed := ""
	for i, a := range args {
		if a == "-seed" {
			seed = args[i+1]
		}
	}
	switch seed {
	case "1":
		fmt.Fprintln(os.Stderr, `level=WARN msg="car touched an obstacle" what=furniture`)
		fmt.Println("soak: the report for a person")
		b, _ := json.Marshal(soak.Report{Seed: 1, KM: 0.7, Builds: 150, Contacts: 1, ContactsByKind: map[string]int{"furniture": 1}})
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
}

func TestCappedKeepsTheStartOfALongLog(t *testing.T) {
	c := &capped{max: 10}
	n, err := c.Write([]byte("0123456"))
	assert.Equal(t, 7, n)
	assert.NoError(t, err)
	_, _ = c.Write([]byte("789abcdef"))
	assert.Equal(t, "0123456789\n[… 6 more bytes of log left out]\n", c.String())
}
