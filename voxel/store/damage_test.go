package store

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/voxel"
)

const damageTrials = 300

// damagedStore makes a store with edits in several chunks, closes it and
// returns the database file's bytes.
func damagedStore(t *testing.T) []byte {
	t.Helper()
	dir := t.TempDir()
	s, err := Open(dir, testSeed, testGen)
	require.NoError(t, err)
	for k := range 2000 {
		e := cutEdit(k)
		_, err := s.ApplyEdits([]Edit{e})
		require.NoError(t, err)
	}
	require.NoError(t, s.Close())
	b, err := os.ReadFile(filepath.Join(dir, fileName))
	require.NoError(t, err)
	return b
}

// openDamaged opens a store whose database holds b: it never panics, and
// either refuses with an error naming the file and saying what to do, or
// opens a store whose every read answers (maybe with an error), without a
// panic.
func openDamaged(t *testing.T, b []byte) (opened bool) {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, fileName)
	require.NoError(t, os.WriteFile(path, b, filePerm))
	s, err := Open(dir, testSeed, testGen)
	if err != nil {
		assert.Contains(t, err.Error(), path)
		assert.Regexp(t, "restore it from a backup|move it away|another data directory", err.Error())
		return false
	}
	defer s.Close()
	var chunks []voxel.ChunkPos
	_ = s.EditedChunks(func(p voxel.ChunkPos) { chunks = append(chunks, p) })
	for _, p := range chunks {
		_, _ = s.Overlay(p)
	}
	_, _ = s.ApplyEdits([]Edit{cutEdit(5000)})
	return true
}

// TestDamagedDatabaseIsAClearErrorNeverAPanic: truncated anywhere, bytes
// flipped anywhere, or another program's file: Open refuses with an error
// that names the file and what to do, or (damage in a page nobody reads)
// opens; nothing panics.
func TestDamagedDatabaseIsAClearErrorNeverAPanic(t *testing.T) {
	good := damagedStore(t)
	r := rand.New(rand.NewPCG(uint64(os.Getpid()), 6))
	refused := 0
	for i := range damageTrials {
		b := append([]byte(nil), good...)
		switch i % 3 {
		case 0: // truncated
			b = b[:r.IntN(len(b))]
		case 1: // a few bytes flipped
			for range 1 + r.IntN(8) {
				b[r.IntN(len(b))] ^= byte(1 + r.IntN(255))
			}
		case 2: // a whole page overwritten
			page := 4096 * r.IntN(len(b)/4096)
			for j := page; j < page+4096 && j < len(b); j++ {
				b[j] = byte(r.Uint32())
			}
		}
		if !openDamaged(t, b) {
			refused++
		}
	}
	t.Logf("%d of %d damaged files refused at open, the others opened (damage where nothing reads)", refused, damageTrials)
	foreign := map[string][]byte{
		"sqlite": append([]byte("SQLite format 3\x00"), make([]byte, 8192)...),
		"text":   []byte("hello, this is not a database at all\n"),
		"zeros":  make([]byte, 16384),
	}
	for name, b := range foreign {
		assert.False(t, openDamaged(t, b), name)
	}
}
