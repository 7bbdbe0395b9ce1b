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
//	bucket "stamps": chunk key → count u8, then per player who edited the
//	                chunk lately (at most MaxStamps, oldest first) its key
//	                u64 and newest applied sequence u32: exactly-once edits
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
	"runtime/debug"
	"slices"
	"syscall"
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
	// bucketStamps is added by this version to stores made before it (at
	// open): an older binary ignores it.
	bucketStamps = []byte("stamps")
	keyMagic     = []byte("magic")
	keyFormat    = []byte("format")
	keySeed      = []byte("seed")
	keyGen       = []byte("generator")
)

// Errors callers can test with errors.Is. Each comes wrapped with the
// file or directory it is about and what an operator can do.
var (
	ErrForeign    = errors.New("voxel store: not a citydrive edit directory")
	ErrCorrupt    = errors.New("voxel store: database unreadable")
	ErrMismatch   = errors.New("voxel store: data directory belongs to another world")
	ErrBadEdit    = errors.New("voxel store: invalid edit")
	ErrUnwritable = errors.New("voxel store: data directory not writable")
	ErrInUse      = errors.New("voxel store: database in use")
	ErrDiskFull   = errors.New("voxel store: disk full")
)

// What an operator can do, said once each.
const (
	fixCorrupt    = "the file is damaged: restore it from a backup, or move it away to start this world again with no edits"
	fixForeign    = "point -data at another data directory, or move the file away"
	fixUnwritable = "make it writable by the user running the server, or choose another data directory with -data"
	fixInUse      = "another server is running on this data directory: stop it, or choose another data directory with -data"
	fixDiskFull   = "free space on its volume: edits are refused until then, and nothing already saved is lost"
	fixMismatch   = "start the server with that world's seed, or choose another data directory with -data"
)

// describe wraps a failed file operation on path with the error an
// operator can act on, when the cause is one (else err as it is).
func describe(path string, err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, syscall.EROFS), errors.Is(err, os.ErrPermission):
		return fmt.Errorf("%w: %s: %v; %s", ErrUnwritable, path, err, fixUnwritable)
	case errors.Is(err, syscall.ENOSPC), errors.Is(err, syscall.EDQUOT):
		return fmt.Errorf("%w: %s: %v; %s", ErrDiskFull, path, err, fixDiskFull)
	}
	return err
}

func corrupt(path string, detail any) error {
	return fmt.Errorf("%w: %s: %v; %s", ErrCorrupt, path, detail, fixCorrupt)
}

// guard turns a panic inside bbolt into ErrCorrupt and puts back the
// goroutine's panic-on-fault setting (old). bbolt asserts its page
// invariants with panics, and reads its file through mmap, where a page
// past the end of a truncated file is a SIGBUS; with panic-on-fault set
// (debug.SetPanicOnFault(true), as its argument when deferred) that is a
// panic too, so a damaged file is an error instead of a crashed server.
// bbolt's View and Update roll the transaction back as a panic passes.
func guard(path string, err *error, old bool) {
	debug.SetPanicOnFault(old)
	if r := recover(); r != nil {
		*err = corrupt(path, r)
	}
}

// Store is an open edit store. Safe for concurrent use (bbolt serialises
// writers; readers run in parallel).
type Store struct {
	db         *bolt.DB
	path       string   // named in errors
	compatible []uint32 // generator versions Open took besides its own (Restore takes them too)
}

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
		return nil, describe(dir, err)
	}
	path := filepath.Join(dir, fileName)
	st, err := os.Stat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		if err := create(dir, seed, gen); err != nil {
			if d := describe(dir, err); d != err || errors.Is(err, ErrForeign) {
				return nil, d
			}
			return nil, fmt.Errorf("voxel store: creating %s: %w", path, err)
		}
	case err != nil:
		return nil, err
	case !st.Mode().IsRegular() || st.Size() == 0:
		// bbolt would initialise an empty file: refuse instead.
		return nil, corrupt(path, "not a database file (empty, or not a regular file)")
	}
	db, err := openDB(path)
	if err != nil {
		return nil, err
	}
	if err := check(db, path, seed, gen, compatible); err != nil {
		db.Close()
		return nil, err
	}
	return &Store{db: db, path: path, compatible: compatible}, nil
}

// openDB checks the page structure of the bbolt file at path
// (verifyPages), so a damaged file is refused at start with a clear error
// instead of failing, panicking or faulting when some later read reaches
// the damage, then opens it. (The check reads the tree: milliseconds for
// the megabytes a world's edits take.)
func openDB(path string) (db *bolt.DB, err error) {
	if err := verifyFile(path); err != nil {
		return nil, err
	}
	defer guard(path, &err, debug.SetPanicOnFault(true))
	db, err = bolt.Open(path, filePerm, &bolt.Options{Timeout: lockWait})
	switch {
	case errors.Is(err, bolt.ErrTimeout):
		return nil, fmt.Errorf("%w: %s: %v; %s", ErrInUse, path, err, fixInUse)
	case errors.Is(err, syscall.EROFS), errors.Is(err, os.ErrPermission):
		return nil, describe(path, err)
	case err != nil:
		return nil, corrupt(path, err)
	}
	return db, nil
}

// verifyFile runs verifyPages on path under a shared lock, so a file
// another server is writing is reported in use, not damaged.
func verifyFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return describe(path, err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB); err != nil {
		return fmt.Errorf("%w: %s: %v; %s", ErrInUse, path, err, fixInUse)
	}
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if err := verifyPages(f, st.Size()); err != nil {
		return corrupt(path, err)
	}
	return nil
}

// create initialises a fresh database in an empty directory.
func create(dir string, seed uint64, gen uint32) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if e.Name() != tmpName && !exportLeftover(e.Name()) { // our own leftovers from a crash
			return fmt.Errorf("%w: %s holds %q but no %s; choose an empty directory, or one of citydrive's, with -data", ErrForeign, dir, e.Name(), fileName)
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
		if _, err := tx.CreateBucket(bucketStamps); err != nil {
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

func check(db *bolt.DB, path string, seed uint64, gen uint32, compatible []uint32) (err error) {
	defer guard(path, &err, debug.SetPanicOnFault(true))
	update := false
	if err := db.View(func(tx *bolt.Tx) error {
		m := tx.Bucket(bucketMeta)
		if m == nil || string(m.Get(keyMagic)) != magic || tx.Bucket(bucketEdits) == nil {
			return fmt.Errorf("%w: %s is a database of another program; %s", ErrForeign, path, fixForeign)
		}
		f, s, g := m.Get(keyFormat), m.Get(keySeed), m.Get(keyGen)
		if len(f) != 4 || len(s) != 8 || len(g) != 4 {
			return corrupt(path, "malformed metadata")
		}
		if v := binary.BigEndian.Uint32(f); v != format {
			return fmt.Errorf("%w: %s has store format %d, want %d; %s", ErrMismatch, path, v, format, fixMismatch)
		}
		if v := binary.BigEndian.Uint64(s); v != seed {
			return fmt.Errorf("%w: %s was made for seed %d, not %d; %s", ErrMismatch, path, v, seed, fixMismatch)
		}
		v := binary.BigEndian.Uint32(g)
		if v != gen && !slices.Contains(compatible, v) {
			return fmt.Errorf("%w: %s was made by generator version %d, this is version %d; %s", ErrMismatch, path, v, gen, fixMismatch)
		}
		// Written only when something changes, so a store on a full
		// disk still opens and serves its edits.
		update = v != gen || tx.Bucket(bucketStamps) == nil
		return nil
	}); err != nil || !update {
		return err
	}
	return describe(path, db.Update(func(tx *bolt.Tx) error {
		if _, err := tx.CreateBucketIfNotExists(bucketStamps); err != nil {
			return err
		}
		var b [4]byte
		binary.BigEndian.PutUint32(b[:], gen)
		return tx.Bucket(bucketMeta).Put(keyGen, b[:])
	}))
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
	once := make([]Edit, len(edits))
	for i, e := range edits {
		once[i] = Edit{BlockEdit: e}
	}
	_, err := s.ApplyEdits(once)
	return err
}

// Edit is a block edit and the request that asked for it: the player's key
// (stable across reconnects and restarts; 0 is anonymous and never
// deduplicated) and that player's sequence number.
type Edit struct {
	voxel.BlockEdit
	Player uint64
	Seq    uint32
}

// ApplyEdits is ApplyBatch applying each request at most once. Every chunk
// remembers, per player who edited it lately (at most MaxStamps), the
// newest sequence applied there, written in the same transaction as the
// chunk's edits; an edit whose sequence is not newer than its player's
// stamp on that chunk is a retry (a replay, or a resend after a reconnect
// or a restart) and is skipped. dup[i] reports that edits[i] was skipped,
// so the caller acknowledges it without applying or announcing it again.
// A client's edits of one chunk reach the store in sequence order (one
// ordered stream, one committer), so an older sequence than the stamp was
// answered already.
func (s *Store) ApplyEdits(edits []Edit) (dup []bool, err error) {
	defer guard(s.path, &err, debug.SetPanicOnFault(true))
	for _, e := range edits {
		if err := e.Check(); err != nil {
			return nil, fmt.Errorf("%w: chunk %v: %w", ErrBadEdit, e.Pos, err)
		}
	}
	if len(edits) == 0 {
		return nil, nil
	}
	dup = make([]bool, len(edits))
	err = s.db.Update(func(tx *bolt.Tx) error {
		bk, bs := tx.Bucket(bucketEdits), tx.Bucket(bucketStamps)
		// Merge per chunk first so a chunk edited n times is written once.
		type chunk struct {
			o       voxel.Overlay
			st      stamps
			touched bool
		}
		merged := make(map[voxel.ChunkPos]*chunk, len(edits))
		var order []voxel.ChunkPos
		for i, e := range edits {
			c, ok := merged[e.Pos]
			if !ok {
				k := Key(e.Pos)
				o, err := voxel.DecodeOverlay(bk.Get(k[:]))
				if err != nil {
					return corrupt(s.path, fmt.Sprintf("chunk %v: %v", e.Pos, err))
				}
				st, err := decodeStamps(bs.Get(k[:]))
				if err != nil {
					return corrupt(s.path, fmt.Sprintf("stamps of chunk %v: %v", e.Pos, err))
				}
				c = &chunk{o: o, st: st}
				merged[e.Pos] = c
				order = append(order, e.Pos)
			}
			if !c.st.stamp(e.Player, e.Seq) {
				dup[i] = true
				continue
			}
			c.o, c.touched = c.o.With(e.Index, e.Block), true
		}
		for _, p := range order {
			c := merged[p]
			if !c.touched {
				continue
			}
			k := Key(p)
			if err := bk.Put(k[:], c.o.AppendEncode(make([]byte, 0, len(c.o)*3))); err != nil {
				return err
			}
			if len(c.st) > 0 {
				if err := bs.Put(k[:], c.st.appendEncode(nil)); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, describe(s.path, err)
	}
	return dup, nil
}

// MaxStamps bounds the players remembered per chunk (as the cluster's
// chunk values do): enough for everyone editing one chunk while a client
// reconnects and resends.
const MaxStamps = 32

const stampSize = 12 // player u64, seq u32

// stamps is a chunk's players and their newest applied sequence, oldest
// first.
type stamps []stamp

type stamp struct {
	player uint64
	seq    uint32
}

// seqNewer is serial-number order (wraps after 2^31 edits of a player),
// the order netsync/wire.SeqNewer defines for the wire.
func seqNewer(a, b uint32) bool { return int32(a-b) > 0 }

// stamp records (player, seq) as applied and reports true, or false if
// that player's stamp is seq or newer (a retry). Player 0 is never
// stamped.
func (st *stamps) stamp(player uint64, seq uint32) bool {
	if player == 0 {
		return true
	}
	s := *st
	for i, x := range s {
		if x.player != player {
			continue
		}
		if !seqNewer(seq, x.seq) {
			return false
		}
		s = append(s[:i], s[i+1:]...) // re-added at the end, newest
		break
	}
	if len(s) == MaxStamps {
		s = append(s[:0], s[1:]...)
	}
	*st = append(s, stamp{player, seq})
	return true
}

func (st stamps) appendEncode(dst []byte) []byte {
	dst = append(dst, byte(len(st)))
	for _, s := range st {
		dst = binary.BigEndian.AppendUint64(dst, s.player)
		dst = binary.BigEndian.AppendUint32(dst, s.seq)
	}
	return dst
}

// decodeStamps parses a stamps value, its length checked before anything
// is allocated (nil: none yet).
func decodeStamps(b []byte) (stamps, error) {
	if b == nil {
		return nil, nil
	}
	if len(b) < 1 || int(b[0]) > MaxStamps || len(b) != 1+int(b[0])*stampSize {
		return nil, fmt.Errorf("stamps value of %d bytes", len(b))
	}
	st := make(stamps, b[0])
	for i := range st {
		r := b[1+i*stampSize:]
		st[i] = stamp{binary.BigEndian.Uint64(r), binary.BigEndian.Uint32(r[8:])}
	}
	return st, nil
}

// EditedChunks calls fn with every chunk that has edits, in key order (one
// read transaction; a server loads its in-memory index of edited chunks
// with it at start).
func (s *Store) EditedChunks(fn func(voxel.ChunkPos)) (err error) {
	defer guard(s.path, &err, debug.SetPanicOnFault(true))
	return s.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketEdits).ForEach(func(k, _ []byte) error {
			p, ok := posOfKey(k)
			if !ok {
				return corrupt(s.path, fmt.Sprintf("edit key of %d bytes", len(k)))
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
func (s *Store) Overlay(p voxel.ChunkPos) (o voxel.Overlay, err error) {
	defer guard(s.path, &err, debug.SetPanicOnFault(true))
	k := Key(p)
	err = s.db.View(func(tx *bolt.Tx) error {
		v := tx.Bucket(bucketEdits).Get(k[:])
		if v == nil {
			return nil
		}
		var err error
		if o, err = voxel.DecodeOverlay(v); err != nil {
			return corrupt(s.path, fmt.Sprintf("chunk %v: %v", p, err))
		}
		return nil
	})
	return o, err
}

// Edited reports whether chunk p has any edits (false: it is the
// procedural default and a client can regenerate it from the seed).
func (s *Store) Edited(p voxel.ChunkPos) (ok bool, err error) {
	defer guard(s.path, &err, debug.SetPanicOnFault(true))
	k := Key(p)
	err = s.db.View(func(tx *bolt.Tx) error {
		ok = tx.Bucket(bucketEdits).Get(k[:]) != nil
		return nil
	})
	return ok, err
}

// Close closes the database.
func (s *Store) Close() error { return s.db.Close() }
