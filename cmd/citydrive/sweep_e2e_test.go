//go:build !race

// Without the race detector only: the soaks would take minutes under it.

package main

import (
	"encoding/json"
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/cmd/citydrive/internal/sweep"
)

// TestSweepSoakChild is not a test: the sweep of TestSweepEndToEnd runs
// it as its soaks, the arguments after "--" being the command line.
func TestSweepSoakChild(t *testing.T) {
	if os.Getenv(sweepChildEnv) != "1" {
		t.Skip("the child of TestSweepEndToEnd")
	}
	os.Exit(run(flag.Args(), os.Stdout, os.Stderr))
}

// The whole command on two seeds for a few simulated seconds: each soak
// is a real child process, its report arrives as a JSON line, and the
// summary is the last line; the exit status says whether any failed.
func TestSweepEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	defer func(old func(string, int) sweep.Soaker) { newSoaker = old }(newSoaker)
	newSoaker = func(string, int) sweep.Soaker {
		return sweep.Exec{Path: os.Args[0], Before: []string{"-test.run=^TestSweepSoakChild$", "--"},
			Env: append(os.Environ(), sweepChildEnv+"=1")}
	}
	out := t.TempDir()
	code, stdout, stderr := runCmd("sweep", "-seeds", "412,1", "-hours", "0", "-duration", "5s", "-parallel", "2",
		"-json", "-out", out, "-workers", "1")
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	require.Len(t, lines, 3, "two runs and the summary: %s", stderr)
	for _, l := range lines[:2] {
		var rec sweep.Record
		require.NoError(t, json.Unmarshal([]byte(l), &rec), l)
		assert.Equal(t, "run", rec.Type)
		require.NotNil(t, rec.Report, "the soak finished: %s", rec.Error)
		assert.InDelta(t, 5, rec.Report.GameSeconds, 0.05)
		assert.Contains(t, rec.Report.ContactsByKind, "furniture", "the soak's JSON has the contacts by kind")
		assert.Contains(t, rec.Reproduce, "-duration 5s -workers=1 -v")
	}
	var s sweep.Summary
	require.NoError(t, json.Unmarshal([]byte(lines[2]), &s))
	assert.Equal(t, "summary", s.Type)
	assert.Equal(t, 2, s.Runs)
	assert.Equal(t, 2, s.Seeds)
	assert.Greater(t, s.KM, 0.0)
	if s.FailingRuns == 0 {
		assert.Equal(t, 0, code, stderr)
	} else {
		assert.Equal(t, 2, code)
		assert.Contains(t, stderr, "runs failed")
	}
}
