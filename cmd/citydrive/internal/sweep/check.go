package sweep

import (
	"fmt"
	"math"
	"time"

	"citydrive/cmd/citydrive/internal/soak"
)

// The rules a soak must hold. Distance and builds scale with the
// simulated time driven: a 3-minute soak must cover 1.5 km and build 300
// items.
const (
	// MinKMPerMinute is the distance floor: well under the 30 m/s cruise,
	// since red signals and slower traffic halve it at rush hour; a car
	// that stalls in a dead end or on an island falls below it.
	MinKMPerMinute = 0.5
	// MinBuildsPerMinute is the streaming floor: a drive that builds
	// fewer items has stopped meeting new city.
	MinBuildsPerMinute = 100
	// KMPerObstacleContact: one contact with an obstacle or a parked car
	// is allowed per this many km driven, rounded down (none under 10 km).
	KMPerObstacleContact = 10
	// MinHeightM is the lowest the car may sit above the road surface
	// (the soak tests' bound): deeper is sinking into it.
	MinHeightM = -0.05
)

// Check is the rules r breaks, in words, for a soak of d simulated time;
// none: it passed. Contacts with traffic and with everything else are
// held apart: a contact with traffic is never allowed, while an
// occasional scrape of a kerb-side obstacle is (r.Contacts counts every
// contact, so the others are Contacts − TrafficContacts).
func Check(r soak.Report, d time.Duration) []string { return CheckFloor(r, d, MinKMPerMinute) }

// CheckFloor is Check with a distance floor of kmPerMinute per simulated
// minute. A short drive starts from rest and may meet its first red
// signals in its first minute: CI's one-minute drives ask for less.
func CheckFloor(r soak.Report, d time.Duration, kmPerMinute float64) []string {
	var broken []string
	if r.StuckEpisodes > 0 {
		broken = append(broken, fmt.Sprintf("%d stuck episodes (want 0)", r.StuckEpisodes))
	}
	obstacles, allowed := r.Contacts-r.TrafficContacts, AllowedObstacleContacts(r.KM)
	if obstacles > allowed {
		broken = append(broken, fmt.Sprintf("%d contacts with obstacles or parked cars in %.2f km (want ≤ %d: 1 per %d km)",
			obstacles, r.KM, allowed, KMPerObstacleContact))
	}
	if r.TrafficContacts > 0 {
		broken = append(broken, fmt.Sprintf("%d contacts with traffic (want 0)", r.TrafficContacts))
	}
	minutes := d.Minutes()
	if want := kmPerMinute * minutes; r.KM < want {
		broken = append(broken, fmt.Sprintf("drove %.2f km (want ≥ %.2f: %.2g per simulated minute)", r.KM, want, kmPerMinute))
	}
	if want := MinBuildsPerMinute * minutes; float64(r.Builds) < want {
		broken = append(broken, fmt.Sprintf("%d builds (want ≥ %.0f: %d per simulated minute)", r.Builds, math.Ceil(want), MinBuildsPerMinute))
	}
	if r.MinHeightM < MinHeightM {
		broken = append(broken, fmt.Sprintf("lowest %.3f m above the road (want ≥ %.2f m)", r.MinHeightM, MinHeightM))
	}
	return broken
}

// AllowedObstacleContacts is how many contacts with obstacles or parked
// cars a drive of km may have: one per KMPerObstacleContact, rounded down.
func AllowedObstacleContacts(km float64) int {
	return int(math.Floor(max(km, 0) / KMPerObstacleContact))
}
