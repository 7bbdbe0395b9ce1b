package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"

	bolt "go.etcd.io/bbolt"

	"citydrive/voxel"
	"citydrive/voxel/backup"
)

// ErrNotEmpty is Restore into a store that has edits: a restore never
// merges two worlds.
var ErrNotEmpty = errors.New("voxel store: the world already has edits")

// ErrNoWorld is OpenReadOnly on a directory without a store.
var ErrNoWorld = errors.New("voxel store: no world here")

// OpenReadOnly opens the store in dir for reading only, whatever its seed
// (World says which it is), under a shared file lock: readers share it, a
// server takes it exclusively. So while a server runs on dir this is
// ErrInUse at once; an export then asks the server (FetchExport).
func OpenReadOnly(dir string) (s *Store, err error) {
	path := filepath.Join(dir, fileName)
	switch st, err := os.Stat(path); {
	case errors.Is(err, os.ErrNotExist):
		return nil, fmt.Errorf("%w: %s does not exist", ErrNoWorld, path)
	case err != nil:
		return nil, describe(path, err)
	case !st.Mode().IsRegular() || st.Size() == 0:
		return nil, corrupt(path, "not a database file (empty, or not a regular file)")
	}
	if err := verifyFile(path); err != nil {
		return nil, err
	}
	defer guard(path, &err, debug.SetPanicOnFault(true))
	db, err := bolt.Open(path, filePerm, &bolt.Options{ReadOnly: true, Timeout: lockWait})
	switch {
	case errors.Is(err, bolt.ErrTimeout):
		return nil, fmt.Errorf("%w: %s: %v; %s", ErrInUse, path, err, fixInUse)
	case err != nil:
		return nil, corrupt(path, err)
	}
	s = &Store{db: db, path: path}
	if _, _, err := s.World(); err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

// World is the seed and generator version the store records.
func (s *Store) World() (seed uint64, gen uint32, err error) {
	defer guard(s.path, &err, debug.SetPanicOnFault(true))
	err = s.db.View(func(tx *bolt.Tx) error {
		seed, gen, err = s.meta(tx)
		return err
	})
	return seed, gen, err
}

// meta reads the world's seed and generator (check's rules, without its
// refusals of another world).
func (s *Store) meta(tx *bolt.Tx) (uint64, uint32, error) {
	m := tx.Bucket(bucketMeta)
	if m == nil || string(m.Get(keyMagic)) != magic || tx.Bucket(bucketEdits) == nil {
		return 0, 0, fmt.Errorf("%w: %s is a database of another program; %s", ErrForeign, s.path, fixForeign)
	}
	f, sd, g := m.Get(keyFormat), m.Get(keySeed), m.Get(keyGen)
	if len(f) != 4 || len(sd) != 8 || len(g) != 4 {
		return 0, 0, corrupt(s.path, "malformed metadata")
	}
	if v := binary.BigEndian.Uint32(f); v != format {
		return 0, 0, fmt.Errorf("%w: %s has store format %d, want %d", ErrMismatch, s.path, v, format)
	}
	return binary.BigEndian.Uint64(sd), binary.BigEndian.Uint32(g), nil
}

// Export writes a backup (package backup's format) of every edited chunk,
// its edits and its stamps, with the store's seed and generator, to w. It
// reads everything in one bbolt read transaction, so the backup is one
// committed state even while edits are being committed: bbolt's readers
// see the tree as of their start (the writer copies pages on write).
// Writing to w happens inside that transaction, so a slow w keeps it open
// (and the file grows meanwhile, as pages it holds cannot be reused).
func (s *Store) Export(w io.Writer) (h backup.Header, err error) {
	defer guard(s.path, &err, debug.SetPanicOnFault(true))
	err = s.db.View(func(tx *bolt.Tx) error {
		seed, gen, err := s.meta(tx)
		if err != nil {
			return err
		}
		bk, bs := tx.Bucket(bucketEdits), tx.Bucket(bucketStamps) // bs is nil in a store older than stamps
		chunks := func(yield func(backup.Chunk) error) error {
			// Key order is X, Y, Z numerically: the backup's order.
			return bk.ForEach(func(k, v []byte) error {
				p, ok := posOfKey(k)
				if !ok {
					return corrupt(s.path, fmt.Sprintf("edit key of %d bytes", len(k)))
				}
				o, err := voxel.DecodeOverlay(v)
				if err != nil {
					return corrupt(s.path, fmt.Sprintf("chunk %v: %v", p, err))
				}
				if len(o) == 0 {
					return nil // no edits: the procedural chunk, nothing to keep
				}
				c := backup.Chunk{Pos: p, Overlay: o}
				if bs != nil {
					st, err := decodeStamps(bs.Get(k))
					if err != nil {
						return corrupt(s.path, fmt.Sprintf("stamps of chunk %v: %v", p, err))
					}
					for _, x := range st {
						c.Stamps = append(c.Stamps, backup.Stamp{Player: x.player, Seq: x.seq})
					}
				}
				return yield(c)
			})
		}
		h, err = backup.Encode(w, seed, gen, chunks)
		return err
	})
	return h, describe(s.path, err)
}

// Restore writes every chunk of the backup r into the store. It refuses a
// backup of another seed, or of a generator version the store was not
// opened for (ErrMismatch), and a store that has any edit (ErrNotEmpty).
// Everything is one transaction, committed only once r has returned
// io.EOF, which it does only after its counts and checksum agree: a
// damaged or truncated backup leaves the store as it was.
func (s *Store) Restore(r *backup.Reader) (err error) {
	defer guard(s.path, &err, debug.SetPanicOnFault(true))
	h := r.Header()
	err = s.db.Update(func(tx *bolt.Tx) error {
		seed, gen, err := s.meta(tx)
		if err != nil {
			return err
		}
		switch {
		case h.Seed != seed:
			return fmt.Errorf("%w: the backup is of seed %d's world, %s is seed %d's", ErrMismatch, h.Seed, s.path, seed)
		case h.Generator != gen && !slices.Contains(s.compatible, h.Generator):
			return fmt.Errorf("%w: the backup's edits belong to generator version %d, %s to version %d", ErrMismatch, h.Generator, s.path, gen)
		}
		bk := tx.Bucket(bucketEdits)
		bs, err := tx.CreateBucketIfNotExists(bucketStamps)
		if err != nil {
			return err
		}
		if k, _ := bk.Cursor().First(); k != nil {
			return fmt.Errorf("%w (%s)", ErrNotEmpty, s.path)
		}
		for {
			c, err := r.Next()
			if errors.Is(err, io.EOF) {
				return nil // the whole backup, checked: commit
			}
			if err != nil {
				return err
			}
			k := Key(c.Pos)
			if err := bk.Put(k[:], c.Overlay.AppendEncode(make([]byte, 0, len(c.Overlay)*3))); err != nil {
				return err
			}
			if len(c.Stamps) == 0 {
				continue
			}
			st := make(stamps, len(c.Stamps))
			for i, x := range c.Stamps {
				st[i] = stamp{x.Player, x.Seq}
			}
			if err := bs.Put(k[:], st.appendEncode(nil)); err != nil {
				return err
			}
		}
	})
	return describe(s.path, err)
}
