package sweep

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"citydrive/cmd/citydrive/internal/soak"
)

// good is a 3-minute soak that holds every rule with a little to spare.
func good() soak.Report {
	return soak.Report{KM: 1.6, Builds: 320, MinHeightM: -0.01, GameSeconds: 180}
}

func TestCheckPassesAGoodDrive(t *testing.T) {
	assert.Empty(t, Check(good(), 3*time.Minute))
	r := good()
	r.KM, r.Builds, r.Contacts = 25, 1000, 2
	assert.Empty(t, Check(r, 3*time.Minute), "two scrapes in 25 km are allowed")
	r = good()
	r.KM, r.Builds, r.MinHeightM = 1.5, 300, -0.05
	assert.Empty(t, Check(r, 3*time.Minute), "the floors themselves pass")
}

// Each rule fails on its own, and says what it wanted.
func TestCheckFailsEachRuleOnItsOwn(t *testing.T) {
	for _, tc := range []struct {
		name   string
		d      time.Duration
		change func(*soak.Report)
		want   string
	}{
		{"stuck", 3 * time.Minute, func(r *soak.Report) { r.StuckEpisodes = 2 }, "2 stuck episodes (want 0)"},
		{"an obstacle under 10 km", 3 * time.Minute, func(r *soak.Report) { r.Contacts = 1 }, "1 contacts with obstacles or parked cars in 1.60 km (want ≤ 0"},
		{"a parked car", 3 * time.Minute, func(r *soak.Report) { r.Contacts, r.CarContacts = 1, 1 }, "1 contacts with obstacles or parked cars"},
		{"two obstacles in 19 km", 3 * time.Minute, func(r *soak.Report) { r.KM, r.Contacts = 19.9, 2 }, "(want ≤ 1: 1 per 10 km)"},
		{"traffic", 3 * time.Minute, func(r *soak.Report) { r.KM, r.Contacts, r.TrafficContacts = 20, 1, 1 }, "1 contacts with traffic (want 0)"},
		{"short drive", 3 * time.Minute, func(r *soak.Report) { r.KM = 1.49 }, "drove 1.49 km (want ≥ 1.50: 0.5 per simulated minute)"},
		{"short drive, scaled", 10 * time.Minute, func(r *soak.Report) { r.KM, r.Builds = 4.9, 1000 }, "want ≥ 5.00"},
		{"few builds", 3 * time.Minute, func(r *soak.Report) { r.Builds = 299 }, "299 builds (want ≥ 300: 100 per simulated minute)"},
		{"few builds, scaled", time.Minute, func(r *soak.Report) { r.Builds = 99 }, "99 builds (want ≥ 100"},
		{"sunk", 3 * time.Minute, func(r *soak.Report) { r.MinHeightM = -0.06 }, "lowest -0.060 m above the road (want ≥ -0.05 m)"},
	} {
		r := good()
		tc.change(&r)
		broken := Check(r, tc.d)
		if assert.Len(t, broken, 1, tc.name) {
			assert.Contains(t, broken[0], tc.want, tc.name)
		}
	}
}

func TestCheckListsEveryBrokenRule(t *testing.T) {
	broken := Check(soak.Report{StuckEpisodes: 1, Contacts: 3, TrafficContacts: 1, MinHeightM: -1}, time.Minute)
	assert.Len(t, broken, 6, strings.Join(broken, "\n"))
}

func TestAllowedObstacleContactsRoundsDown(t *testing.T) {
	for km, want := range map[float64]int{0: 0, 9.99: 0, 10: 1, 19.99: 1, 20: 2, 105: 10, -1: 0} {
		assert.Equal(t, want, AllowedObstacleContacts(km), "%v km", km)
	}
}

// A lower floor for short drives changes the distance rule only.
func TestCheckFloorSetsTheDistanceRule(t *testing.T) {
	r := soak.Report{KM: 0.35, Builds: 120}
	assert.Empty(t, CheckFloor(r, time.Minute, 0.3))
	broken := Check(r, time.Minute)
	assert.Len(t, broken, 1)
	assert.Contains(t, broken[0], "drove 0.35 km (want ≥ 0.50")
	assert.Empty(t, judge(Result{Job: Job{Duration: time.Minute, KMPerMinute: 0.3}, Report: r}))
	assert.NotEmpty(t, judge(Result{Job: Job{Duration: time.Minute}, Report: r}))
}
