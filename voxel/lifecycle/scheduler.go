package lifecycle

import (
	"citydrive/voxel"
	"citydrive/voxel/plan"
)

// Budget caps how much work of each kind may start in one frame. Budgets
// limit starts, never correctness: what does not start waits its turn.
type Budget struct {
	Generations, Meshings, Unloads int
}

// Scheduler drives the lifecycles of a plan: it requests what the plan
// wants (near-first), unloads what it no longer wants, starts work within
// each frame's budget, and accepts completions only with current tokens.
// Single goroutine (the frame loop).
type Scheduler struct {
	vs     Versions
	lc     map[voxel.ChunkPos]*Lifecycle
	gen    []Token // requested, in plan order
	mesh   []Token // generated, in completion order
	unload []Token // unloading, waiting for the runtime to release them
}

// NewScheduler returns an empty scheduler.
func NewScheduler() *Scheduler {
	return &Scheduler{lc: map[voxel.ChunkPos]*Lifecycle{}}
}

// ApplyPlan unloads every lifecycle the plan no longer wants and requests
// every wanted coordinate that is pooled or cancelled, in plan order.
func (s *Scheduler) ApplyPlan(d plan.Desired) {
	for p, l := range s.lc {
		if !d.Contains(p) {
			if tok, ok := l.TryBeginUnload(); ok {
				s.unload = append(s.unload, tok)
			}
		}
	}
	for _, p := range d.Order() {
		l, ok := s.lc[p]
		if !ok {
			l = New(p, &s.vs)
			s.lc[p] = l
		}
		if tok, ok := l.Request(); ok {
			s.gen = append(s.gen, tok)
		}
	}
}

// Cancel cancels p's current work (e.g. an edit invalidates it); a later
// ApplyPlan requests it again with a newer version.
func (s *Scheduler) Cancel(p voxel.ChunkPos) bool {
	l, ok := s.lc[p]
	if !ok {
		return false
	}
	_, ok = l.TryCancel()
	return ok
}

// current reports whether tok still names p's live version.
func (s *Scheduler) current(tok Token) (*Lifecycle, bool) {
	l, ok := s.lc[tok.Pos]
	return l, ok && l.Token() == tok
}

// start pops up to budget tokens from q that can fire e, appending them to
// dst; stale entries are discarded without using budget.
func (s *Scheduler) start(q *[]Token, e Event, budget int, dst []Token) []Token {
	i := 0
	for ; i < len(*q) && budget > 0; i++ {
		tok := (*q)[i]
		if l, ok := s.current(tok); ok && l.try(e, tok) {
			dst = append(dst, tok)
			budget--
		}
	}
	*q = append((*q)[:0], (*q)[i:]...)
	return dst
}

// StartGenerations moves up to budget requested chunks to Generating and
// appends their tokens to dst (hand each to a generation job).
func (s *Scheduler) StartGenerations(budget int, dst []Token) []Token {
	return s.start(&s.gen, BeginGeneration, budget, dst)
}

// StartMeshings moves up to budget generated chunks to Meshing.
func (s *Scheduler) StartMeshings(budget int, dst []Token) []Token {
	return s.start(&s.mesh, BeginMeshing, budget, dst)
}

// TakeUnloads appends up to budget chunks that began unloading; the
// runtime releases their data and calls CompleteUnload.
func (s *Scheduler) TakeUnloads(budget int, dst []Token) []Token {
	n := min(budget, len(s.unload))
	dst = append(dst, s.unload[:n]...)
	s.unload = append(s.unload[:0], s.unload[n:]...)
	return dst
}

// ReportGenerationCompleted accepts a generation result only for the
// current token in phase Generating.
func (s *Scheduler) ReportGenerationCompleted(tok Token) bool {
	l, ok := s.current(tok)
	if !ok || !l.TryCompleteGeneration(tok) {
		return false
	}
	s.mesh = append(s.mesh, tok)
	return true
}

// ReportMeshingCompleted accepts a mesh only for the current token.
func (s *Scheduler) ReportMeshingCompleted(tok Token) bool {
	l, ok := s.current(tok)
	return ok && l.TryCompleteMeshing(tok)
}

// TryActivate moves a Ready chunk to Active for the current token.
func (s *Scheduler) TryActivate(tok Token) bool {
	l, ok := s.current(tok)
	return ok && l.TryActivate(tok)
}

// CompleteUnload returns an unloading chunk to the pool and forgets it
// (versions stay unique through the shared counter).
func (s *Scheduler) CompleteUnload(tok Token) bool {
	l, ok := s.current(tok)
	if !ok || !l.TryCompleteUnload(tok) {
		return false
	}
	delete(s.lc, tok.Pos)
	return true
}

// State returns p's state (Pooled if unknown).
func (s *Scheduler) State(p voxel.ChunkPos) State {
	if l, ok := s.lc[p]; ok {
		return l.State()
	}
	return Pooled
}

// Frame runs one frame's starts within b and returns what to start.
func (s *Scheduler) Frame(b Budget, gens, meshes, unloads []Token) ([]Token, []Token, []Token) {
	unloads = s.TakeUnloads(b.Unloads, unloads)
	gens = s.StartGenerations(b.Generations, gens)
	meshes = s.StartMeshings(b.Meshings, meshes)
	return gens, meshes, unloads
}
