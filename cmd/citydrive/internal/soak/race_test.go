//go:build race

package soak

// raceDetector: the soak's two simulated minutes take several minutes
// under the race detector; cmd/test.sh runs TestSoak without it.
const raceDetector = true
