// Package lifecycle is the per-coordinate chunk state machine with version
// tokens, and the scheduler that drives many of them under per-frame start
// budgets. Both are pure policy: no goroutines, no I/O.
package lifecycle

import (
	"fmt"

	"citydrive/voxel"
)

// State is where one coordinate is in its life.
type State uint8

const (
	Pooled State = iota
	Requested
	Generating
	Generated
	Meshing
	Ready
	Active
	Cancelled
	Unloading
	NumStates
)

var stateNames = [NumStates]string{"Pooled", "Requested", "Generating", "Generated", "Meshing", "Ready", "Active", "Cancelled", "Unloading"}

func (s State) String() string {
	if s < NumStates {
		return stateNames[s]
	}
	return fmt.Sprintf("State(%d)", uint8(s))
}

// Event is something that moves a lifecycle.
type Event uint8

const (
	Request Event = iota // new version
	BeginGeneration
	CompleteGeneration
	BeginMeshing
	CompleteMeshing
	Activate
	Cancel      // new version
	BeginUnload // new version
	CompleteUnload
	NumEvents
)

var eventNames = [NumEvents]string{"Request", "BeginGeneration", "CompleteGeneration", "BeginMeshing", "CompleteMeshing", "Activate", "Cancel", "BeginUnload", "CompleteUnload"}

func (e Event) String() string {
	if e < NumEvents {
		return eventNames[e]
	}
	return fmt.Sprintf("Event(%d)", uint8(e))
}

// Versioned reports whether e starts a new version (and so needs no token:
// it is the owner's decision, not an async completion).
func (e Event) Versioned() bool { return e == Request || e == Cancel || e == BeginUnload }

// Transition is one entry of the table.
type Transition struct {
	From State
	On   Event
	To   State
}

// Table lists every legal transition; anything else is refused.
var Table = func() []Transition {
	t := []Transition{
		{Pooled, Request, Requested},
		{Cancelled, Request, Requested},
		{Requested, BeginGeneration, Generating},
		{Generating, CompleteGeneration, Generated},
		{Generated, BeginMeshing, Meshing},
		{Meshing, CompleteMeshing, Ready},
		{Ready, Activate, Active},
		{Unloading, CompleteUnload, Pooled},
	}
	for _, s := range []State{Requested, Generating, Generated, Meshing, Ready, Active} {
		t = append(t, Transition{s, Cancel, Cancelled})
	}
	for _, s := range []State{Requested, Generating, Generated, Meshing, Ready, Active, Cancelled} {
		t = append(t, Transition{s, BeginUnload, Unloading})
	}
	return t
}()

var next = func() (n [NumStates][NumEvents]State) {
	for s := range n {
		for e := range n[s] {
			n[s][e] = NumStates // refused
		}
	}
	for _, t := range Table {
		n[t.From][t.On] = t.To
	}
	return n
}()

// Token names one version of one coordinate. Every async completion
// presents the token it was started with.
type Token struct {
	Pos     voxel.ChunkPos
	Version uint64
}

// Versions is the counter new versions are drawn from. One counter shared
// by all lifecycles of a scheduler keeps versions unique even when a
// lifecycle is discarded and recreated for the same coordinate.
type Versions struct{ n uint64 }

func (v *Versions) next() uint64 { v.n++; return v.n }

// Lifecycle is one coordinate's state machine. Only Fire changes it.
type Lifecycle struct {
	pos     voxel.ChunkPos
	state   State
	version uint64
	vs      *Versions
}

// New returns a Pooled lifecycle drawing versions from vs.
func New(pos voxel.ChunkPos, vs *Versions) *Lifecycle {
	return &Lifecycle{pos: pos, vs: vs, version: vs.next()}
}

func (l *Lifecycle) State() State { return l.state }

// Token is the current version's token.
func (l *Lifecycle) Token() Token { return Token{l.pos, l.version} }

// Fire applies e. Versioned events ignore tok and return the new token;
// every other event is accepted only if tok is the current token and the
// current state allows e. It reports whether the transition happened.
func (l *Lifecycle) Fire(e Event, tok Token) (Token, bool) {
	if e >= NumEvents {
		return l.Token(), false
	}
	to := next[l.state][e]
	if to == NumStates {
		return l.Token(), false
	}
	if e.Versioned() {
		l.version = l.vs.next()
	} else if tok != l.Token() {
		return l.Token(), false
	}
	l.state = to
	return l.Token(), true
}

// Convenience wrappers named after the events.
func (l *Lifecycle) Request() (Token, bool)        { return l.Fire(Request, Token{}) }
func (l *Lifecycle) TryCancel() (Token, bool)      { return l.Fire(Cancel, Token{}) }
func (l *Lifecycle) TryBeginUnload() (Token, bool) { return l.Fire(BeginUnload, Token{}) }

func (l *Lifecycle) try(e Event, tok Token) bool { _, ok := l.Fire(e, tok); return ok }

func (l *Lifecycle) TryBeginGeneration(tok Token) bool    { return l.try(BeginGeneration, tok) }
func (l *Lifecycle) TryCompleteGeneration(tok Token) bool { return l.try(CompleteGeneration, tok) }
func (l *Lifecycle) TryBeginMeshing(tok Token) bool       { return l.try(BeginMeshing, tok) }
func (l *Lifecycle) TryCompleteMeshing(tok Token) bool    { return l.try(CompleteMeshing, tok) }
func (l *Lifecycle) TryActivate(tok Token) bool           { return l.try(Activate, tok) }
func (l *Lifecycle) TryCompleteUnload(tok Token) bool     { return l.try(CompleteUnload, tok) }
