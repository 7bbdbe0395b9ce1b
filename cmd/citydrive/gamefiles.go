package main

import (
	"io/fs"

	"citydrive/cmd/citydrive/internal/webgame"
)

// gameFiles is the browser game's page served at /play/ (nil: this build
// has no WebAssembly module, `go generate ./cmd/citydrive/internal/webgame`
// builds it, and /play/ says so).
func gameFiles() fs.FS { return webgame.Files() }
