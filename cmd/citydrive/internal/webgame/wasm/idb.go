//go:build js && wasm

package main

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"syscall/js"
	"time"

	"citydrive/cmd/citydrive/internal/webgame/pageworld"
	"citydrive/voxel"
)

// The solo world's edits in the page's IndexedDB (pageworld.EditStore):
// database idbName, object store idbEdits, one record a block edited,
// keyed "SEED/CX/CY/CZ/INDEX" (so the worlds of several seeds share the
// store) with [CX, CY, CZ, INDEX, BLOCK] as its value. A Save is one
// readwrite transaction with strict durability, awaited until complete.

const (
	idbName    = "citydrive"
	idbVersion = 1
	idbEdits   = "edits"
	// idbTimeout bounds one IndexedDB operation (a blocked open, a
	// transaction the browser never completes).
	idbTimeout = 10 * time.Second
)

// idbHelpers turn IndexedDB's events into promises, in JS, so no Go
// callback has to outlive a request.
var idbHelpers = js.Global().Get("Function").New(`return {
	open: (name, version, store) => new Promise((ok, fail) => {
		const r = indexedDB.open(name, version);
		r.onupgradeneeded = () => { if (!r.result.objectStoreNames.contains(store)) r.result.createObjectStore(store); };
		r.onsuccess = () => ok(r.result);
		r.onerror = () => fail(r.error);
		r.onblocked = () => fail(new Error("another tab holds an older version of the database open"));
	}),
	request: (r) => new Promise((ok, fail) => { r.onsuccess = () => ok(r.result); r.onerror = () => fail(r.error); }),
	done: (tx) => new Promise((ok, fail) => {
		tx.oncomplete = () => ok(null);
		tx.onerror = () => fail(tx.error);
		tx.onabort = () => fail(tx.error || new Error("transaction aborted"));
	}),
}`).Invoke()

type idbStore struct {
	db     js.Value
	prefix string // "SEED/"
}

var _ pageworld.EditStore = (*idbStore)(nil)

// openIDB opens (creating on first use) the page's edit store for seed.
func openIDB(seed uint64) (s *idbStore, err error) {
	defer catch(&err)
	if !js.Global().Get("indexedDB").Truthy() {
		return nil, errors.New("this browser offers no IndexedDB, so solo edits cannot be kept")
	}
	ctx, cancel := context.WithTimeout(context.Background(), idbTimeout)
	defer cancel()
	db, err := await(ctx, idbHelpers.Call("open", idbName, idbVersion, idbEdits))
	if err != nil {
		return nil, fmt.Errorf("opening IndexedDB %q: %w", idbName, err)
	}
	return &idbStore{db: db, prefix: strconv.FormatUint(seed, 10) + "/"}, nil
}

func (s *idbStore) Load(max int, fn func(voxel.BlockEdit)) (err error) {
	defer catch(&err)
	ctx, cancel := context.WithTimeout(context.Background(), idbTimeout)
	defer cancel()
	st := s.db.Call("transaction", idbEdits, "readonly").Call("objectStore", idbEdits)
	keys := js.Global().Get("IDBKeyRange").Call("bound", s.prefix, s.prefix+"\uffff")
	all, err := await(ctx, idbHelpers.Call("request", st.Call("getAll", keys, max+1)))
	if err != nil {
		return err
	}
	n := all.Length()
	if n > max {
		return fmt.Errorf("IndexedDB holds more than %d edits of this world", max)
	}
	for i := range n {
		e, err := decodeEdit(all.Index(i))
		if err != nil {
			return fmt.Errorf("IndexedDB record %d: %w", i, err)
		}
		fn(e)
	}
	return nil
}

func (s *idbStore) Save(edits []voxel.BlockEdit) (err error) {
	defer catch(&err)
	ctx, cancel := context.WithTimeout(context.Background(), idbTimeout)
	defer cancel()
	tx := s.db.Call("transaction", idbEdits, "readwrite", map[string]any{"durability": "strict"})
	done := idbHelpers.Call("done", tx) // listening before the puts
	st := tx.Call("objectStore", idbEdits)
	for _, e := range edits {
		key := fmt.Sprintf("%s%d/%d/%d/%d", s.prefix, e.Pos.X, e.Pos.Y, e.Pos.Z, e.Index)
		st.Call("put", []any{int(e.Pos.X), int(e.Pos.Y), int(e.Pos.Z), int(e.Index), int(e.Block)}, key)
	}
	_, err = await(ctx, done)
	return err
}

// decodeEdit reads a record's [CX, CY, CZ, INDEX, BLOCK], each checked.
func decodeEdit(v js.Value) (voxel.BlockEdit, error) {
	var e voxel.BlockEdit
	if v.Type() != js.TypeObject || v.Length() != 5 {
		return e, errors.New("not [cx, cy, cz, index, block]")
	}
	var n [5]int64
	for i := range n {
		f := v.Index(i)
		if f.Type() != js.TypeNumber || f.Float() != math.Trunc(f.Float()) || math.Abs(f.Float()) > math.MaxInt32 {
			return e, fmt.Errorf("field %d is not a whole number in int32", i)
		}
		n[i] = int64(f.Float())
	}
	if n[3] < 0 || n[3] >= voxel.ChunkVolume || n[4] < 0 || n[4] > math.MaxUint8 {
		return e, fmt.Errorf("index %d or block %d out of range", n[3], n[4])
	}
	e = voxel.BlockEdit{Pos: voxel.ChunkPos{X: int32(n[0]), Y: int32(n[1]), Z: int32(n[2])}, Index: uint16(n[3]), Block: voxel.Block(n[4])}
	return e, e.Check()
}

// catch turns a JS exception thrown through syscall/js (a closed
// database, a quota, storage switched off) into *err.
func catch(err *error) {
	if r := recover(); r != nil {
		if je, ok := r.(js.Error); ok {
			*err = errors.New(je.Error())
			return
		}
		panic(r)
	}
}
