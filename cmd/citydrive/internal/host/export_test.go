package host

import (
	"bytes"
	"context"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/netsync/wire"
	"citydrive/voxel"
	"citydrive/voxel/backup"
	"citydrive/voxel/store"
)

// A running server answers citydrive export with one committed state
// while a player edits: every edit acknowledged before the export began is
// in it, and what it holds is the world after some prefix of the player's
// edits (at most the one being committed beyond those acknowledged when it
// ended).
func TestExportWhileAPlayerEdits(t *testing.T) {
	dir := t.TempDir()
	h := startHost(t, dir, nil)
	sp := ground(60, -40)
	s := newStream(t, dial(t, h, sp.chunk, testRadius))
	s.untilArea(area(sp.chunk, testRadius))
	pos, idx := sp.blockNear(1, 0, 1)
	blocks := []voxel.Block{voxel.Stone, voxel.Sand, voxel.Gravel}
	// Edit k sets block idx+k%4 to blocks[k%3]: the states after each
	// prefix differ, so a snapshot names the prefix it saw.
	editK := func(k int) (uint16, voxel.Block) { return idx + uint16(k%4), blocks[k%3] }
	state := func(n int) voxel.Overlay {
		var o voxel.Overlay
		for k := range n {
			i, b := editK(k)
			o = o.With(i, b)
		}
		return o
	}

	type result struct {
		b   []byte
		err error
	}
	acked := 0
	for round := range 3 {
		for range 4 {
			i, b := editK(acked)
			_, ack := edit(t, s, sp.car(), pos, i, b)
			require.IsType(t, &wire.EditAck{}, ack, "%+v", ack)
			acked++
		}
		before := acked
		got := make(chan result, 1)
		go func() {
			var buf bytes.Buffer
			err := store.FetchExport(context.Background(), WorldDir(dir, testSeed), &buf)
			got <- result{buf.Bytes(), err}
		}()
		// Edit on while the export is made.
		var r result
		for done := false; !done; {
			select {
			case r = <-got:
				done = true
			default:
				i, b := editK(acked)
				_, ack := edit(t, s, sp.car(), pos, i, b)
				require.IsType(t, &wire.EditAck{}, ack, "%+v", ack)
				acked++
			}
		}
		require.NoError(t, r.err)
		hd, cs, err := backup.ReadAll(bytes.NewReader(r.b))
		require.NoError(t, err, "round %d: whole", round)
		assert.EqualValues(t, testSeed, hd.Seed)
		require.Len(t, cs, 1)
		assert.Equal(t, pos, cs[0].Pos)
		matched := -1
		for n := before; n <= acked+1; n++ {
			if slices.Equal(cs[0].Overlay, state(n)) {
				matched = n
			}
		}
		assert.GreaterOrEqual(t, matched, before, "round %d: the state after %d..%d edits, got %v", round, before, acked+1, cs[0].Overlay)
		t.Logf("round %d: export saw %d edits (%d acknowledged before it, %d after)", round, matched, before, acked)
	}
}
