// Package store keeps block edit overlays crash-safe in a bbolt database
// inside a data directory that also records the world seed and generator
// version. Generated terrain is never stored: only sparse edits.
//
// Layout of <dir>/edits.db:
//
//	bucket "meta":  "magic" → "citydrive-voxel-edits", "format" → uint32,
//	                "seed" → uint64, "generator" → uint32 (big-endian)
//	bucket "edits": 12-byte chunk key (X, Y, Z as big-endian int32 with the
//	                sign bit flipped) → voxel.Overlay encoding (3 bytes/edit)
//
// Crash safety: every Apply is one bbolt read-write transaction; bbolt
// writes the new pages, fsyncs, then writes and fsyncs the meta page that
// points at them, so a crash at any instant leaves either the old or the
// new tree. Apply returns only after that commit, so an acknowledged edit
// survives a crash. The database is created under a temporary name and
// renamed into place once initialised, so edits.db never exists
// half-created; a directory that holds anything else, or a file that is not
// our database, is refused with an error and left untouched.
package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	bolt "go.etcd.io/bbolt"

	"citydrive/voxel"
)

const (
	fileName   = "edits.db"
	tmpName    = fileName + ".creating"
	magic      = "citydrive-voxel-edits"
	format     = 1
	keySize    = 12
	lockWait   = time.Second // another process holding the database
	dirPerm    = 0o755
	filePerm   = 0o644
	appDirName = "citydrive"
)

var (
	bucketMeta  = []byte("meta")
	bucketEdits = []byte("edits")
	keyMagic    = []byte("magic")
	keyFormat   = []byte("format")
	keySeed     = []byte("seed")
	keyGen      = []byte("generator")
)

// Errors callers can test with errors.Is.
var (
	ErrForeign  = errors.New("voxel store: not a citydrive edit directory")
	ErrCorrupt  = errors.New("voxel store: database unreadable")
	ErrMismatch = errors.New("voxel store: data directory belongs to another world")
	ErrBadEdit  = errors.New("voxel store: invalid edit")
)

// Store is an open edit store. Safe for concurrent use (bbolt serialises
// writers; readers run in parallel).
type Store struct{ db *bolt.DB }

// DefaultDir is the default data directory: $XDG_DATA_HOME/citydrive, or
// ~/.local/share/citydrive.
func DefaultDir() (string, error) {
	if d := os.Getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, appDirName), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(home, ".local", "share", appDirName), nil
}

// Open opens (creating if needed) the store in dir for a world of seed
// made by generator version gen. A store made by one of the compatible
// versions (whose chunks differ from gen's only where no edit can have
// depended on it) is opened too, and re-stamped with gen.
func Open(dir string, seed uint64, gen uint32, compatible ...uint32) (*Store, error) {
	if err := os.MkdirAll(dir, dirPerm); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, fileName)
	st, err := os.Stat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		if err := create(dir, seed, gen); err != nil {
			return nil, err
		}
	case err != nil:
		return nil, err
	case !st.Mode().IsRegular() || st.Size() == 0:
		// bbolt would initialise an empty file: refuse instead.
		return nil, fmt.Errorf("%w: %s is not a database file", ErrCorrupt, path)
	}
	db, err := bolt.Open(path, filePerm, &bolt.Options{Timeout: lockWait})
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrCorrupt, path, err)
	}
	if err := check(db, path, seed, gen, compatible); err != nil {
		db.Close()
		return nil, err
	}
	return &Store{db: db}, nil
}

// create initialises a fresh database in an empty directory.
func create(dir string, seed uint64, gen uint32) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if e.Name() != tmpName { // our own leftover from a crash mid-create
			return fmt.Errorf("%w: %s holds %q but no %s", ErrForeign, dir, e.Name(), fileName)
		}
	}
	tmp := filepath.Join(dir, tmpName)
	if err := os.Remove(tmp); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	db, err := bolt.Open(tmp, filePerm, &bolt.Options{Timeout: lockWait})
	if err != nil {
		return err
	}
	err = db.Update(func(tx *bolt.Tx) error {
		m, err := tx.CreateBucket(bucketMeta)
		if err != nil {
			return err
		}
		if _, err := tx.CreateBucket(bucketEdits); err != nil {
			return err
		}
		return errors.Join(
			m.Put(keyMagic, []byte(magic)),
			m.Put(keyFormat, binary.BigEndian.AppendUint32(nil, format)),
			m.Put(keySeed, binary.BigEndian.AppendUint64(nil, seed)),
			m.Put(keyGen, binary.BigEndian.AppendUint32(nil, gen)))
	})
	if err = errors.Join(err, db.Close()); err != nil {
		return err
	}
	if err := os.Rename(tmp, filepath.Join(dir, fileName)); err != nil {
		return err
	}
	return syncDir(dir)
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	return errors.Join(d.Sync(), d.Close())
}

func check(db *bolt.DB, path string, seed uint64, gen uint32, compatible []uint32) error {
	if err := db.View(func(tx *bolt.Tx) error {
		m := tx.Bucket(bucketMeta)
		if m == nil || string(m.Get(keyMagic)) != magic || tx.Bucket(bucketEdits) == nil {
			return fmt.Errorf("%w: %s", ErrForeign, path)
		}
		f, s, g := m.Get(keyFormat), m.Get(keySeed), m.Get(keyGen)
		if len(f) != 4 || len(s) != 8 || len(g) != 4 {
			return fmt.Errorf("%w: %s: malformed metadata", ErrCorrupt, path)
		}
		if v := binary.BigEndian.Uint32(f); v != format {
			return fmt.Errorf("%w: %s has store format %d, want %d", ErrMismatch, path, v, format)
		}
		if v := binary.BigEndian.Uint64(s); v != seed {
			return fmt.Errorf("%w: %s was made for seed %d, not %d", ErrMismatch, path, v, seed)
		}
		if v := binary.BigEndian.Uint32(g); v != gen && !slices.Contains(compatible, v) {
			return fmt.Errorf("%w: %s was made by generator version %d, this is version %d", ErrMismatch, path, v, gen)
		}
		return nil
	}); err != nil {
		return err
	}
	return db.Update(func(tx *bolt.Tx) error {
		m := tx.Bucket(bucketMeta)
		if binary.BigEndian.Uint32(m.Get(keyGen)) == gen {
			return nil
		}
		var b [4]byte
		binary.BigEndian.PutUint32(b[:], gen)
		return m.Put(keyGen, b[:])
	})
}

// Key is the store key of chunk p: sign-flipped big-endian so keys sort by
// X, then Y, then Z numerically.
func Key(p voxel.ChunkPos) [keySize]byte {
	var k [keySize]byte
	binary.BigEndian.PutUint32(k[0:], uint32(p.X)^1<<31)
	binary.BigEndian.PutUint32(k[4:], uint32(p.Y)^1<<31)
	binary.BigEndian.PutUint32(k[8:], uint32(p.Z)^1<<31)
	return k
}

// Apply records that block idx of chunk p is now b. It returns after the
// edit is committed to disk.
func (s *Store) Apply(p voxel.ChunkPos, idx uint16, b voxel.Block) error {
	return s.ApplyBatch([]voxel.BlockEdit{{Pos: p, Index: idx, Block: b}})
}

// ApplyBatch records several edits in one bbolt transaction: one commit,
// one fsync (group commit). Edits apply in order, so a later edit of the
// same block wins. Either every edit is committed or none is: an invalid
// edit fails the whole batch with ErrBadEdit before anything is written.
// It returns only after the commit, so a caller may acknowledge every edit
// of the batch once it returned nil.
func (s *Store) ApplyBatch(edits []voxel.BlockEdit) error {
	for _, e := range edits {
		if int(e.Index) >= voxel.ChunkVolume || !e.Block.Valid() {
			return fmt.Errorf("%w: chunk %v index %d block %d", ErrBadEdit, e.Pos, e.Index, e.Block)
		}
	}
	if len(edits) == 0 {
		return nil
	}
	return s.db.Update(func(tx *bolt.Tx) error {
		bk := tx.Bucket(bucketEdits)
		// Merge per chunk first so a chunk edited n times is written once.
		merged := make(map[voxel.ChunkPos]voxel.Overlay, len(edits))
		var order []voxel.ChunkPos
		for _, e := range edits {
			o, ok := merged[e.Pos]
			if !ok {
				k := Key(e.Pos)
				var err error
				if o, err = voxel.DecodeOverlay(bk.Get(k[:])); err != nil {
					return fmt.Errorf("%w: chunk %v: %v", ErrCorrupt, e.Pos, err)
				}
				order = append(order, e.Pos)
			}
			merged[e.Pos] = o.With(e.Index, e.Block)
		}
		for _, p := range order {
			o := merged[p]
			k := Key(p)
			if err := bk.Put(k[:], o.AppendEncode(make([]byte, 0, len(o)*3))); err != nil {
				return err
			}
		}
		return nil
	})
}

// EditedChunks calls fn with every chunk that has edits, in key order (one
// read transaction; a server loads its in-memory index of edited chunks
// with it at start).
func (s *Store) EditedChunks(fn func(voxel.ChunkPos)) error {
	return s.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketEdits).ForEach(func(k, _ []byte) error {
			p, ok := posOfKey(k)
			if !ok {
				return fmt.Errorf("%w: edit key of %d bytes", ErrCorrupt, len(k))
			}
			fn(p)
			return nil
		})
	})
}

// posOfKey inverts Key.
func posOfKey(k []byte) (voxel.ChunkPos, bool) {
	if len(k) != keySize {
		return voxel.ChunkPos{}, false
	}
	return voxel.ChunkPos{
		X: int32(binary.BigEndian.Uint32(k[0:]) ^ 1<<31),
		Y: int32(binary.BigEndian.Uint32(k[4:]) ^ 1<<31),
		Z: int32(binary.BigEndian.Uint32(k[8:]) ^ 1<<31),
	}, true
}

// Overlay returns chunk p's edits (nil if it has none).
func (s *Store) Overlay(p voxel.ChunkPos) (voxel.Overlay, error) {
	k := Key(p)
	var o voxel.Overlay
	err := s.db.View(func(tx *bolt.Tx) error {
		v := tx.Bucket(bucketEdits).Get(k[:])
		if v == nil {
			return nil
		}
		var err error
		if o, err = voxel.DecodeOverlay(v); err != nil {
			return fmt.Errorf("%w: chunk %v: %v", ErrCorrupt, p, err)
		}
		return nil
	})
	return o, err
}

// Edited reports whether chunk p has any edits (false: it is the
// procedural default and a client can regenerate it from the seed).
func (s *Store) Edited(p voxel.ChunkPos) (bool, error) {
	k := Key(p)
	var ok bool
	err := s.db.View(func(tx *bolt.Tx) error {
		ok = tx.Bucket(bucketEdits).Get(k[:]) != nil
		return nil
	})
	return ok, err
}

// Close closes the database.
func (s *Store) Close() error { return s.db.Close() }
