package bots

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/netsync/wire"
	"citydrive/voxel"
)

var gapT0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func gapAt(ms int) time.Time { return gapT0.Add(time.Duration(ms) * time.Millisecond) }

// watching is a bot's gap watch with car 7 (of this process, at the
// area's centre, its snapshot 10 sent and seen at 0 ms) and a switch at
// 100 ms.
func watching(t *testing.T) (*gapWatch, *fleet, *area, *Bot) {
	t.Helper()
	f, ar, res := newFleet(), newArea(voxel.ChunkPos{}, 4), &Bot{}
	g := newGapWatch(f, gapAt(0))
	f.put(7, 0, voxel.ChunkPos{}, 10, gapAt(0))
	g.seen(gapAt(0), []wire.CarSnapshot{{Player: 7, Seq: 10}}, ar, res)
	g.switched(gapAt(100), ar, res)
	require.Equal(t, 1, res.HandoverWatched)
	return g, f, ar, res
}

// A car watched across a switch is seen again at its next newer
// snapshot, not at an older one (the merged view of a handover steps back
// when the connection that had the newest closes).
func TestWatchedCarIsSeenAgainOnlyAtANewerSnapshot(t *testing.T) {
	g, _, ar, res := watching(t)
	g.seen(gapAt(150), []wire.CarSnapshot{{Player: 7, Seq: 9}}, ar, res)
	assert.Empty(t, res.HandoverGaps, "an older snapshot is not the car seen again")
	g.seen(gapAt(300), []wire.CarSnapshot{{Player: 7, Seq: 11}}, ar, res)
	assert.Equal(t, []float64{0.3}, res.HandoverGaps, "the fleet holds no later send: from the last sighting")
	assert.Equal(t, 300*time.Millisecond, res.HandoverAnyGap)
	assert.Empty(t, g.watch)
}

// A car whose own bot was late to send its next snapshot is timed from
// that send: the handover cannot show what was not sent.
func TestGapStartsWhenTheCarSentItsNextSnapshot(t *testing.T) {
	g, f, ar, res := watching(t)
	f.put(7, 0, voxel.ChunkPos{}, 11, gapAt(250))
	f.put(7, 0, voxel.ChunkPos{}, 12, gapAt(280))
	g.seen(gapAt(300), []wire.CarSnapshot{{Player: 7, Seq: 12}}, ar, res)
	require.Len(t, res.HandoverGaps, 1)
	assert.InDelta(t, 0.05, res.HandoverGaps[0], 1e-9, "from snapshot 11's send")
	assert.Equal(t, 300*time.Millisecond, res.HandoverAnyGap, "the old measure counts the sender's delay")
}

// A watched car that drives out of the view is not counted; one that
// stays in view and is not shown within gapWatchFor is lost; another
// process's car is only counted as not judged.
func TestWatchCountsOnlyCarsThatStayInView(t *testing.T) {
	g, f, ar, res := watching(t)
	f.put(8, 0, voxel.ChunkPos{X: 4}, 20, gapAt(0)) // on the area's edge: not watched
	g.seen(gapAt(110), []wire.CarSnapshot{{Player: 8, Seq: 20}, {Player: 9, Seq: 1}}, ar, res)
	g.switched(gapAt(120), ar, res)
	assert.Equal(t, 1, res.HandoverWatched, "car 7 still watched from the first switch; car 8 outside the inner area")
	assert.Equal(t, 1, res.HandoverUnjudged, "car 9 is not this process's")

	g.seen(gapAt(1000), nil, ar, res)
	assert.Zero(t, res.HandoverCarsLost)
	g.seen(gapAt(2101), nil, ar, res)
	assert.Equal(t, 1, res.HandoverCarsLost, "car 7 stayed at the centre, never shown")

	g, f, ar, res = watching(t)
	f.put(7, 0, voxel.ChunkPos{X: 4}, 11, gapAt(500)) // drove to the edge
	g.seen(gapAt(500), nil, ar, res)
	g.seen(gapAt(2500), nil, ar, res)
	assert.Equal(t, 1, res.HandoverLeftView)
	assert.Zero(t, res.HandoverCarsLost)
	assert.Equal(t, 1, res.HandoverAnyLost, "the old measure counts it lost")
}

// The fleet finds the first snapshot after a seq among those it keeps,
// across the sequence's wrap, and forgets a car's old id on a new one.
func TestFleetSentAfter(t *testing.T) {
	f := newFleet()
	for i := range fleetSends + 5 { // sends 0…4 overwritten
		f.put(7, 0, voxel.ChunkPos{}, uint32(i)-50, gapAt(i)) // seq 0 at 50
	}
	at, ok := f.sentAfter(7, ^uint32(0))
	require.True(t, ok)
	assert.Equal(t, gapAt(50), at, "seq 0 comes after seq -1")
	at, ok = f.sentAfter(7, uint32(fleetSends-47))
	require.True(t, ok)
	assert.Equal(t, gapAt(fleetSends+4), at)
	_, ok = f.sentAfter(7, uint32(fleetSends-46))
	assert.False(t, ok, "nothing newer sent yet")
	f.put(70, 7, voxel.ChunkPos{X: 1}, 1, gapAt(0))
	_, ok = f.where(7)
	assert.False(t, ok)
}

// quietWatch is a bot's gap watch from 0 ms with car 7 (of this process,
// at the area's centre) shown a newer snapshot every 50 ms tick up to
// last ms; it reports the next seq.
func quietWatch(t *testing.T, last int) (*gapWatch, *area, *Bot, uint32) {
	t.Helper()
	f, ar, res := newFleet(), newArea(voxel.ChunkPos{}, 4), &Bot{}
	g := newGapWatch(f, gapAt(0))
	seq := uint32(1)
	for ms := 0; ms <= last; ms += 50 {
		f.put(7, 0, voxel.ChunkPos{}, seq, gapAt(ms))
		g.seen(gapAt(ms), []wire.CarSnapshot{{Player: 7, Seq: seq}}, ar, res)
		seq++
	}
	return g, ar, res, seq
}

// Where the watcher's connections stay as they are, the same watch starts
// every gapBaseEvery once they have been so for gapQuiet: a car's gap
// there (the path's, no handover's) is the baseline's, beside the
// handovers'.
func TestBaselineTimesTheSameCarsWhereThereIsNoHandover(t *testing.T) {
	g, ar, res, seq := quietWatch(t, 1950)
	assert.Zero(t, res.BaselineWatched, "not before gapQuiet")
	g.seen(gapAt(2000), nil, ar, res) // the baseline's instant; car 7 stalls
	assert.Equal(t, 1, res.BaselineWatched)
	g.seen(gapAt(2050), nil, ar, res)
	g.seen(gapAt(2100), []wire.CarSnapshot{{Player: 7, Seq: seq}}, ar, res)
	require.Len(t, res.BaselineGaps, 1)
	assert.InDelta(t, 0.15, res.BaselineGaps[0], 1e-9, "from its last sighting at 1950 ms")
	assert.Empty(t, res.HandoverGaps)
	assert.Zero(t, res.Handovers)

	g.seen(gapAt(2950), []wire.CarSnapshot{{Player: 7, Seq: seq + 1}}, ar, res)
	assert.Equal(t, 1, res.BaselineWatched, "the next a second after")
	g.seen(gapAt(3000), []wire.CarSnapshot{{Player: 7, Seq: seq + 2}}, ar, res)
	assert.Equal(t, 2, res.BaselineWatched)
	assert.Equal(t, []float64{0.15, 0.05}, res.BaselineGaps)
}

// A baseline watch is given up when the watcher's connections change
// before its cars are shown (a spare opened or dropped), and taken over
// by the switch's watch at a switch: neither is the baseline's. The next
// waits gapQuiet after the change.
func TestBaselineIsNeverAHandoversGap(t *testing.T) {
	g, ar, res, seq := quietWatch(t, 1950)
	g.seen(gapAt(2000), nil, ar, res)
	require.Equal(t, 1, res.BaselineWatched)
	g.connsChanged(gapAt(2020), res)
	g.seen(gapAt(2050), []wire.CarSnapshot{{Player: 7, Seq: seq}}, ar, res)
	assert.Zero(t, res.BaselineWatched, "given up")
	assert.Empty(t, res.BaselineGaps)
	for ms := 2100; ms < 4000; ms += 50 {
		seq++
		g.seen(gapAt(ms), []wire.CarSnapshot{{Player: 7, Seq: seq}}, ar, res)
	}
	assert.Zero(t, res.BaselineWatched, "not within gapQuiet of the change")
	g.seen(gapAt(4050), nil, ar, res)
	require.Equal(t, 1, res.BaselineWatched, "gapQuiet after it")

	g.switched(gapAt(4060), ar, res)
	assert.Zero(t, res.BaselineWatched, "the switch's now")
	assert.Equal(t, 1, res.HandoverWatched)
	g.seen(gapAt(4100), []wire.CarSnapshot{{Player: 7, Seq: seq + 1}}, ar, res)
	assert.Empty(t, res.BaselineGaps)
	require.Len(t, res.HandoverGaps, 1)
	assert.InDelta(t, 0.15, res.HandoverGaps[0], 1e-9, "from its last sighting at 3950 ms")
}

// A gap within which the watcher's own ticks came more than lateTick
// periods apart is the watcher's (the load generator fell behind and sees
// every car late): counted apart, not among the gaps.
func TestGapWithTheWatcherLateIsCountedApart(t *testing.T) {
	for _, c := range []struct {
		name  string
		ticks []int // the watcher's ticks after the sighting at 0 ms, ms
		late  bool
	}{
		{"on time", []int{33, 67, 133, 167, 200}, false},
		{"a tick 100 ms after the one before", []int{33, 67, 100, 200}, true},
	} {
		g, _, ar, res := watching(t)
		g.period = 33 * time.Millisecond
		for _, ms := range c.ticks[:len(c.ticks)-1] {
			g.seen(gapAt(ms), nil, ar, res)
		}
		g.seen(gapAt(c.ticks[len(c.ticks)-1]), []wire.CarSnapshot{{Player: 7, Seq: 11}}, ar, res)
		if c.late {
			assert.Empty(t, res.HandoverGaps, c.name)
			assert.Equal(t, 1, res.HandoverWatcherLate, c.name)
		} else {
			assert.Len(t, res.HandoverGaps, 1, c.name)
			assert.Zero(t, res.HandoverWatcherLate, c.name)
		}
	}
}
