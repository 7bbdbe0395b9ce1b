package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
)

// verifyPages checks the page structure of the bbolt file at path before
// bbolt maps it: bbolt trusts its pages (it was built for files it wrote
// and fsynced), so a damaged one makes it panic, fault on a page past the
// end of a truncated file, or loop for ever on a branch that points back
// at itself. This walks the tree from the newest valid meta page as bbolt
// would, each page read once, every element's key and value bounded by
// its page, and checks the free list against the pages in use (bbolt's
// own tx.Check does that, but on a goroutine of its own, where a damaged
// page would crash the process instead of returning an error).
//
// The layout is bbolt's file format, version 2 (go.etcd.io/bbolt
// internal/common), little-endian on every platform Go's bbolt runs on.
func verifyPages(f *os.File, size int64) error {
	m, err := newestMeta(f, size)
	if err != nil {
		return err
	}
	if m.hwm < 2 || m.hwm > uint64(size)/uint64(m.pageSize) {
		return fmt.Errorf("truncated: %d bytes, the database needs %d pages of %d", size, m.hwm, m.pageSize)
	}
	v := &pageWalk{f: f, m: m, used: map[uint64]bool{0: true, 1: true}}
	if err := v.bucket(m.root, nil, 0); err != nil {
		return err
	}
	if m.freelist != noFreelist {
		return v.freelist(m.freelist)
	}
	return nil
}

const (
	metaMagic      = 0xED0CDAED
	metaVersion    = 2
	pageHeader     = 16 // id u64, flags u16, count u16, overflow u32
	elementSize    = 16 // branch: pos, ksize, pgid; leaf: flags, pos, ksize, vsize
	metaSize       = 56 // up to the checksum, which covers it
	bucketHeader   = 16 // root pgid, sequence
	flagBranch     = 0x01
	flagLeaf       = 0x02
	flagFreelist   = 0x10
	flagBucketLeaf = 0x01
	noFreelist     = ^uint64(0)
	maxPageSize    = 64 << 10
	minPageSize    = 1 << 10
	maxDepth       = 64 // a B+tree of a few levels; deeper is a loop
)

var le = binary.LittleEndian

type meta struct {
	pageSize                  uint32
	root, freelist, hwm, txid uint64
}

// readMeta parses the meta page at off, or reports why it is not one.
func readMeta(f *os.File, off int64) (meta, error) {
	var b [pageHeader + metaSize + 8]byte
	if _, err := f.ReadAt(b[:], off); err != nil {
		return meta{}, err
	}
	d := b[pageHeader:]
	h := fnv.New64a()
	h.Write(d[:metaSize])
	switch {
	case le.Uint32(d) != metaMagic:
		return meta{}, errors.New("no bbolt meta page")
	case le.Uint32(d[4:]) != metaVersion:
		return meta{}, fmt.Errorf("bbolt format version %d", le.Uint32(d[4:]))
	case le.Uint64(d[metaSize:]) != h.Sum64():
		return meta{}, errors.New("meta page checksum mismatch")
	}
	m := meta{pageSize: le.Uint32(d[8:]), root: le.Uint64(d[16:]), freelist: le.Uint64(d[32:]),
		hwm: le.Uint64(d[40:]), txid: le.Uint64(d[48:])}
	if m.pageSize < minPageSize || m.pageSize > maxPageSize || m.pageSize&(m.pageSize-1) != 0 {
		return meta{}, fmt.Errorf("page size %d", m.pageSize)
	}
	return m, nil
}

// newestMeta is the meta page bbolt would use: of the two, the valid one
// with the higher transaction id (a power cut can tear the one being
// written, and bbolt falls back to the other).
func newestMeta(f *os.File, size int64) (meta, error) {
	m0, err0 := readMeta(f, 0)
	var m1 meta
	err1 := err0
	if err0 == nil {
		m1, err1 = readMeta(f, int64(m0.pageSize))
	} else {
		for ps := int64(minPageSize); ps <= maxPageSize && ps < size; ps *= 2 {
			if m1, err1 = readMeta(f, ps); err1 == nil && int64(m1.pageSize) == ps {
				break
			}
		}
	}
	switch {
	case err0 != nil && err1 != nil:
		return meta{}, fmt.Errorf("neither meta page is valid: %v; %v", err0, err1)
	case err0 != nil:
		return m1, nil
	case err1 != nil || m1.pageSize != m0.pageSize || m0.txid >= m1.txid:
		return m0, nil
	}
	return m1, nil
}

type pageWalk struct {
	f    *os.File
	m    meta
	used map[uint64]bool // pages of the tree and the free list's own
}

// page reads page id (with its overflow pages), once.
func (v *pageWalk) page(id uint64, what string) ([]byte, error) {
	if id < 2 || id >= v.m.hwm {
		return nil, fmt.Errorf("%s page %d outside the file's %d pages", what, id, v.m.hwm)
	}
	if v.used[id] {
		return nil, fmt.Errorf("page %d reached twice (a loop in the tree)", id)
	}
	ps := int64(v.m.pageSize)
	var h [pageHeader]byte
	if _, err := v.f.ReadAt(h[:], int64(id)*ps); err != nil {
		return nil, err
	}
	over := uint64(le.Uint32(h[12:]))
	switch {
	case le.Uint64(h[:]) != id:
		return nil, fmt.Errorf("page %d says it is page %d", id, le.Uint64(h[:]))
	case id+over >= v.m.hwm:
		return nil, fmt.Errorf("page %d runs %d pages past the file's end", id, id+over+1-v.m.hwm)
	}
	for i := id; i <= id+over; i++ {
		if v.used[i] {
			return nil, fmt.Errorf("page %d reached twice", i)
		}
		v.used[i] = true
	}
	b := make([]byte, int64(over+1)*ps)
	if _, err := v.f.ReadAt(b, int64(id)*ps); err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	return b, nil
}

// bucket checks the tree of a bucket: at root, or (root 0) inline, the
// page held in its value.
func (v *pageWalk) bucket(root uint64, inline []byte, depth int) error {
	if root == 0 {
		return v.node(inline, depth+1)
	}
	b, err := v.page(root, "bucket root")
	if err != nil {
		return err
	}
	return v.node(b, depth+1)
}

// node checks one branch or leaf page b (a page and its overflow, or an
// inline bucket's page) and what it points at.
func (v *pageWalk) node(b []byte, depth int) error {
	if depth > maxDepth {
		return errors.New("the tree is deeper than any real one")
	}
	if len(b) < pageHeader {
		return fmt.Errorf("a page of %d bytes", len(b))
	}
	flags, n := le.Uint16(b[8:]), int(le.Uint16(b[10:]))
	if pageHeader+n*elementSize > len(b) {
		return fmt.Errorf("page %d: %d elements do not fit", le.Uint64(b), n)
	}
	for i := range n {
		at := pageHeader + i*elementSize
		e := b[at : at+elementSize]
		switch flags {
		case flagBranch:
			pos, ks := uint64(le.Uint32(e)), uint64(le.Uint32(e[4:]))
			if uint64(at)+pos+ks > uint64(len(b)) {
				return fmt.Errorf("page %d: branch key %d outside the page", le.Uint64(b), i)
			}
			c, err := v.page(le.Uint64(e[8:]), "branch")
			if err != nil {
				return err
			}
			if err := v.node(c, depth+1); err != nil {
				return err
			}
		case flagLeaf:
			fl, pos, ks, vs := le.Uint32(e), uint64(le.Uint32(e[4:])), uint64(le.Uint32(e[8:])), uint64(le.Uint32(e[12:]))
			end := uint64(at) + pos + ks + vs
			if end > uint64(len(b)) {
				return fmt.Errorf("page %d: leaf element %d outside the page", le.Uint64(b), i)
			}
			if fl&flagBucketLeaf == 0 {
				continue
			}
			val := b[end-vs : end]
			if vs < bucketHeader {
				return fmt.Errorf("page %d: bucket %d of %d bytes", le.Uint64(b), i, vs)
			}
			if err := v.bucket(le.Uint64(val), val[bucketHeader:], depth); err != nil {
				return err
			}
		default:
			return fmt.Errorf("page %d: type %#x where a branch or leaf belongs", le.Uint64(b), flags)
		}
	}
	return nil
}

// freelist checks the free list page: every id it frees is in the file
// and in no use.
func (v *pageWalk) freelist(id uint64) error {
	b, err := v.page(id, "free list")
	if err != nil {
		return err
	}
	if le.Uint16(b[8:]) != flagFreelist {
		return fmt.Errorf("free list page %d has type %#x", id, le.Uint16(b[8:]))
	}
	first, n := pageHeader, uint64(le.Uint16(b[10:]))
	if n == 0xFFFF { // the count did not fit: it is the first id
		if len(b) < pageHeader+8 {
			return errors.New("free list count missing")
		}
		first, n = pageHeader+8, le.Uint64(b[pageHeader:])
	}
	if n > uint64(len(b)-first)/8 {
		return fmt.Errorf("free list of %d ids on %d bytes", n, len(b))
	}
	for i := range n {
		p := le.Uint64(b[first+int(i)*8:])
		if p < 2 || p >= v.m.hwm || v.used[p] {
			return fmt.Errorf("free list frees page %d, which is in use or not in the file", p)
		}
	}
	return nil
}
