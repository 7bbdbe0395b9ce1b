//go:build !cgo

// Built without cgo, the binary has no window and no sound: it is the
// static dedicated server (server, bots, soak, bench, map, sweep). The
// commands that would open a window say so instead of running.

package main

import (
	"errors"
	"io"

	"citydrive/cmd/citydrive/internal/game"
)

// haveDisplay: this build cannot open a window or play sound.
const haveDisplay = false

var errNoDisplay = errors.New("this binary was built without cgo (no display or sound); build with CGO_ENABLED=1")

func runPlay([]string, io.Writer, io.Writer) error     { return errNoDisplay }
func runClient([]string, io.Writer, io.Writer) error   { return errNoDisplay }
func runJoin([]string, io.Writer, io.Writer) error     { return errNoDisplay }
func runShot([]string, io.Writer, io.Writer) error     { return errNoDisplay }
func runGPUBench([]string, io.Writer, io.Writer) error { return errNoDisplay }

// replayWindow: replay -check plays without a window; replay FILE needs one.
func replayWindow(windowOptions, game.Options) error { return errNoDisplay }
