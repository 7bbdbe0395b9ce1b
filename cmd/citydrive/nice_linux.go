package main

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"syscall"
)

// lowerPriority sets the nice value of every thread of this process (on
// Linux the value is per thread; threads made later inherit it from the
// one that makes them).
func lowerPriority(nice int) error {
	// A thread the runtime starts meanwhile from one not yet changed keeps
	// the old value: pass again until a pass finds nothing left to change.
	for range maxNicePasses {
		tasks, err := os.ReadDir("/proc/self/task")
		if err != nil {
			return err
		}
		changed := false
		for _, t := range tasks {
			tid, err := strconv.Atoi(t.Name())
			if err != nil {
				continue
			}
			// getpriority's raw value is 20 - nice.
			if p, err := syscall.Getpriority(syscall.PRIO_PROCESS, tid); err == nil && p == 20-nice {
				continue
			}
			if err := syscall.Setpriority(syscall.PRIO_PROCESS, tid, nice); err != nil {
				if errors.Is(err, syscall.ESRCH) {
					continue // the thread has ended
				}
				return fmt.Errorf("thread %d: %w", tid, err)
			}
			changed = true
		}
		if !changed {
			return nil
		}
	}
	return fmt.Errorf("threads still starting at their old priority after %d passes", maxNicePasses)
}

// maxNicePasses bounds lowerPriority's passes over the threads.
const maxNicePasses = 10
