package netsync

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"citydrive/netsync/wire"
)

// westEast is a border at x = 0: regions x < 0 are a's, x ≥ 0 are b's
// (the block is centred on region (0, 0)).
func westEast(a, b string) wire.Owners {
	var o wire.Owners
	for dz := -1; dz <= 1; dz++ {
		o.Addrs[wire.OwnerIndex(-1, dz)] = a
		o.Addrs[wire.OwnerIndex(0, dz)] = b
		o.Addrs[wire.OwnerIndex(1, dz)] = b
	}
	return o
}

func TestHandoverPolicy(t *testing.T) {
	r := DefaultHandoverRules()
	we := westEast("a", "b")
	corner := westEast("a", "b")
	for dx := -1; dx <= 1; dx++ {
		corner.Addrs[wire.OwnerIndex(dx, 1)] = "c" // z ≥ 512 is c's
	}
	unknownHere := we
	unknownHere.Addrs[wire.OwnerIndex(0, 0)] = ""
	mid := 256.0 // z in the middle of the block's centre row
	open := func(a string) handoverStep { return handoverStep{open: a} }
	swap, drop, none := handoverStep{swap: true}, handoverStep{drop: true}, handoverStep{}
	for _, c := range []struct {
		name string
		s    handoverState
		want handoverStep
	}{
		{"no owners known yet", handoverState{x: -10, z: mid, primary: "a"}, none},
		{"far from the border", handoverState{x: -200, z: mid, owners: we, ok: true, primary: "a"}, none},
		{"approaching: just outside 64 m", handoverState{x: -65, z: mid, owners: we, ok: true, primary: "a"}, none},
		{"approaching: within 64 m opens the spare", handoverState{x: -60, z: mid, owners: we, ok: true, primary: "a"}, open("b")},
		{"spare dialling", handoverState{x: -30, z: mid, owners: we, ok: true, primary: "a", spare: "b"}, none},
		{"crossed, 10 m in: hysteresis, no switch", handoverState{x: 10, z: mid, owners: we, ok: true, primary: "a", spare: "b", spareReady: true}, none},
		{"crossed, 16 m in: switch", handoverState{x: 16, z: mid, owners: we, ok: true, primary: "a", spare: "b", spareReady: true}, swap},
		{"crossed, spare not ready: wait", handoverState{x: 40, z: mid, owners: we, ok: true, primary: "a", spare: "b"}, none},
		{"switched: the old primary is kept as the spare", handoverState{x: 20, z: mid, owners: we, ok: true, primary: "b", spare: "a", spareReady: true}, none},
		{"back over the border by 10 m: no switch back", handoverState{x: -10, z: mid, owners: we, ok: true, primary: "b", spare: "a", spareReady: true}, none},
		{"back over the border by 20 m: switch back", handoverState{x: -20, z: mid, owners: we, ok: true, primary: "b", spare: "a", spareReady: true}, swap},
		{"90 m away: the spare stays (hysteresis)", handoverState{x: 90, z: mid, owners: we, ok: true, primary: "b", spare: "a", spareReady: true}, none},
		{"96 m away: the spare is dropped", handoverState{x: 96, z: mid, owners: we, ok: true, primary: "b", spare: "a", spareReady: true}, drop},
		{"far west: b's spare dropped", handoverState{x: -100, z: mid, owners: we, ok: true, primary: "a", spare: "b"}, drop},
		{"joined at a server that owns nothing here: open the owner", handoverState{x: 200, z: mid, owners: we, ok: true, primary: "a"}, open("b")},
		{"and switch to it once ready", handoverState{x: 200, z: mid, owners: we, ok: true, primary: "a", spare: "b", spareReady: true}, swap},
		{"a third owner nearer: the spare far past 64 m goes first", handoverState{x: 70, z: 500, owners: corner, ok: true, primary: "b", spare: "a"}, drop},
		{"then the third is opened", handoverState{x: 70, z: 500, owners: corner, ok: true, primary: "b"}, open("c")},
		{"the nearer of two others is opened", handoverState{x: -30, z: 500, owners: corner, ok: true, primary: "a"}, open("c")},
		{"no known owner here: no switch", handoverState{x: 480, z: mid, owners: unknownHere, ok: true, primary: "a", spare: "b", spareReady: true}, none},
		{"past the known block: no switch (the spare, far, goes)", handoverState{x: 2000, z: mid, owners: we, ok: true, primary: "a", spare: "b", spareReady: true}, drop},
		{"depth counts unknown regions past the block's edge", handoverState{x: 1020, z: mid, owners: we, ok: true, primary: "a", spare: "b", spareReady: true}, none},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := r.decide(c.s)
			got.reason = ""
			assert.Equal(t, c.want, got)
		})
	}
}

// Driving back and forth across the border within ±15 m (less than
// Switch) never switches after the first crossing, and never drops the
// spare; 20 drives from 80 m on one side to 80 m on the other switch 20
// times.
func TestHandoverPolicyDoesNotFlap(t *testing.T) {
	r := DefaultHandoverRules()
	drive := func(xs []float64) (swaps, drops, opens int) {
		s := handoverState{z: 256, owners: westEast("a", "b"), ok: true, primary: "a"}
		for _, x := range xs {
			s.x = x
			st := r.decide(s)
			switch {
			case st.swap:
				swaps++
				s.primary, s.spare = s.spare, s.primary
			case st.drop:
				drops++
				s.spare, s.spareReady = "", false
			case st.open != "":
				opens++
				s.spare, s.spareReady = st.open, true
			}
		}
		return
	}
	var wiggle []float64
	for i := range 200 {
		wiggle = append(wiggle, -70+float64(i)*0.5) // approach to the border…
		if i > 140 {
			break
		}
	}
	for i := range 400 { // …then ±15 m for a while
		wiggle = append(wiggle, float64(i%61-30)/2)
	}
	swaps, drops, opens := drive(wiggle)
	assert.Equal(t, 0, swaps)
	assert.Equal(t, 0, drops)
	assert.Equal(t, 1, opens)

	var across []float64
	for k := range 20 {
		for i := 0; i <= 40; i++ {
			x := -80 + float64(i)*4
			if k%2 == 1 {
				x = -x
			}
			across = append(across, x)
		}
	}
	swaps, drops, opens = drive(across)
	assert.Equal(t, 20, swaps)
	assert.Equal(t, 0, drops, "80 m never reaches Drop")
	assert.Equal(t, 1, opens)
}
