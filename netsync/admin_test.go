package netsync

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/netsync/wire"
	"citydrive/voxel"
)

// helloJoin is a protocol-7 client's first write: its Hello and its Join.
func helloJoin(t *testing.T, seed uint64) []byte {
	t.Helper()
	return append(frame(t, &wire.Hello{Protocol: wire.ProtocolVersion, Seed: seed, Generator: 3}), frame(t, &wire.Join{Key: 1})...)
}

// passwordGate is a Gate with a password and a set of banned keys.
type passwordGate struct {
	mu       sync.Mutex
	password string
	banned   map[uint64]bool
}

func (g *passwordGate) Admit(key uint64, name, password string) string {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.banned[key] {
		return "you are banned from this server"
	}
	if password != g.password {
		return "wrong join password: ask the server's operator for it and start the client with -password"
	}
	return ""
}

func TestGateRefusesInTheHandshakeWithItsSentence(t *testing.T) {
	gate := &passwordGate{password: "sesame", banned: map[uint64]bool{}}
	s := startServer(t, func(c *ServerConfig) { c.Gate = gate })
	cfg := s.clientConfig()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	_, err := Dial(ctx, cfg)
	var re *RefusedError
	require.ErrorAs(t, err, &re)
	assert.True(t, re.ByServer)
	assert.Contains(t, re.Reason, "wrong join password")
	waitEvent(t, s, EventRefused, nil)

	cfg.Password, cfg.Name = "sesame", "alice"
	cfg.Identity = NewIdentityKey(77)
	c := dial(t, cfg)
	firstDefault(t, c)
	snap, err := s.Snapshot(ctx, 0)
	require.NoError(t, err)
	require.Len(t, snap.Players, 1)
	assert.Equal(t, uint64(77), snap.Players[0].Key)
	assert.Equal(t, "alice", snap.Players[0].Name)
	assert.Equal(t, c.Player(), snap.Players[0].ID)

	// A ban kicks the connected player and refuses it on its way back in.
	gate.mu.Lock()
	gate.banned[77] = true
	gate.mu.Unlock()
	assert.Equal(t, 1, s.Kick(77, "banned by the operator"))
	<-c.Done()
	assert.ErrorIs(t, c.Err(), ErrKicked)
	assert.ErrorContains(t, c.Err(), "banned by the operator")
	waitEvent(t, s, EventLeft, func(e Event) bool { return e.Player == c.Player() && e.Code == CodeKicked })
	_, err = Dial(ctx, cfg)
	require.ErrorAs(t, err, &re)
	assert.Contains(t, re.Reason, "banned")
	snap, err = s.Snapshot(ctx, 0)
	require.NoError(t, err)
	assert.Empty(t, snap.Players)
}

// A Hello whose versions match must be followed by a Join; anything else
// is a broken client.
func TestHelloWithoutJoinIsAProtocolError(t *testing.T) {
	s := startServer(t, nil)
	r := rawDial(t, s, nil, false)
	f := append(frame(t, &wire.Hello{Protocol: wire.ProtocolVersion, Seed: 42, Generator: 3}), frame(t, &wire.Subscribe{Radius: 1})...)
	_, err := r.ctrl.Write(f)
	require.NoError(t, err)
	ae := r.closedWith(t)
	assert.Equal(t, CodeProtocol, ae.ErrorCode)
	assert.Contains(t, ae.ErrorMessage, "expected Join")
}

func TestNoticeReachesEveryClientInOrder(t *testing.T) {
	s := startServer(t, nil)
	a, b := dial(t, s.clientConfig()), dial(t, s.clientConfig())
	firstDefault(t, a)
	firstDefault(t, b)
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	n, err := s.Notify(ctx, wire.Notice{Text: "restart in 30 s", Shutdown: 30})
	require.NoError(t, err)
	assert.Equal(t, 2, n)
	for _, c := range []*Client{a, b} {
		assert.Equal(t, &wire.Notice{Text: "restart in 30 s", Shutdown: 30}, nextOf[*wire.Notice](t, c))
	}
	_, err = s.Notify(ctx, wire.Notice{Shutdown: wire.MaxShutdownSeconds + 1})
	assert.Error(t, err)

	// Dispatch hands it to a sink that wants it.
	var got []wire.Notice
	Dispatch(noticeSink{&got}, &wire.Notice{Text: "hi"})
	assert.Equal(t, []wire.Notice{{Text: "hi"}}, got)
}

type noticeSink struct{ got *[]wire.Notice }

func (noticeSink) ChunkDefault(voxel.ChunkPos)                       {}
func (noticeSink) ChunkEdits(voxel.ChunkPos, voxel.Overlay)          {}
func (noticeSink) ChunkDrop(voxel.ChunkPos)                          {}
func (noticeSink) EditBroadcast(voxel.ChunkPos, uint16, voxel.Block) {}
func (noticeSink) EditResult(uint32, bool, string)                   {}
func (s noticeSink) Notice(n wire.Notice)                            { *s.got = append(*s.got, n) }

func TestSnapshotListsEditsAfterASequence(t *testing.T) {
	s := startServer(t, nil)
	a := dial(t, s.clientConfig())
	firstDefault(t, a)
	for i := range 3 {
		_, err := a.RequestEdit(voxel.ChunkPos{}, uint16(i), 1)
		require.NoError(t, err)
		nextOf[*wire.EditAck](t, a)
	}
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	snap, err := s.Snapshot(ctx, 0)
	require.NoError(t, err)
	require.Len(t, snap.Edits, 3)
	assert.Equal(t, uint64(3), snap.Edits[2].Seq)
	snap, err = s.Snapshot(ctx, 2)
	require.NoError(t, err)
	require.Len(t, snap.Edits, 1)
	assert.Equal(t, voxel.ChunkPos{}, snap.Edits[0].Pos)
	assert.Equal(t, 100, snap.Tick.NominalHz)
	assert.Positive(t, snap.Tick.Ticks)
}

// The edit log keeps the newest editLogSize edits and says how many older
// ones a slow reader missed; the tick p99 is over the window.
func TestEditLogAndTickWindow(t *testing.T) {
	var a adminState
	marks, dropped := a.editsSince(0)
	assert.Empty(t, marks)
	assert.Zero(t, dropped)
	for i := range editLogSize + 10 {
		a.noteEdit(voxel.ChunkPos{X: int32(i)}, time.Time{})
	}
	marks, dropped = a.editsSince(0)
	assert.Equal(t, uint64(10), dropped)
	require.Len(t, marks, editLogSize)
	assert.Equal(t, uint64(11), marks[0].Seq)
	assert.Equal(t, int32(10), marks[0].Pos.X)
	marks, dropped = a.editsSince(editLogSize + 8)
	assert.Zero(t, dropped)
	require.Len(t, marks, 2)
	assert.Equal(t, int32(editLogSize+9), marks[1].Pos.X)

	for i := range tickWindow * 2 {
		a.observeTick(time.Duration(i%100) * time.Millisecond)
	}
	p99, n := a.p99()
	assert.Equal(t, tickWindow, n)
	assert.Equal(t, 98*time.Millisecond, p99)
}

func TestAdminCallsAfterCloseSayNotRunning(t *testing.T) {
	s := startServer(t, nil)
	// Once a call is answered the tick goroutine runs, and Close waits
	// for it (a Close racing Run's start is not what is tested here).
	_, err := s.Snapshot(context.Background(), 0)
	require.NoError(t, err)
	require.NoError(t, s.Close())
	_, err = s.Snapshot(context.Background(), 0)
	assert.True(t, errors.Is(err, ErrNotRunning), "%v", err)
}

// A Close that races Run's start (the page's solo server is closed as
// soon as the page leaves) neither races Run's goroutines nor leaves one
// running: Run either ran and is waited for, or starts nothing.
func TestCloseRacingRunStartsNothingLeftRunning(t *testing.T) {
	for i := 0; i < 20; i++ {
		cfg := DefaultServerConfig()
		cfg.DataDir, cfg.Seed, cfg.Generator, cfg.World = t.TempDir(), 42, 3, NewMemoryWorld()
		cfg.MaxRadius, cfg.TickHz, cfg.MaxBlock, cfg.Logger = 4, 100, 200, quietLog()
		s, err := NewServer(cfg)
		require.NoError(t, err)
		done := make(chan error, 1)
		go func() { done <- s.Run(context.Background()) }()
		require.NoError(t, s.Close())
		require.NoError(t, <-done)
		_, err = s.Snapshot(context.Background(), 0)
		assert.True(t, errors.Is(err, ErrNotRunning), "%v", err)
	}
}
