package main

import (
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"citydrive/netsync"
)

// playerKeyFile keeps a player's key in their data directory, so a server
// knows them again after a restart of the game (its bans and allow-list
// name keys).
const playerKeyFile = "player-key"

// loadPlayerIdentity returns the identity whose key is kept in dir,
// creating the key on first use.
func loadPlayerIdentity(dir string) (*netsync.Identity, error) {
	path := filepath.Join(dir, playerKeyFile)
	b, err := os.ReadFile(path)
	if err == nil {
		s := strings.TrimSpace(string(b))
		k, perr := strconv.ParseUint(s, 16, 64)
		if perr != nil || len(s) != 16 {
			return nil, fmt.Errorf("player key in %s is not 16 hex digits: remove the file for a new key", path)
		}
		return netsync.NewIdentityKey(k), nil
	}
	if !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("player key: %w", err)
	}
	var raw [8]byte
	_, _ = rand.Read(raw[:])
	k := binary.LittleEndian.Uint64(raw[:])
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("player key: %w", err)
	}
	if err := os.WriteFile(path, fmt.Appendf(nil, "%016x\n", k), 0o600); err != nil {
		return nil, fmt.Errorf("player key: %w", err)
	}
	return netsync.NewIdentityKey(k), nil
}
