package bots

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/netsync"
	"citydrive/netsync/wire"
	"citydrive/voxel"
)

// fakeLog is a connection's log of car 7's relays.
type fakeLog struct{ heard []netsync.HeardAt }

func (l *fakeLog) HeardLog(player uint32, dst []netsync.HeardAt) ([]netsync.HeardAt, bool) {
	if player != 7 {
		return dst, false
	}
	return append(dst, l.heard...), false
}

func heardAt(seq uint32, ms int) netsync.HeardAt { return netsync.HeardAt{Seq: seq, At: gapAt(ms)} }

// A gap of 100 ms or more at a switch is explained: the watcher's ticks,
// each connection's roles and relays of the car, the car's sends and
// what became of the old primary; a shorter one is not traced.
func TestLongGapIsTraced(t *testing.T) {
	f, ar, res := newFleet(), newArea(voxel.ChunkPos{}, 4), &Bot{}
	g := newGapWatch(f, gapAt(0))
	g.trace = newGapTracer(3)
	g.trace.clock = func() time.Time { return gapAt(170) } // the show tick ran 4 ms after its ticker fired
	old := &fakeLog{heard: []netsync.HeardAt{heardAt(9, -400), heardAt(10, -5), heardAt(10, 28), heardAt(10, 61)}}
	nw := &fakeLog{heard: []netsync.HeardAt{heardAt(10, 20), heardAt(12, 150), heardAt(13, 168), heardAt(13, 171)}}
	before := [2]tickConn{{c: old, addr: "a:1", role: rolePrimary}, {c: nw, addr: "b:2", role: roleSpareReady}}
	f.put(7, 0, voxel.ChunkPos{}, 10, gapAt(-10))
	for _, ms := range []int{0, 33, 66} {
		g.trace.tick(gapAt(ms), before)
		var cars []wire.CarSnapshot
		if ms == 0 {
			cars = []wire.CarSnapshot{{Player: 7, Seq: 10}}
		}
		g.seen(gapAt(ms), cars, ar, res)
	}
	g.switched(gapAt(100), ar, res) // the bot's Step, then the trace's tick, then the cars
	g.trace.tick(gapAt(100), [2]tickConn{{c: nw, addr: "b:2", role: rolePrimary}, {c: old, addr: "a:1", role: roleLingered}})
	g.seen(gapAt(100), nil, ar, res)
	f.put(7, 0, voxel.ChunkPos{}, 11, gapAt(20))
	f.put(7, 0, voxel.ChunkPos{}, 12, gapAt(50))
	f.switched(7, gapAt(45))
	f.switched(7, gapAt(-400)) // before the window
	after := [2]tickConn{{c: nw, addr: "b:2", role: rolePrimary}}
	g.trace.tick(gapAt(133), after)
	g.seen(gapAt(133), nil, ar, res)
	g.trace.tick(gapAt(166), after)
	g.seen(gapAt(166), []wire.CarSnapshot{{Player: 7, Seq: 12}}, ar, res)

	require.Len(t, res.GapTraces, 1)
	tr := res.GapTraces[0]
	assert.Equal(t, res.HandoverGaps[0]*1000, tr.GapMs)
	assert.InDelta(t, 146, tr.GapMs, 1e-9, "from snapshot 11's send")
	assert.Equal(t, GapTrace{Kind: "handover", GapMs: tr.GapMs, Car: 7, Bot: 3, LastSeq: 10, ShownSeq: 12,
		AtMs: 100, ShownMs: 166, AtToShownMs: 66, FromMs: 20, ReadMs: 170,
		TicksMs: []float64{0, 33, 66, 100, 133, 166}, LongestTickMs: 34, LongestTickFromMs: 66,
		Conns: []TraceConn{
			{Addr: "a:1", Roles: []TraceRole{{"primary", 0, 66}, {"old primary lingering", 100, 100}},
				Heard: []TraceSeq{{10, -5}, {10, 28}, {10, 61}}, GoneMs: ptr(133.0)},
			{Addr: "b:2", Roles: []TraceRole{{"spare ready", 0, 66}, {"primary", 100, 166}},
				Heard: []TraceSeq{{10, 20}, {12, 150}, {13, 168}}},
		},
		Sent:          []TraceSeq{{10, -10}, {11, 20}, {12, 50}},
		CarSwitchesMs: []float64{45},
		Switch:        &TraceSwitch{From: "a:1", To: "b:2", OldKept: true, OldLingered: true, OldDroppedMs: ptr(33.0)},
	}, tr)

	g.switched(gapAt(200), ar, res)
	g.trace.tick(gapAt(200), [2]tickConn{{c: old, addr: "a:1", role: rolePrimary}, {c: nw, addr: "b:2", role: roleSpare}})
	f.put(7, 0, voxel.ChunkPos{}, 13, gapAt(180))
	g.seen(gapAt(233), []wire.CarSnapshot{{Player: 7, Seq: 13}}, ar, res)
	require.Len(t, res.HandoverGaps, 2)
	assert.InDelta(t, 0.053, res.HandoverGaps[1], 1e-9)
	assert.Len(t, res.GapTraces, 1, "a gap under 100 ms is not traced")

	var buf bytes.Buffer
	require.NoError(t, Report{Bots: []Bot{*res, {}}}.WriteGapTrace(&buf))
	var line map[string]any
	require.NoError(t, json.Unmarshal(buf.Bytes(), &line), "one JSON object, one line")
	for _, k := range []string{"kind", "gap_ms", "car", "bot", "at_ms", "shown_ms", "ticks_ms", "longest_tick_ms", "conns", "sent", "switch"} {
		assert.Contains(t, line, k)
	}
}

// Without the trace a long gap is timed as before and nothing is kept.
func TestNoTraceWithoutTheOption(t *testing.T) {
	g, _, ar, res := watching(t)
	g.seen(gapAt(300), []wire.CarSnapshot{{Player: 7, Seq: 11}}, ar, res)
	assert.Equal(t, []float64{0.3}, res.HandoverGaps)
	assert.Empty(t, res.GapTraces)
}

func ptr[T any](v T) *T { return &v }
