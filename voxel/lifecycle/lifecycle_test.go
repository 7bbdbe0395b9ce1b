package lifecycle

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"citydrive/voxel"
	"citydrive/voxel/plan"
)

var paths = map[State][]Event{
	Pooled:     {},
	Requested:  {Request},
	Generating: {Request, BeginGeneration},
	Generated:  {Request, BeginGeneration, CompleteGeneration},
	Meshing:    {Request, BeginGeneration, CompleteGeneration, BeginMeshing},
	Ready:      {Request, BeginGeneration, CompleteGeneration, BeginMeshing, CompleteMeshing},
	Active:     {Request, BeginGeneration, CompleteGeneration, BeginMeshing, CompleteMeshing, Activate},
	Cancelled:  {Request, Cancel},
	Unloading:  {Request, BeginUnload},
}

// reach returns a lifecycle in state s and the token of an earlier version.
func reach(t require.TestingT, s State) (*Lifecycle, Token) {
	l := New(voxel.ChunkPos{X: 1, Y: 2, Z: 3}, &Versions{})
	old := l.Token()
	for _, e := range paths[s] {
		prev := l.Token()
		_, ok := l.Fire(e, l.Token())
		require.True(t, ok, "path to %v: %v", s, e)
		if e.Versioned() {
			old = prev
		}
	}
	require.Equal(t, s, l.State())
	return l, old
}

func TestEveryTableEntry(t *testing.T) {
	require.Len(t, paths, int(NumStates))
	for _, tr := range Table {
		l, _ := reach(t, tr.From)
		before := l.Token()
		tok, ok := l.Fire(tr.On, before)
		require.True(t, ok, "%v", tr)
		assert.Equal(t, tr.To, l.State(), "%v", tr)
		if tr.On.Versioned() {
			assert.Greater(t, tok.Version, before.Version, "%v bumps the version", tr)
		} else {
			assert.Equal(t, before, tok, "%v keeps the version", tr)
		}
	}
}

func TestEverythingOutsideTheTableIsRefused(t *testing.T) {
	legal := map[[2]uint8]bool{}
	for _, tr := range Table {
		legal[[2]uint8{uint8(tr.From), uint8(tr.On)}] = true
	}
	for s := State(0); s < NumStates; s++ {
		for e := Event(0); e < NumEvents; e++ {
			if legal[[2]uint8{uint8(s), uint8(e)}] {
				continue
			}
			l, _ := reach(t, s)
			before := l.Token()
			_, ok := l.Fire(e, before)
			assert.False(t, ok, "%v on %v", e, s)
			assert.Equal(t, s, l.State())
			assert.Equal(t, before, l.Token())
		}
	}
}

func TestStaleTokensRefusedInEveryPhase(t *testing.T) {
	for s := State(0); s < NumStates; s++ {
		for e := Event(0); e < NumEvents; e++ {
			if e.Versioned() {
				continue
			}
			l, old := reach(t, s)
			cur := l.Token()
			for _, bad := range []Token{
				old,                                 // an earlier version
				{cur.Pos, cur.Version + 1},          // a version from the future
				{cur.Pos.Add(1, 0, 0), cur.Version}, // another coordinate
			} {
				if bad == cur {
					continue
				}
				_, ok := l.Fire(e, bad)
				assert.False(t, ok, "%v in %v with %v", e, s, bad)
				assert.Equal(t, s, l.State())
			}
		}
	}
}

// Random request/cancel/unload/complete sequences, with completions using
// any token ever issued: Active is only ever reached through generation
// and meshing results carrying the current version's token.
func TestStaleDataNeverBecomesActive(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		l := New(voxel.ChunkPos{}, &Versions{})
		tokens := []Token{l.Token()}
		accepted := map[uint64]map[Event]bool{}
		for range rapid.IntRange(1, 80).Draw(rt, "steps") {
			e := Event(rapid.IntRange(0, int(NumEvents)-1).Draw(rt, "event"))
			tok := tokens[rapid.IntRange(0, len(tokens)-1).Draw(rt, "token")]
			before := l.Token()
			got, ok := l.Fire(e, tok)
			if !ok {
				require.Equal(rt, before, l.Token())
				continue
			}
			if e.Versioned() {
				tokens = append(tokens, got)
				continue
			}
			require.Equal(rt, before, tok, "a non-current token was accepted")
			if accepted[tok.Version] == nil {
				accepted[tok.Version] = map[Event]bool{}
			}
			accepted[tok.Version][e] = true
			if l.State() == Active {
				a := accepted[l.Token().Version]
				require.True(rt, a[CompleteGeneration] && a[CompleteMeshing], "Active without this version's data")
			}
		}
	})
}

func TestVersionsStayUniqueAcrossRecreation(t *testing.T) {
	s := NewScheduler()
	p := voxel.ChunkPos{}
	s.ApplyPlan(plan.Of(p))
	gens := s.StartGenerations(1, nil)
	require.Len(t, gens, 1)
	old := gens[0]
	s.ApplyPlan(plan.Of())
	unloads := s.TakeUnloads(10, nil)
	require.Len(t, unloads, 1)
	require.True(t, s.CompleteUnload(unloads[0]))
	s.ApplyPlan(plan.Of(p)) // a fresh lifecycle for the same coordinate
	assert.False(t, s.ReportGenerationCompleted(old), "the old incarnation's result is stale")
	gens = s.StartGenerations(1, nil)
	require.Len(t, gens, 1)
	assert.NotEqual(t, old, gens[0])
}

func TestSchedulerBudgetsAndNearFirst(t *testing.T) {
	s := NewScheduler()
	centre := voxel.ChunkPos{}
	d := plan.Union(plan.Anchor{Centre: centre, Radius: 3})
	s.ApplyPlan(d)
	s.ApplyPlan(d) // idempotent: nothing requested twice
	var all []Token
	for {
		g, m, u := s.Frame(Budget{Generations: 4, Meshings: 2, Unloads: 1}, nil, nil, nil)
		require.LessOrEqual(t, len(g), 4)
		require.LessOrEqual(t, len(m), 2)
		require.Empty(t, u)
		if len(g) == 0 {
			break
		}
		all = append(all, g...)
	}
	require.Len(t, all, d.Len())
	for i, tok := range all {
		require.Equal(t, d.Order()[i], tok.Pos, "generation starts near-first")
	}
	// complete two generations, then a frame starts at most 2 meshings
	for _, tok := range all[:3] {
		require.True(t, s.ReportGenerationCompleted(tok))
		assert.False(t, s.ReportGenerationCompleted(tok), "a duplicate completion is wrong-phase")
	}
	m := s.StartMeshings(2, nil)
	assert.Equal(t, all[:2], m)
	require.True(t, s.ReportMeshingCompleted(m[0]))
	require.True(t, s.TryActivate(m[0]))
	assert.Equal(t, Active, s.State(m[0].Pos))
	// an unload makes every outstanding token stale
	s.ApplyPlan(plan.Of())
	assert.False(t, s.ReportMeshingCompleted(m[1]))
	assert.False(t, s.ReportGenerationCompleted(all[5]))
	u := s.TakeUnloads(1, nil)
	assert.Len(t, u, 1, "unload budget")
	assert.Equal(t, Unloading, s.State(u[0].Pos))
	require.True(t, s.CompleteUnload(u[0]))
	assert.Equal(t, Pooled, s.State(u[0].Pos))
}

func TestCancelThenRequestGivesNewToken(t *testing.T) {
	s := NewScheduler()
	p := voxel.ChunkPos{Y: 1}
	s.ApplyPlan(plan.Of(p))
	g := s.StartGenerations(1, nil)
	require.True(t, s.Cancel(p))
	assert.Equal(t, Cancelled, s.State(p))
	assert.False(t, s.ReportGenerationCompleted(g[0]))
	s.ApplyPlan(plan.Of(p))
	assert.Equal(t, Requested, s.State(p))
	g2 := s.StartGenerations(1, nil)
	require.Len(t, g2, 1)
	assert.Greater(t, g2[0].Version, g[0].Version)
	assert.True(t, s.ReportGenerationCompleted(g2[0]))
}
