package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The player key is made once and kept: a server's ban or allow-list
// entry still names the player after the game restarts.
func TestPlayerKeyIsKept(t *testing.T) {
	dir := t.TempDir()
	a, err := loadPlayerIdentity(dir)
	require.NoError(t, err)
	b, err := loadPlayerIdentity(dir)
	require.NoError(t, err)
	assert.Equal(t, a.Key(), b.Key())
	require.NoError(t, os.WriteFile(filepath.Join(dir, playerKeyFile), []byte("nope\n"), 0o600))
	_, err = loadPlayerIdentity(dir)
	assert.ErrorContains(t, err, "not 16 hex digits")
}
