// Command citydrive is the game and its tools: solo play (default), a
// dedicated server, a client, the headless streaming bench, screenshots and
// the top-down map.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
)

// command is one subcommand: it parses its own flags from args.
type command struct {
	name    string
	summary string // one line of citydrive -h
	run     func(args []string, stdout, stderr io.Writer) error
}

func commands() []command {
	return []command{
		{"play", "drive solo (the default when no command is given)", runPlay},
		{"join", "join a server with the join code it prints", runJoin},
		{"client", "join a server by address and fingerprint", runClient},
		{"server", "run a dedicated multiplayer server", runServer},
		{"cluster-keys", "write the keys, certificates and NATS configs of a secured cluster", runClusterKeys},
		{"export", "back up a world's edits to a file, also while its server runs", runExport},
		{"import", "restore a backup made by export into an empty world", runImport},
		{"shot", "drive with the autopilot, then write one frame as PNG", runShot},
		{"gpubench", "GPU time of a drive's frames per pass, with the GPU kept busy, against the floor", runGPUBench},
		{"map", "draw a top-down picture of the road network (no GPU)", runMap},
		{"bench", "measure the streaming work per frame, headless", runBench},
		{"soak", "drive the real game loop headless, faster than real time", runSoak},
		{"sweep", "soak many seeds and times of day in parallel, check every drive", runSweep},
		{"replay", "play a recorded drive back, or check it headless (-check)", runReplay},
		{"bots", "load a server with headless players", runBots},
		{"check-edits", "check that the bots' acknowledged edits are in a world's backup", runCheckEdits},
		{"version", "print the version, commit, protocol and generator versions", runVersion},
		{"help", "show help for a command (citydrive help CMD)", nil},
	}
}

// displayCommands open a window and play sound: a binary built without
// cgo (the static server) has them only as an error (play_nocgo.go).
var displayCommands = []string{"play", "join", "client", "shot", "gpubench"}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// Exit statuses: Go's flag convention (2 for a command line it cannot
// take) for every error, as before.
const (
	exitOK    = 0
	exitError = 2
)

func run(args []string, stdout, stderr io.Writer) int {
	name, typed := "play", false
	if len(args) > 0 {
		switch a := args[0]; {
		case a == "-h" || a == "-help" || a == "--help":
			usage(stdout)
			return exitOK
		case a == "-version" || a == "--version":
			args = args[1:]
			name, typed = "version", true
		case a != "" && a[0] != '-':
			name, args, typed = a, args[1:], true
		}
	}
	if name == "help" {
		if len(args) == 0 || strings.HasPrefix(args[0], "-") {
			usage(stdout)
			return exitOK
		}
		// "citydrive help shot" is "citydrive shot -h".
		name, args = args[0], []string{"-h"}
	}
	c, ok := lookup(name)
	if !ok {
		fmt.Fprintf(stderr, "citydrive: unknown command %q\nsee citydrive -h\n", name)
		return exitError
	}
	err := c.run(args, stdout, stderr)
	if err == nil || errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	// The user's words: "citydrive: …" when play was not typed.
	shown := "citydrive"
	if typed {
		shown += " " + name
	}
	fmt.Fprintf(stderr, "%s: %v\n", shown, err)
	var ue usageError
	if errors.As(err, &ue) {
		fmt.Fprintf(stderr, "see citydrive %s -h\n", name)
	}
	return exitError
}

func lookup(name string) (command, bool) {
	for _, c := range commands() {
		if c.name == name && c.run != nil {
			return c, true
		}
	}
	return command{}, false
}

// usage is citydrive -h: the commands, one line each.
func usage(w io.Writer) {
	fmt.Fprintln(w, "citydrive: an endless city on a lake to drive through, alone or together.")
	fmt.Fprintln(w, "\nusage: citydrive [command] [flags]\n\ncommands:")
	for _, c := range commands() {
		note := ""
		if !haveDisplay && slices.Contains(displayCommands, c.name) {
			note = " (not in this build: no cgo)"
		}
		fmt.Fprintf(w, "  %-8s %s%s\n", c.name, c.summary, note)
	}
	if haveDisplay {
		fmt.Fprintln(w, "\nWith no command, citydrive plays (its flags and keys: citydrive play -h).")
	} else {
		n := len(displayCommands)
		fmt.Fprintf(w, "\nThis binary was built without cgo (no display or sound): %s and %s\nare unavailable; build with CGO_ENABLED=1 for them.\n",
			strings.Join(displayCommands[:n-1], ", "), displayCommands[n-1])
	}
	fmt.Fprintln(w, "A command's flags: citydrive CMD -h. The version: citydrive -version.")
}
