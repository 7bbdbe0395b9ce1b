package netsync

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// fakeClock advances by step on every read.
type fakeClock struct {
	t    time.Time
	step time.Duration
}

func (c *fakeClock) now() time.Time { c.t = c.t.Add(c.step); return c.t }

// pass runs one client's delivery pass over pending chunks of the given
// kinds ('d' never edited, 'e' edited, 'u' not ready) and returns what it
// delivered, in order, and whether time was left.
func pass(q quota, kinds string) (string, bool) {
	out := ""
	for i, k := range kinds {
		if !q.look(i) {
			break
		}
		switch k {
		case 'd':
			q.sentDefault()
			out += "d"
		case 'e':
			q.sentEdits()
			out += "e"
		case 'u':
			q.notReady()
		}
	}
	return out, q.inTime()
}

func TestPacingCounts(t *testing.T) {
	cases := []struct {
		name                    string
		edited, defaults, skips int
		kinds, want             string
	}{
		{name: "all fit", edited: 4, defaults: 4, skips: 4, kinds: "ddee", want: "ddee"},
		{name: "edited bound", edited: 2, defaults: 9, skips: 9, kinds: "eeedd", want: "ee"},
		{name: "defaults bound", edited: 9, defaults: 3, skips: 9, kinds: "ddddee", want: "ddd"},
		{name: "skip bound", edited: 9, defaults: 9, skips: 2, kinds: "uuudd", want: ""},
		{name: "skips below the bound are looked past", edited: 9, defaults: 9, skips: 3, kinds: "ududd", want: "ddd"},
		{name: "the bound counts skips, not looks", edited: 9, defaults: 9, skips: 2, kinds: "ududd", want: "d"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := pacing{edited: tc.edited, defaults: tc.defaults, skips: tc.skips, now: time.Now}
			p.startTick(1)
			got, inTime := pass(p.client(), tc.kinds)
			assert.Equal(t, tc.want, got)
			assert.True(t, inTime, "no time budget")
		})
	}
}

func TestPacingTime(t *testing.T) {
	const many = 1000
	cases := []struct {
		name      string
		budget    time.Duration
		step      time.Duration // the clock advances this much per read
		delivered int
		inTime    bool
	}{
		{name: "no budget never reads the clock's verdict", budget: 0, step: time.Hour, delivered: many, inTime: true},
		{name: "budget holds", budget: time.Second, step: time.Microsecond, delivered: many, inTime: true},
		// startTick reads once (deadline at 1.5 steps), looks 0 and 16 read
		// again: 2 steps in at look 16, past the deadline.
		{name: "runs out at the next clock check", budget: 3 * time.Millisecond / 2, step: time.Millisecond,
			delivered: timeCheckEvery, inTime: false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			clk := &fakeClock{step: tc.step}
			p := pacing{edited: many, defaults: many, skips: many, budget: tc.budget, now: clk.now}
			p.startTick(1)
			kinds := make([]byte, many)
			for i := range kinds {
				kinds[i] = 'd'
			}
			got, inTime := pass(p.client(), string(kinds))
			assert.Len(t, got, tc.delivered)
			assert.Equal(t, tc.inTime, inTime)
		})
	}
}

func TestPacingRoundRobin(t *testing.T) {
	p := pacing{edited: 1, defaults: 1, skips: 1, now: time.Now}
	order := func(n int) []int {
		p.startTick(n)
		var got []int
		for k := range n {
			got = append(got, p.turn(k, n))
		}
		return got
	}
	assert.Equal(t, []int{0, 1, 2}, order(3))
	p.allServed()
	assert.Equal(t, []int{1, 2, 0}, order(3), "everyone served: the next tick starts one further")
	p.ranOut(2)
	assert.Equal(t, []int{2, 0, 1}, order(3), "out of time on client 2: it goes first next tick")
	p.ranOut(2)
	assert.Equal(t, []int{0, 1}, order(2), "a client left: the start wraps")
}
