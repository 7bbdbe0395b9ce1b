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
)

// command is one subcommand: it parses its own flags from args.
type command struct {
	name    string
	summary string
	run     func(args []string, stdout, stderr io.Writer) error
}

func commands() []command {
	return []command{
		{"play", "solo play through a loopback server (the default when no command is given)", runPlay},
		{"client", "join a server: -addr HOST:PORT -server-fingerprint FP", runClient},
		{"shot", "drive with the autopilot for a while and write one frame as PNG", runShot},
		{"bench", "headless streaming benchmark (no window)", runBench},
		{"soak", "the real game loop headless, faster than real time: how the drive holds up", runSoak},
		{"sweep", "the soak over many seeds and hours, in parallel: which drives break the rules", runSweep},
		{"map", "draw a top-down picture of the road graph (no GL)", runMap},
		{"server", "dedicated multiplayer server (QUIC)", runServer},
		{"bots", "headless players against a server: bytes/s per player, server tick p99", runBots},
	}
}

// errUsage marks a flag error already reported by the flag package.
var errUsage = errors.New("usage")

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	name := ""
	if len(args) > 0 && len(args[0]) > 0 && args[0][0] != '-' {
		name, args = args[0], args[1:]
	}
	if name == "help" {
		usage(stderr)
		return 0
	}
	if name == "" {
		name = "play"
	}
	for _, c := range commands() {
		if c.name == name {
			if err := c.run(args, stdout, stderr); err != nil {
				if errors.Is(err, flag.ErrHelp) {
					return 0
				}
				if !errors.Is(err, errUsage) {
					fmt.Fprintf(stderr, "citydrive %s: %v\n", name, err)
				}
				return 2
			}
			return 0
		}
	}
	fmt.Fprintf(stderr, "citydrive: unknown command %q\n", name)
	usage(stderr)
	return 2
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: citydrive [command] [flags]\n\ncommands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-8s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nRun 'citydrive <command> -h' for a command's flags.")
}

// parseFlags parses args with fs, turning flag errors into errUsage (the
// flag package has already printed them).
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return errUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(fs.Output(), "unexpected arguments: %v\n", fs.Args())
		fs.Usage()
		return errUsage
	}
	return nil
}
