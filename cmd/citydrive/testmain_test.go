package main

import (
	"os"
	"strings"
	"testing"
)

// sweepChildEnv makes the test binary the citydrive command
// (TestSweepSoakChild), as the sweep's children of TestSweepEndToEnd.
const sweepChildEnv = "CITYDRIVE_SWEEP_CHILD"

// TestMain: a test that reaches the sweep's real runner starts this test
// binary as its soaks (os.Executable), with a command line and no -test.
// flags. Such a child is the citydrive command, not the tests again:
// otherwise each child would run every test, the sweep's among them, and
// start children of its own, without end.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && !strings.HasPrefix(os.Args[1], "-test.") && os.Getenv(sweepChildEnv) == "" {
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	// No test reads or writes the player's own settings: the config
	// directory is a fresh one.
	config, err := os.MkdirTemp("", "citydrive-config-")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_CONFIG_HOME", config)
	code := m.Run()
	os.RemoveAll(config)
	os.Exit(code)
}
