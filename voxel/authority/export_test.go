package authority

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/voxel"
	"citydrive/voxel/backup"
	"citydrive/voxel/store"
)

// With ServeExports the open world answers citydrive export; Close stops
// it before the store and leaves no socket. Without, there is none.
func TestServeExportsWhileOpen(t *testing.T) {
	dir := t.TempDir()
	w, err := OpenWith(dir, 7, quiet(), Options{ServeExports: true})
	require.NoError(t, err)
	p := voxel.ChunkPos{X: 4, Y: -1}
	require.NoError(t, w.st.ApplyBatch([]voxel.BlockEdit{{Pos: p, Index: 9, Block: voxel.Stone}}))

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var b bytes.Buffer
	require.NoError(t, store.FetchExport(ctx, dir, &b))
	h, cs, err := backup.ReadAll(&b)
	require.NoError(t, err)
	assert.EqualValues(t, 7, h.Seed)
	assert.Equal(t, []backup.Chunk{{Pos: p, Overlay: voxel.Overlay{{Index: 9, Block: voxel.Stone}}}}, cs)

	require.NoError(t, w.Close())
	_, err = os.Lstat(filepath.Join(dir, store.SocketName))
	assert.ErrorIs(t, err, os.ErrNotExist)

	openStill(t, dir, Options{})
	err = store.FetchExport(ctx, dir, &b)
	assert.ErrorIs(t, err, store.ErrNoExporter, "off unless asked")
}
