package main

import "io/fs"

// gameFiles is the browser game's page served at /play/ (nil: this build
// has none, and /play/ says so). The page is package webgame's Files()
// (branch wasm); until it lands here /play/config and the WebTransport
// listener work, and the page is missing.
func gameFiles() fs.FS { return nil }
