package walker

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/roadgraph/world"
)

func farStart(t *testing.T, w world.World) world.Vec2 {
	for i := int32(0); i < 40; i++ {
		c := world.Cell{I: i, J: 0}
		if p, ok := w.Junction(c); ok && len(w.Arms(c, nil)) >= 3 {
			return p
		}
	}
	t.Fatal("no junction")
	return world.Vec2{}
}

func TestFarWalkOrderKeysReachCaps(t *testing.T) {
	for _, seed := range []uint64{412, 7} {
		w := world.New(seed)
		car := farStart(t, w)
		fw, err := NewFar(w, DefaultFarParams(), gameFarCap)
		require.NoError(t, err)
		// Seed 412 is a lakeside city: look along the heading with land ahead.
		heading, bestAhead := world.Vec2{}, 0.0
		for _, h := range []world.Vec2{{X: 1}, {X: -1}, {Z: 1}, {Z: -1}} {
			fw.Walk(car, h)
			if a := fw.Reach().Ahead; a > bestAhead {
				heading, bestAhead = h, a
			}
		}
		items := fw.Walk(car, heading)
		require.NotEmpty(t, items)
		seen := map[int64]bool{}
		for i, it := range items {
			require.Equal(t, Far, it.Kind)
			require.False(t, seen[it.Key], "key %d twice", it.Key)
			seen[it.Key] = true
			require.Equal(t, int64(it.Edge), it.Key, "the key is the edge id")
			_, ok := w.Edge(it.Edge)
			require.True(t, ok, "a real lattice edge")
			require.LessOrEqual(t, float64(it.Cost), fw.Params().Cost)
			if i > 0 {
				require.GreaterOrEqual(t, it.Cost, items[i-1].Cost, "cheapest first")
			}
		}
		r := fw.Reach()
		t.Logf("seed %d: %d far items, reach ahead %.0f m, behind %.0f m, side %.0f m", seed, len(items), r.Ahead, r.Behind, r.Side)
		assert.GreaterOrEqual(t, r.Ahead, 2000.0)
		assert.GreaterOrEqual(t, r.Behind, 700.0)
		assert.GreaterOrEqual(t, r.Side, 700.0)

		// Stable: the same place gives the same items; a second walker too.
		again := append([]Item(nil), items...)
		fw2, _ := NewFar(w, DefaultFarParams(), gameFarCap)
		assert.Equal(t, again, fw.Walk(car, heading))
		assert.Equal(t, again, fw2.Walk(car, heading))

		// The cap holds and keeps the cheapest.
		small, _ := NewFar(w, DefaultFarParams(), 50)
		got := small.Walk(car, heading)
		require.Len(t, got, 50)
		assert.Equal(t, again[:50], got)
		// A shorter cost reaches less.
		p := DefaultFarParams()
		p.Cost = 600
		short, _ := NewFar(w, p, gameFarCap)
		short.Walk(car, heading)
		assert.Less(t, short.Reach().Ahead, 800.0)
	}
}

func TestFarWalkAllocatesNothing(t *testing.T) {
	w := world.New(412)
	car := farStart(t, w)
	fw, err := NewFar(w, DefaultFarParams(), gameFarCap)
	require.NoError(t, err)
	fw.Walk(car, world.Vec2{X: 1})
	allocs := testing.AllocsPerRun(5, func() { fw.Walk(car.Add(world.Vec2{X: 30}), world.Vec2{X: 1}) })
	assert.Zero(t, allocs)
}

func TestFarParamsValidate(t *testing.T) {
	p := DefaultFarParams()
	p.Cost = 0
	_, err := NewFar(world.New(1), p, gameFarCap)
	assert.Error(t, err)
	_, err = NewFar(world.New(1), DefaultFarParams(), 0)
	assert.Error(t, err)
}

func BenchmarkFarWalk(b *testing.B) {
	w := world.New(412)
	car, _ := w.Junction(world.Cell{I: 2, J: 0})
	fw, _ := NewFar(w, DefaultFarParams(), gameFarCap)
	fw.Walk(car, world.Vec2{X: 1})
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		fw.Walk(car, world.Vec2{X: 1})
	}
}
