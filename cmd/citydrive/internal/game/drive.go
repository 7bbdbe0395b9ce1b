package game

import (
	"citydrive/cmd/citydrive/internal/car"
	"citydrive/roadgraph/world"
)

// Stuck: a car slower than stuckSpeed for longer than stuckTime is stuck.
const (
	stuckSpeed = 1.0 // m/s
	stuckTime  = 2.0 // s
)

// ContactKinds names the kinds of obstacle in car.Contact's bit order:
// ContactsByKind[i] counts the kind with bit 1<<i. The names are soak's
// -json keys, so they are snake_case.
var ContactKinds = [...]string{"building", "parked_car", "furniture", "rail", "shore", "voxel", "traffic"}

// DriveStats is what the drive was like, measured every physics step.
type DriveStats struct {
	Distance        float64 // metres driven
	Time            float64 // seconds of game time driven
	StuckEpisodes   int
	LongestStuck    float64 // seconds
	Contacts        int     // distinct contacts with obstacles of any kind
	CarContacts     int     // of those, with parked cars
	TrafficContacts int     // of those, with traffic vehicles
	MinHeight       float64 // lowest height of the car above the road surface (negative: sunk)
	Resets          int     // times the car was put back on its lane

	// ContactsByKind: of the contacts, how many touched each kind as they
	// began (index: ContactKinds). A contact that begins on two kinds at
	// once counts in both, so the sum can exceed Contacts.
	ContactsByKind [len(ContactKinds)]int
}

// AverageSpeed is metres per second over the drive.
func (d DriveStats) AverageSpeed() float64 {
	if d.Time == 0 {
		return 0
	}
	return d.Distance / d.Time
}

// driveLog keeps DriveStats from one step to the next.
type driveLog struct {
	DriveStats
	started   bool
	slowFor   float64
	stuck     bool
	touching  bool
	onStuck   func(at world.Vec2, seconds float64) // a new stuck episode (at stuckTime)
	onContact func(at world.Vec2, parkedCar bool)  // a new contact
	stuckFrom world.Vec2
	// waiting: the autopilot is held up at a red signal or behind a
	// vehicle (autopilot.Driver.Waiting, bounded): slow, but not stuck.
	waiting bool
}

// step records one physics step: the car moved dist metres, ends at
// speed, height above the road surface, touching what touched says.
func (l *driveLog) step(dt, dist, speed, height float64, at world.Vec2, touched car.Contact) {
	touching, parkedCar := touched != 0, touched.Has(car.TouchParkedCar)
	if !l.started || height < l.MinHeight {
		l.MinHeight = height
	}
	l.started = true
	l.Time += dt
	l.Distance += dist
	if touching && !l.touching {
		l.Contacts++
		if parkedCar {
			l.CarContacts++
		}
		if touched.Has(car.TouchTraffic) {
			l.TrafficContacts++
		}
		for i := range l.ContactsByKind {
			if touched&(1<<i) != 0 {
				l.ContactsByKind[i]++
			}
		}
		if l.onContact != nil {
			l.onContact(at, parkedCar)
		}
	}
	l.touching = touching
	if speed < stuckSpeed && !l.waiting {
		if l.slowFor == 0 {
			l.stuckFrom = at
		}
		l.slowFor += dt
		if l.slowFor > stuckTime && !l.stuck {
			l.stuck = true
			l.StuckEpisodes++
			if l.onStuck != nil {
				l.onStuck(l.stuckFrom, l.slowFor)
			}
		}
		if l.stuck {
			l.LongestStuck = max(l.LongestStuck, l.slowFor)
		}
		return
	}
	l.slowFor, l.stuck = 0, false
}
