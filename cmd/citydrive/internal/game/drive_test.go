package game

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"citydrive/cmd/citydrive/internal/car"
	"citydrive/roadgraph/world"
)

func TestDriveLogCountsStuckEpisodesContactsAndHeight(t *testing.T) {
	const dt = 0.1
	var stuckAt []world.Vec2
	l := driveLog{onStuck: func(at world.Vec2, _ float64) { stuckAt = append(stuckAt, at) }}
	at := world.Vec2{X: 5, Z: 7}
	run := func(n int, speed, height float64, touching, parked bool) {
		for range n {
			var c car.Contact
			if touching {
				c |= car.TouchBuilding
			}
			if parked {
				c = car.TouchParkedCar
			}
			l.step(dt, speed*dt, speed, height, at, c)
		}
	}
	run(10, 10, 0.01, false, false) // 1 s at 10 m/s
	run(15, 0.5, 0, false, false)   // 1.5 s slow: not stuck yet
	run(5, 10, 0, true, true)       // one contact with a parked car, 5 steps long
	run(2, 10, 0, false, false)
	run(25, 0, -0.02, true, false) // stopped against something else, 2.5 s: stuck
	run(5, 0, 0, true, false)      // still: same episode, same contact
	run(10, 10, 0.02, false, false)
	run(21, 0.2, 0, false, false) // 2.1 s: a second episode

	assert.InDelta(t, 10+0.75+5+2+10+0.42, l.Distance, 1e-9)
	assert.InDelta(t, 9.3, l.Time, 1e-9)
	assert.Equal(t, 2, l.StuckEpisodes)
	assert.InDelta(t, 3.0, l.LongestStuck, 1e-9)
	assert.Equal(t, 2, l.Contacts, "a contact is counted once however long it lasts")
	assert.Equal(t, 1, l.CarContacts)
	assert.InDelta(t, -0.02, l.MinHeight, 1e-12)
	assert.Equal(t, []world.Vec2{at, at}, stuckAt, "each episode is reported once")
	assert.InDelta(t, (10+0.75+5+2+10+0.42)/9.3, l.AverageSpeed(), 1e-9)
	assert.Zero(t, l.TrafficContacts)
	run(3, 10, 0, false, false)
	l.step(dt, 1, 10, 0, at, car.TouchTraffic|car.TouchBuilding)
	assert.Equal(t, 1, l.TrafficContacts)
	assert.Equal(t, 3, l.Contacts)
}

// Waiting at a red signal or behind a vehicle (the autopilot says so) is
// slow but not stuck; the same stop without the reason is.
func TestDriveLogWaitingIsNotStuck(t *testing.T) {
	var l driveLog
	l.waiting = true
	for range 300 { // 30 s at rest, waiting
		l.step(0.1, 0, 0, 0, world.Vec2{}, 0)
	}
	assert.Zero(t, l.StuckEpisodes)
	l.waiting = false
	for range 21 {
		l.step(0.1, 0, 0, 0, world.Vec2{}, 0)
	}
	assert.Equal(t, 1, l.StuckEpisodes)
}

// Each contact counts once for every kind it began on, under the kind's
// name; the names follow car.Contact's bits.
func TestDriveLogCountsContactsByKind(t *testing.T) {
	kinds := map[car.Contact]string{
		car.TouchBuilding: "building", car.TouchParkedCar: "parked_car", car.TouchFurniture: "furniture",
		car.TouchRail: "rail", car.TouchShore: "shore", car.TouchVoxel: "voxel", car.TouchTraffic: "traffic",
	}
	for k, name := range kinds {
		i := 0
		for k>>(i+1) != 0 {
			i++
		}
		assert.Equal(t, name, ContactKinds[i], "bit %d", i)
	}
	var l driveLog
	for _, c := range []car.Contact{car.TouchFurniture, car.TouchFurniture, 0, car.TouchShore | car.TouchParkedCar, car.TouchVoxel, 0, car.TouchFurniture} {
		l.step(0.1, 1, 10, 0, world.Vec2{}, c)
	}
	assert.Equal(t, 3, l.Contacts, "the voxel touch continues the shore contact")
	assert.Equal(t, [len(ContactKinds)]int{0, 1, 2, 0, 1, 0, 0}, l.ContactsByKind)
}
