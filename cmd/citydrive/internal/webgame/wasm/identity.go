//go:build js && wasm

package main

import (
	"fmt"
	"log/slog"
	"net/url"
	"strconv"
	"syscall/js"
	"unicode/utf8"

	"citydrive/netsync"
	"citydrive/netsync/wire"
)

// The player across page loads: the player key in localStorage (a reload
// is the same player to a server: its bans and allow-lists, its edits'
// dedup), and the name from ?name= (kept for later loads) or the kept one.

const (
	keyItem     = "citydrive.playerKey" // 16 hex digits
	nameItem    = "citydrive.name"
	defaultName = "browser"
)

// pageIdentity is the kept player key, or a new one kept from now on.
// Without storage (switched off, a private window that refuses it) it is
// a new key each load, and says so.
func pageIdentity(log *slog.Logger) *netsync.Identity {
	s := storage()
	if s.Truthy() {
		if v := getItem(s, keyItem); len(v) == 16 {
			if k, err := strconv.ParseUint(v, 16, 64); err == nil {
				return netsync.NewIdentityKey(k)
			}
		}
	}
	id := netsync.NewIdentity()
	if !s.Truthy() || !setItem(s, keyItem, fmt.Sprintf("%016x", id.Key())) {
		log.Warn("this browser keeps no local storage: the next load is a new player")
	}
	return id
}

// pageName is ?name= (kept), else the kept name, else defaultName.
func pageName(q url.Values) (string, error) {
	s := storage()
	if q.Has("name") {
		n := q.Get("name")
		if len(n) > wire.MaxNameLen || !utf8.ValidString(n) {
			return "", fmt.Errorf("?name= must be at most %d bytes of UTF-8, got %d", wire.MaxNameLen, len(n))
		}
		if s.Truthy() {
			setItem(s, nameItem, n)
		}
		return n, nil
	}
	if s.Truthy() {
		if n := getItem(s, nameItem); n != "" && len(n) <= wire.MaxNameLen && utf8.ValidString(n) {
			return n, nil
		}
	}
	return defaultName, nil
}

// storage is window.localStorage, or undefined where reading it throws.
func storage() (v js.Value) {
	defer func() {
		if recover() != nil {
			v = js.Undefined()
		}
	}()
	return js.Global().Get("localStorage")
}

func getItem(s js.Value, key string) (v string) {
	defer func() { _ = recover() }()
	if r := s.Call("getItem", key); r.Type() == js.TypeString {
		return r.String()
	}
	return ""
}

func setItem(s js.Value, key, value string) (ok bool) {
	defer func() { _ = recover() }()
	s.Call("setItem", key, value)
	return true
}
