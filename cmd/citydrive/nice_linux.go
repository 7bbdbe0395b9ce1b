package main

import (
	"fmt"
	"os"
	"strconv"
	"syscall"
)

// lowerPriority sets the nice value of every thread of this process (on
// Linux the value is per thread; threads made later inherit it from the
// one that makes them).
func lowerPriority(nice int) error {
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return err
	}
	for _, t := range tasks {
		tid, err := strconv.Atoi(t.Name())
		if err != nil {
			continue
		}
		if err := syscall.Setpriority(syscall.PRIO_PROCESS, tid, nice); err != nil {
			return fmt.Errorf("thread %d: %w", tid, err)
		}
	}
	return nil
}
