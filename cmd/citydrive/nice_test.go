package main

import (
	"io"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestBotsNiceFlagIsBounded(t *testing.T) {
	for _, bad := range []string{"-1", "20"} {
		err := runBots([]string{"-addr", "127.0.0.1:1", "-server-fingerprint", strings.Repeat("ab", 32), "-nice", bad}, io.Discard, io.Discard)
		require.Error(t, err, bad)
		assert.Contains(t, err.Error(), "-nice")
	}
}

// lowerPriority reaches every thread, not only the calling one (on Linux
// the nice value is per thread). Run in a child so the test binary keeps
// its priority.
func TestLowerPriorityReachesEveryThread(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("per-thread nice values are Linux's")
	}
	if os.Getenv("CITYDRIVE_NICE_CHILD") == "1" {
		require.NoError(t, lowerPriority(7))
		tasks, err := os.ReadDir("/proc/self/task")
		require.NoError(t, err)
		for _, task := range tasks {
			tid, _ := strconv.Atoi(task.Name())
			// getpriority's raw value is 20 - nice.
			p, err := syscall.Getpriority(syscall.PRIO_PROCESS, tid)
			require.NoError(t, err)
			assert.Equal(t, 20-7, p, "thread %d", tid)
		}
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run", "^TestLowerPriorityReachesEveryThread$", "-test.v")
	cmd.Env = append(os.Environ(), "CITYDRIVE_NICE_CHILD=1")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Contains(t, string(out), "--- PASS")
}
