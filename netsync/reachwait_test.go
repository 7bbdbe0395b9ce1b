package netsync

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/netsync/wire"
	"citydrive/voxel"
)

type noCars struct{}

func (noCars) Publish([]wire.CarSnapshot)                       {}
func (noCars) Remote(dst []wire.CarSnapshot) []wire.CarSnapshot { return dst }

// In a cluster a player just moved to this server resends its unanswered
// edits as soon as their chunks arrive, maybe before its first car here:
// such an edit waits for the car instead of being refused for reach. A
// single server refuses it at once, as ever.
func TestResentEditWaitsForTheCarAfterJoining(t *testing.T) {
	for _, cluster := range []bool{true, false} {
		s := startServer(t, func(c *ServerConfig) {
			c.Reach = 48
			if cluster {
				c.Cars = noCars{}
			}
		})
		c := dial(t, s.clientConfig())
		pos := voxel.ChunkPos{X: 0, Y: 1, Z: 0}
		require.NoError(t, c.Subscribe(pos, 1))
		for held := false; !held; {
			if d, ok := next(t, c).(*wire.ChunkDefaults); ok {
				for _, p := range d.Pos {
					held = held || p == pos
				}
			}
		}
		seq, err := c.RequestEdit(pos, uint16(voxel.Index(16, 8, 16)), voxel.Stone)
		require.NoError(t, err)
		if !cluster {
			for {
				if r, ok := next(t, c).(*wire.EditReject); ok && r.Seq == seq {
					assert.Contains(t, r.Reason, "no car position yet")
					break
				}
			}
			continue
		}
		// A probe refused at once (not in the area): requests are judged in
		// order, so once it is answered the edit was judged without a car.
		probe, err := c.RequestEdit(voxel.ChunkPos{X: 500, Y: 1}, 0, voxel.Stone)
		require.NoError(t, err)
		for probed := false; !probed; {
			if r, ok := next(t, c).(*wire.EditReject); ok {
				require.NotEqual(t, seq, r.Seq, "refused: %s", r.Reason)
				probed = r.Seq == probe
			}
		}
		c.SendCar(wire.QuantiseCar(0, 0, 16, 40, 16, 0, 0)) // the car arrives after the edit
		for answered := false; !answered; {
			switch m := next(t, c).(type) {
			case *wire.EditAck:
				answered = m.Seq == seq
			case *wire.EditReject:
				require.NotEqual(t, seq, m.Seq, "refused: %s", m.Reason)
			}
		}
	}
}
