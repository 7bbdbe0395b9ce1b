// Package webgame is the browser game's page, served by the web endpoint
// at /play/ (webmap.PlayPath): index.html, Go's wasm_exec.js and the game
// compiled to WebAssembly (./wasm: the same frame loop as the desktop,
// package game, drawing through render/webgl). The module is built by
// `go generate` into static/ and embedded; it is not committed.
package webgame

import (
	"embed"
	"io/fs"
)

// Stripped (-s -w) and with -trimpath to keep the module small; stored
// gzipped only (game.wasm.gz), as the web endpoint sends it (webmap's
// compressed.go), so the binary carries 5 MB of it, not 20.
//go:generate sh -c "GOOS=js GOARCH=wasm go build -trimpath -ldflags='-s -w' -o static/game.wasm ./wasm && gzip -9 -f static/game.wasm"
//go:generate sh -c "cp \"$(go env GOROOT)/lib/wasm/wasm_exec.js\" static/wasm_exec.js"

//go:embed static
var embedded embed.FS

// Module is the WebAssembly module's file name in Files (stored as
// Module + ".gz").
const Module = "game.wasm"

// Files is the page, or nil when this build has no module (go generate
// was not run): the server then says the game is not in this build.
func Files() fs.FS {
	sub, err := fs.Sub(embedded, "static")
	if err != nil {
		return nil
	}
	if _, err := fs.Stat(sub, Module+".gz"); err != nil {
		if _, err := fs.Stat(sub, Module); err != nil {
			return nil
		}
	}
	return sub
}
