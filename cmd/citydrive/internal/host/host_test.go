package host

import (
	"context"
	"io"
	"log/slog"
	"math"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"citydrive/netsync"
	"citydrive/netsync/wire"
	"citydrive/roadgraph/world"
	"citydrive/voxel"
	"citydrive/voxel/plan"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const (
	testSeed    = 412
	testRadius  = 2
	testTimeout = 20 * time.Second
)

func quietLog() *slog.Logger {
	if os.Getenv("NETSYNC_LOG") != "" {
		return slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	return slog.New(slog.NewTextHandler(io.Discard, nil))
}

// testTuning is the default server, ticking faster and serving radius 4.
func testTuning() netsync.Tuning {
	tu := netsync.DefaultServerConfig().Tuning
	tu.TickHz, tu.MaxRadius = 60, 4
	tu.SpawnRadius = 0 // the tests' cars start on the ground they test, not at the spawn
	return tu
}

func startHost(t *testing.T, dir string, mod func(*Options)) *Host {
	t.Helper()
	opt := Options{Addr: "127.0.0.1:0", DataDir: dir, Seed: testSeed, Tuning: testTuning(),
		MetricsAddr: "127.0.0.1:0", Logger: quietLog()}
	if mod != nil {
		mod(&opt)
	}
	h, err := Start(context.Background(), opt)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, h.Close()) })
	return h
}

// spot is a place on the ground: the car's position and the chunk under it.
type spot struct {
	x, y, z float64
	chunk   voxel.ChunkPos
}

func ground(x, z float64) spot {
	h := world.New(testSeed).Height(x, z)
	y := math.Max(h, world.WaterLevel) + 1
	p, _ := voxel.ChunkOf(int64(math.Floor(x)), int64(math.Floor(y)), int64(math.Floor(z)))
	return spot{x, y, z, p}
}

// blockNear returns a block index in the spot's chunk and its chunk, a few
// metres from the car.
func (s spot) blockNear(dx, dy, dz float64) (voxel.ChunkPos, uint16) {
	p, i := voxel.ChunkOf(int64(math.Floor(s.x+dx)), int64(math.Floor(s.y+dy)), int64(math.Floor(s.z+dz)))
	return p, uint16(i)
}

func (s spot) car() wire.CarSnapshot { return wire.QuantiseCar(0, 0, s.x, s.y, s.z, 0, 0) }

func dial(t *testing.T, h *Host, centre voxel.ChunkPos, radius uint32) *netsync.Client {
	t.Helper()
	cfg := h.ClientConfig()
	cfg.Centre, cfg.Radius, cfg.Logger = centre, radius, quietLog()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	c, err := netsync.Dial(ctx, cfg)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// next is the client's next message about the world: tick-rate notices,
// which a loaded test machine may cause at any time, are passed over.
func next(t *testing.T, c *netsync.Client) wire.Message {
	t.Helper()
	timer := time.NewTimer(testTimeout)
	defer timer.Stop()
	for {
		select {
		case m := <-c.Messages():
			if _, rate := m.(*wire.TickRate); rate {
				continue
			}
			return m
		case <-c.Done():
			t.Fatalf("connection ended: %v", c.Err())
		case <-timer.C:
			t.Fatal("timed out waiting for a message")
		}
		return nil
	}
}

// area is the client's cylinder as a set.
func area(c voxel.ChunkPos, r int32) map[voxel.ChunkPos]bool {
	out := map[voxel.ChunkPos]bool{}
	for _, p := range plan.Cylinder(c, r, nil) {
		out[p] = true
	}
	return out
}

// stream records what a client received, in order.
type stream struct {
	t      *testing.T
	c      *netsync.Client
	log    []wire.Message
	chunks map[voxel.ChunkPos]wire.Message
}

func newStream(t *testing.T, c *netsync.Client) *stream {
	return &stream{t: t, c: c, chunks: map[voxel.ChunkPos]wire.Message{}}
}

func (s *stream) next() wire.Message {
	m := next(s.t, s.c)
	s.log = append(s.log, m)
	switch m := m.(type) {
	case *wire.ChunkDefaults:
		for _, p := range m.Pos {
			s.chunks[p] = m
		}
	case *wire.ChunkEdits:
		s.chunks[m.Pos] = m
	}
	return m
}

// untilArea reads until every chunk of want has arrived.
func (s *stream) untilArea(want map[voxel.ChunkPos]bool) {
	for {
		done := true
		for p := range want {
			if s.chunks[p] == nil {
				done = false
				break
			}
		}
		if done {
			return
		}
		s.next()
	}
}

// until reads until match accepts a message and returns it.
func until[T wire.Message](s *stream, match func(T) bool) T {
	for {
		if m, ok := s.next().(T); ok && (match == nil || match(m)) {
			return m
		}
	}
}

// edit sends the car, then asks for the edit, retrying while the server
// has not yet seen a car snapshot (datagrams and the stream race).
func edit(t *testing.T, s *stream, car wire.CarSnapshot, pos voxel.ChunkPos, idx uint16, block voxel.Block) (seq uint32, ack wire.Message) {
	t.Helper()
	for range 50 {
		s.c.SendCar(car)
		seq, err := s.c.RequestEdit(pos, idx, block)
		require.NoError(t, err)
		for {
			switch m := s.next().(type) {
			case *wire.EditAck:
				if m.Seq == seq {
					return seq, m
				}
				continue
			case *wire.EditReject:
				if m.Seq != seq {
					continue
				}
				if strings.Contains(m.Reason, "no car position yet") {
					break
				}
				return seq, m
			default:
				continue
			}
			break
		}
	}
	t.Fatal("the server never saw the car")
	return 0, nil
}

func TestSoloRoundTripLoadsTheWholeArea(t *testing.T) {
	t0 := time.Now()
	h := startHost(t, t.TempDir(), nil)
	started := time.Since(t0)
	sp := ground(100, 100)
	c := dial(t, h, sp.chunk, testRadius)
	dialled := time.Since(t0)
	s := newStream(t, c)
	want := area(sp.chunk, testRadius)
	s.untilArea(want)
	t.Logf("host started in %v, dialled at %v, %d chunks delivered at %v", started, dialled, len(want), time.Since(t0))
	assert.Len(t, s.chunks, len(want), "exactly the area, nothing else")
	for _, m := range s.chunks {
		assert.IsType(t, &wire.ChunkDefaults{}, m, "a fresh world is all procedural defaults")
	}
	// Delivery did not wait for the world's loop; its gauges follow within
	// a pass.
	require.Eventually(t, func() bool {
		st := h.World().Stats()
		return st.Wanted == len(want) && st.Ready == len(want)
	}, 5*time.Second, 5*time.Millisecond, "every chunk of a fresh world is deliverable: %+v", h.World().Stats())
	assert.Equal(t, uint32(4), c.Welcome().MaxRadius)
	assert.NoError(t, c.Err())
}

func TestTwoClientsEditArrivesAfterTheChunkInOrder(t *testing.T) {
	h := startHost(t, t.TempDir(), nil)
	sp := ground(-300, 250)
	a := newStream(t, dial(t, h, sp.chunk, testRadius))
	b := newStream(t, dial(t, h, sp.chunk, testRadius))
	want := area(sp.chunk, testRadius)
	a.untilArea(want)
	b.untilArea(want)

	pos, idx := sp.blockNear(2, 0, 1)
	require.True(t, want[pos])
	var seqs []uint32
	for i, blk := range []voxel.Block{voxel.Stone, voxel.Sand, voxel.Air} {
		seq, ack := edit(t, a, sp.car(), pos, idx+uint16(i), blk)
		require.IsType(t, &wire.EditAck{}, ack, "%+v", ack)
		seqs = append(seqs, seq)
	}
	require.True(t, slices.IsSorted(seqs), "each request gets the next sequence number: %v", seqs)
	// a saw its own broadcasts before each ack.
	var got []wire.Message
	for _, m := range a.log {
		if e, ok := m.(*wire.EditBroadcast); ok {
			got = append(got, e)
		}
	}
	require.Len(t, got, 3)
	// b receives the three edits, in order, after the chunk.
	for i, blk := range []voxel.Block{voxel.Stone, voxel.Sand, voxel.Air} {
		e := until(b, func(*wire.EditBroadcast) bool { return true })
		assert.Equal(t, &wire.EditBroadcast{Pos: pos, Index: idx + uint16(i), Block: blk}, e)
	}
	chunkAt, editAt := -1, -1
	for i, m := range b.log {
		switch m := m.(type) {
		case *wire.ChunkDefaults:
			if slices.Contains(m.Pos, pos) {
				chunkAt = i
			}
		case *wire.EditBroadcast:
			if editAt < 0 {
				editAt = i
			}
		}
	}
	assert.Less(t, chunkAt, editAt, "the edit never overtakes its chunk")

	// A third client joining now gets the chunk with the edits in it.
	c := newStream(t, dial(t, h, sp.chunk, testRadius))
	c.untilArea(want)
	assert.Equal(t, &wire.ChunkEdits{Pos: pos, Edits: []voxel.Edit{
		{Index: idx, Block: voxel.Stone}, {Index: idx + 1, Block: voxel.Sand}, {Index: idx + 2, Block: voxel.Air},
	}}, c.chunks[pos])

	// An unknown block is rejected with a reason, not a disconnect.
	_, rej := edit(t, a, sp.car(), pos, idx, 200)
	require.IsType(t, &wire.EditReject{}, rej)
	assert.Contains(t, rej.(*wire.EditReject).Reason, "unknown block")
	assert.NoError(t, a.c.Err())
}

func TestRestartKeepsAcknowledgedEdits(t *testing.T) {
	dir := t.TempDir()
	sp := ground(40, -700)
	want := area(sp.chunk, testRadius)
	type key struct {
		pos voxel.ChunkPos
		idx uint16
	}
	acked := map[key]voxel.Block{}
	var fp string
	func() {
		h, err := Start(context.Background(), Options{DataDir: dir, Seed: testSeed, Tuning: testTuning(), Logger: quietLog()})
		require.NoError(t, err)
		defer func() { require.NoError(t, h.Close()) }()
		fp = h.Fingerprint()
		cfg := h.ClientConfig()
		cfg.Centre, cfg.Radius, cfg.Logger = sp.chunk, testRadius, quietLog()
		ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
		defer cancel()
		c, err := netsync.Dial(ctx, cfg)
		require.NoError(t, err)
		defer c.Close()
		s := newStream(t, c)
		s.untilArea(want)
		for i, d := range [][3]float64{{0, 0, 0}, {20, -3, 5}, {-25, 2, -10}, {3, -20, 30}, {1, 1, 1}} {
			pos, idx := sp.blockNear(d[0], d[1], d[2])
			if !want[pos] {
				continue
			}
			blk := voxel.Block(1 + i%int(voxel.NumBlocks-1))
			_, ack := edit(t, s, sp.car(), pos, idx, blk)
			require.IsType(t, &wire.EditAck{}, ack, "%+v", ack)
			acked[key{pos, idx}] = blk
		}
	}()
	require.GreaterOrEqual(t, len(acked), 3)

	h := startHost(t, dir, nil)
	assert.Equal(t, fp, h.Fingerprint(), "same identity: clients keep their pin")
	s := newStream(t, dial(t, h, sp.chunk, testRadius))
	s.untilArea(want)
	for k, blk := range acked {
		m, ok := s.chunks[k.pos].(*wire.ChunkEdits)
		require.True(t, ok, "chunk %v comes with its edits, got %T", k.pos, s.chunks[k.pos])
		found := false
		for _, e := range m.Edits {
			if e.Index == k.idx {
				assert.Equal(t, blk, e.Block)
				found = true
			}
		}
		assert.True(t, found, "edit %v kept", k)
	}
}

func TestEditOutOfReachIsRejected(t *testing.T) {
	h := startHost(t, t.TempDir(), nil)
	sp := ground(500, 500)
	s := newStream(t, dial(t, h, sp.chunk, testRadius))
	want := area(sp.chunk, testRadius)
	s.untilArea(want)
	far := sp
	far.x += 60 // the car is 60 m away from the block
	pos, idx := sp.blockNear(0, 0, 0)
	_, m := edit(t, s, far.car(), pos, idx, voxel.Stone)
	rej, ok := m.(*wire.EditReject)
	require.True(t, ok, "%+v", m)
	assert.Contains(t, rej.Reason, "out of reach")
	assert.Contains(t, rej.Reason, "48 m")
	// A car jumping 60 m at once is not believed: still out of reach.
	_, m = edit(t, s, sp.car(), pos, idx, voxel.Stone)
	assert.IsType(t, &wire.EditReject{}, m)
	// Another player, whose car is within reach, has it applied.
	s2 := newStream(t, dial(t, h, sp.chunk, testRadius))
	s2.untilArea(want)
	_, m = edit(t, s2, sp.car(), pos, idx, voxel.Stone)
	assert.IsType(t, &wire.EditAck{}, m)
}

func TestMetricsEndpoint(t *testing.T) {
	h := startHost(t, t.TempDir(), nil)
	sp := ground(0, 0)
	s := newStream(t, dial(t, h, sp.chunk, testRadius))
	s.untilArea(area(sp.chunk, testRadius))
	pos, idx := sp.blockNear(0, 0, 0)
	_, m := edit(t, s, sp.car(), pos, idx, voxel.Stone)
	require.IsType(t, &wire.EditAck{}, m)

	tr := &http.Transport{DisableKeepAlives: true}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr, Timeout: testTimeout}).Get("http://" + h.MetricsAddr().String() + "/metrics")
	require.NoError(t, err)
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	text := string(body)
	for _, name := range []string{
		netsync.MetricPlayers + " 1",
		netsync.MetricTick + "_bucket",
		netsync.MetricTickQuantiles + `{quantile="0.99"}`,
		netsync.MetricClientBytesIn + `{player="`,
		netsync.MetricClientBytesOut + `{player="`,
		netsync.MetricChunksDelivered + `{kind="default"}`,
		netsync.MetricEditsApplied + " 1",
		netsync.MetricEditsRejected + `{reason="reach"}`,
		netsync.MetricDatagramsDropped,
		"citydrive_edit_commit_seconds_bucket",
		"citydrive_voxel_wanted_chunks",
	} {
		assert.Contains(t, text, name)
	}
}
