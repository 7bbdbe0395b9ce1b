// Package threadcpu reads the calling thread's CPU time, for measuring a
// piece of main-goroutine work apart from the time other processes held
// the core (on a shared machine those preemptions dominate wall-clock
// percentiles). The caller keeps its goroutine on one thread across a
// measurement (runtime.LockOSThread: the game's main goroutine and the
// server's tick goroutine are).
package threadcpu

import "time"

// Now is the calling thread's CPU time so far, and false where the system
// offers none (then 0).
func Now() (time.Duration, bool) { return now() }
