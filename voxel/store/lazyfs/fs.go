// Package lazyfs is a FUSE file system, kept in memory, that loses power
// on command: every write not yet made durable by an fsync is dropped (as
// Jepsen's LazyFS does), or only some of them are kept, in any order, as a
// disk's write cache may leave them. The store's power-cut, full-disk and
// read-only tests run the edit store on it.
//
// What is durable, and when:
//
//   - a file's contents as of its last fsync or fdatasync (a truncation
//     is a write like any other);
//   - the directory's names as of its last fsync (creating, renaming or
//     removing a file is not durable before the directory is synced, the
//     strictest reading of POSIX, which ext4 and XFS mostly exceed).
//
// Once the power is off every change fails with EIO, while reads go on
// answering from the lost cache: the process under test plays the
// machine's last instants (a real one dies with its memory), and a read
// failing under bbolt's mmap would be a SIGBUS, not a result.
//
// The file system is one flat directory. It is served by a helper process
// (the test binary run again, see RunIfHelper): a process must not serve
// a FUSE mount that it also reads through mmap, as bbolt does, or a
// garbage collection that stops the world while one of its threads waits
// on a page fault served by another deadlocks.
package lazyfs

import (
	"context"
	"math/rand/v2"
	"sync"
	"syscall"
	"time"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
)

const (
	sector   = 512 // what a torn write keeps is whole sectors
	dirMode  = syscall.S_IFDIR | 0o755
	fileMode = syscall.S_IFREG | 0o644
)

// state is the whole file system: the names and files now, the names as
// of the last directory fsync, and the power switches.
type state struct {
	mu      sync.Mutex
	names   map[string]*file // what the directory holds now
	durable map[string]*file // what it holds after a power cut
	cut     bool             // power is off: every change fails
	cutAt   int              // mutating operations left before the cut (0: none armed)
	rng     *rand.Rand       // picks what a cut keeps
	full    bool             // every write fails with ENOSPC
	ro      bool             // every change fails with EROFS
	ops     int              // mutating operations since the start
	cutOp   int              // the operation the power went off in
	cuts    int
}

// file is one file's contents now and after a power cut.
type file struct {
	cur, durable []byte
	pending      []write // since the last fsync, in order
}

// write is one change since the last fsync: data at off, or (trunc) a
// new size.
type write struct {
	off   int64
	data  []byte
	trunc bool
}

func apply(b []byte, w write) []byte {
	if w.trunc {
		if w.off <= int64(len(b)) {
			return b[:w.off]
		}
		return append(b, make([]byte, w.off-int64(len(b)))...)
	}
	if end := w.off + int64(len(w.data)); end > int64(len(b)) {
		b = append(b, make([]byte, end-int64(len(b)))...)
	}
	copy(b[w.off:], w.data)
	return b
}

func newState() *state {
	return &state{names: map[string]*file{}, durable: map[string]*file{}, rng: rand.New(rand.NewPCG(1, 2))}
}

// mutate is called, under mu, before every operation that changes
// something; it fails it when the power is off (or goes off now), the
// file system is read-only, or (grows) the disk is full.
func (s *state) mutate(grows bool) syscall.Errno {
	s.ops++
	if s.cut {
		return syscall.EIO
	}
	if s.cutAt > 0 {
		if s.cutAt--; s.cutAt == 0 {
			s.cutOp = s.ops
			s.powerCut()
			return syscall.EIO
		}
	}
	if s.ro {
		return syscall.EROFS
	}
	if grows && s.full {
		return syscall.ENOSPC
	}
	return 0
}

// powerCut turns the power off: half the cuts keep no pending write (the
// page cache lost), the others a random subset of them, each write whole
// or torn at a sector, as a disk that reorders its cache may leave them.
func (s *state) powerCut() {
	s.cut = true
	s.cuts++
	keepSome := s.rng.IntN(2) == 0
	files := map[*file]struct{}{}
	for _, f := range s.names {
		files[f] = struct{}{}
	}
	for _, f := range s.durable {
		files[f] = struct{}{}
	}
	for f := range files {
		for _, w := range f.pending {
			if !keepSome || s.rng.IntN(2) == 0 {
				continue
			}
			if !w.trunc && len(w.data) > sector && s.rng.IntN(4) == 0 {
				w.data = w.data[:sector*s.rng.IntN(len(w.data)/sector+1)]
			}
			f.durable = apply(f.durable, w)
		}
		f.pending = nil
	}
}

// restart brings the power back: the names and contents are what was
// durable.
func (s *state) restart() {
	s.names = make(map[string]*file, len(s.durable))
	for n, f := range s.durable {
		f.cur, f.pending = append([]byte(nil), f.durable...), nil
		s.names[n] = f
	}
	s.cut = false
}

// root is the directory.
type root struct {
	fs.Inode
	s *state
}

var (
	_ fs.NodeLookuper  = (*root)(nil)
	_ fs.NodeReaddirer = (*root)(nil)
	_ fs.NodeCreater   = (*root)(nil)
	_ fs.NodeUnlinker  = (*root)(nil)
	_ fs.NodeRenamer   = (*root)(nil)
	_ fs.NodeFsyncer   = (*root)(nil)
	_ fs.NodeGetattrer = (*root)(nil)
	_ fs.NodeStatfser  = (*root)(nil)
	_ fs.NodeMkdirer   = (*root)(nil)
)

// Mkdir fails: the file system is one flat directory (with EROFS when
// read-only, as a read-only disk answers).
func (r *root) Mkdir(ctx context.Context, name string, mode uint32, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	if errno := r.s.mutate(false); errno != 0 {
		return nil, errno
	}
	return nil, syscall.ENOTSUP
}

func (r *root) Getattr(ctx context.Context, _ fs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	out.Mode = dirMode
	return 0
}

func (r *root) Statfs(ctx context.Context, out *fuse.StatfsOut) syscall.Errno {
	out.Bsize, out.Frsize, out.NameLen = 4096, 4096, 255
	out.Blocks, out.Bfree, out.Bavail = 1<<20, 1<<19, 1<<19
	r.s.mu.Lock()
	if r.s.full {
		out.Bfree, out.Bavail = 0, 0
	}
	r.s.mu.Unlock()
	return 0
}

func (r *root) node(ctx context.Context, f *file) *fs.Inode {
	return r.NewInode(ctx, &node{s: r.s, f: f}, fs.StableAttr{Mode: syscall.S_IFREG})
}

func (r *root) Lookup(ctx context.Context, name string, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	f, ok := r.s.names[name]
	if !ok {
		return nil, syscall.ENOENT
	}
	out.Mode, out.Size = fileMode, uint64(len(f.cur))
	if ch := r.GetChild(name); ch != nil {
		if n, ok := ch.Operations().(*node); ok && n.f == f {
			return ch, 0
		}
	}
	return r.node(ctx, f), 0
}

func (r *root) Readdir(ctx context.Context) (fs.DirStream, syscall.Errno) {
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	es := make([]fuse.DirEntry, 0, len(r.s.names))
	for n := range r.s.names {
		es = append(es, fuse.DirEntry{Name: n, Mode: syscall.S_IFREG})
	}
	return fs.NewListDirStream(es), 0
}

func (r *root) Create(ctx context.Context, name string, flags, mode uint32, out *fuse.EntryOut) (*fs.Inode, fs.FileHandle, uint32, syscall.Errno) {
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	if errno := r.s.mutate(true); errno != 0 {
		return nil, nil, 0, errno
	}
	f := &file{}
	r.s.names[name] = f
	out.Mode = fileMode
	return r.node(ctx, f), nil, 0, 0
}

func (r *root) Unlink(ctx context.Context, name string) syscall.Errno {
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	if errno := r.s.mutate(false); errno != 0 {
		return errno
	}
	if _, ok := r.s.names[name]; !ok {
		return syscall.ENOENT
	}
	delete(r.s.names, name)
	return 0
}

func (r *root) Rename(ctx context.Context, name string, newParent fs.InodeEmbedder, newName string, flags uint32) syscall.Errno {
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	if errno := r.s.mutate(false); errno != 0 {
		return errno
	}
	if flags != 0 {
		return syscall.EINVAL // no RENAME_NOREPLACE / EXCHANGE: nothing here uses them
	}
	f, ok := r.s.names[name]
	if !ok {
		return syscall.ENOENT
	}
	delete(r.s.names, name)
	r.s.names[newName] = f
	return 0
}

// Fsync of the directory makes its names durable.
func (r *root) Fsync(ctx context.Context, _ fs.FileHandle, flags uint32) syscall.Errno {
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	if errno := r.s.mutate(false); errno != 0 && errno != syscall.EROFS {
		return errno
	}
	clear(r.s.durable)
	for n, f := range r.s.names {
		r.s.durable[n] = f
	}
	return 0
}

// node is one file.
type node struct {
	fs.Inode
	s *state
	f *file
}

var (
	_ fs.NodeOpener    = (*node)(nil)
	_ fs.NodeReader    = (*node)(nil)
	_ fs.NodeWriter    = (*node)(nil)
	_ fs.NodeFsyncer   = (*node)(nil)
	_ fs.NodeGetattrer = (*node)(nil)
	_ fs.NodeSetattrer = (*node)(nil)
	_ fs.NodeFlusher   = (*node)(nil)
)

func (n *node) Open(ctx context.Context, flags uint32) (fs.FileHandle, uint32, syscall.Errno) {
	n.s.mu.Lock()
	defer n.s.mu.Unlock()
	if flags&(syscall.O_WRONLY|syscall.O_RDWR|syscall.O_TRUNC) != 0 && n.s.ro {
		return nil, 0, syscall.EROFS
	}
	if flags&syscall.O_TRUNC != 0 {
		if errno := n.s.mutate(false); errno != 0 {
			return nil, 0, errno
		}
		n.change(write{off: 0, trunc: true})
	}
	return nil, 0, 0
}

// change applies w now and keeps it pending until the next fsync.
func (n *node) change(w write) {
	if !w.trunc {
		w.data = append([]byte(nil), w.data...) // FUSE reuses the buffer
	}
	n.f.cur = apply(n.f.cur, w)
	n.f.pending = append(n.f.pending, w)
}

func (n *node) Read(ctx context.Context, _ fs.FileHandle, dest []byte, off int64) (fuse.ReadResult, syscall.Errno) {
	n.s.mu.Lock()
	defer n.s.mu.Unlock()
	if off >= int64(len(n.f.cur)) {
		return fuse.ReadResultData(nil), 0
	}
	m := copy(dest, n.f.cur[off:])
	return fuse.ReadResultData(dest[:m]), 0
}

func (n *node) Write(ctx context.Context, _ fs.FileHandle, data []byte, off int64) (uint32, syscall.Errno) {
	n.s.mu.Lock()
	defer n.s.mu.Unlock()
	if errno := n.s.mutate(true); errno != 0 {
		if n.s.cut && n.s.cutOp == n.s.ops && n.s.rng.IntN(2) == 0 {
			// The write the power went off in may be partly on disk.
			w := write{off: off, data: data[:sector*n.s.rng.IntN(len(data)/sector+1)]}
			n.f.durable = apply(n.f.durable, w)
		}
		return 0, errno
	}
	n.change(write{off: off, data: data})
	return uint32(len(data)), 0
}

// Fsync (and fdatasync) makes the file's contents durable.
func (n *node) Fsync(ctx context.Context, _ fs.FileHandle, flags uint32) syscall.Errno {
	n.s.mu.Lock()
	defer n.s.mu.Unlock()
	if errno := n.s.mutate(false); errno != 0 && errno != syscall.EROFS {
		return errno
	}
	for _, w := range n.f.pending {
		n.f.durable = apply(n.f.durable, w)
	}
	n.f.pending = nil
	return 0
}

func (n *node) Flush(ctx context.Context, _ fs.FileHandle) syscall.Errno { return 0 }

func (n *node) Getattr(ctx context.Context, _ fs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	n.s.mu.Lock()
	defer n.s.mu.Unlock()
	out.Mode, out.Size = fileMode, uint64(len(n.f.cur))
	out.Blocks = (out.Size + sector - 1) / sector
	return 0
}

func (n *node) Setattr(ctx context.Context, _ fs.FileHandle, in *fuse.SetAttrIn, out *fuse.AttrOut) syscall.Errno {
	n.s.mu.Lock()
	defer n.s.mu.Unlock()
	if sz, ok := in.GetSize(); ok {
		if errno := n.s.mutate(sz > uint64(len(n.f.cur))); errno != 0 {
			return errno
		}
		n.change(write{off: int64(sz), trunc: true})
	}
	out.Mode, out.Size = fileMode, uint64(len(n.f.cur))
	return 0
}

// mount serves s at dir. Entries and attributes are not cached: every
// size the kernel uses comes from here.
func mount(dir string, s *state) (*fuse.Server, error) {
	zero := time.Duration(0)
	return fs.Mount(dir, &root{s: s}, &fs.Options{
		EntryTimeout: &zero, AttrTimeout: &zero, NegativeTimeout: &zero,
		MountOptions: fuse.MountOptions{
			FsName: "lazyfs", Name: "lazyfs", DirectMount: true, DisableXAttrs: true,
		},
	})
}
