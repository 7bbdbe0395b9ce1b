package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/url"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"citydrive/cmd/citydrive/internal/bots"
	"citydrive/netsync/transport"
	"citydrive/voxel/ground"
)

// runBots is `citydrive bots`: headless players against a server.
func runBots(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("bots", stdout, "bots -addr HOST:PORT -server-fingerprint FP [flags]", botsAbout)
	addr := fs.String("addr", "", "server `host:port` (required)")
	fp := fs.String("server-fingerprint", "", "the server's certificate fingerprint, as it logs at start (required)")
	n := fs.Int("n", 10, "number of bots")
	first := fs.Int("first", 0, "number this process's bots from this one on (several processes on one grid: see -of)")
	of := fs.Int("of", 0, "bots in all processes together, for the grid they start on (0: -first + -n)")
	duration := fs.Duration("duration", 60*time.Second, "how long the bots drive")
	seed := fs.Uint64("seed", defaultSeed, "world seed (the server's)")
	speed := fs.Float64("speed", 30, "driving speed in m/s")
	radius := fs.Uint("terrain-radius", uint(ground.DefaultRadius), "voxel chunks (32 m) each bot subscribes to around its car, as the game does (0: the server's maximum)")
	editEvery := fs.Duration("edit-every", 10*time.Second, "mean time between one bot's edits (0: no edits)")
	spread := fs.Float64("spread", 1500, "metres between the bots' starting points")
	teleport := fs.Duration("teleport-at", 0, "teleport every bot 20 km once, this long into the run, and measure the burst (0: never)")
	leaveHalf := fs.Duration("leave-half-after", 0, "every odd-numbered bot leaves this long into the run, the rest drive on (0: nobody leaves early)")
	metrics := fs.String("metrics-addr", "", "the server's -metrics-addr, with its host (`host:port`; or the whole URL http://host:port/metrics), for its tick p99")
	verbose := fs.Bool("v", false, "log every bot's connection events")
	cpuprofile := fs.String("cpuprofile", "", "write a CPU profile of the bots' run to this `file`")
	password := fs.String("password", "", "the server's join `password`, if it has one; every bot gives it (default $CITYDRIVE_PASSWORD; read after parsing, so -h never shows it)")
	editsOut := fs.String("edits-out", "", "write every acknowledged edit (and those unanswered at the end) to this `file`, one JSON object a line, for citydrive check-edits")
	gapsOut := fs.String("gaps-out", "", "write every car gap timed at a handover (cars in view throughout), in ms, one a line, to this `file`")
	baseGapsOut := fs.String("baseline-gaps-out", "", "write every car gap timed at the baseline's instants (the same watch where there is no handover), in ms, one a line, to this `file`")
	gapsTrace := fs.String("gaps-trace", "", "explain every car gap of 100 ms or more timed at a handover or the baseline in this `file`, one JSON object a line: the watcher's ticks, each connection's relays of the car, its sends (a diagnostic: every connection logs the cars it hears)")
	stay := fs.Bool("stay", false, "keep each bot on the server it joined: in a cluster, never hand it over to a region's owner")
	nice := fs.Int("nice", 10, "run the bots at this nice value (0..19; 0: unchanged): they stand in for players on other machines, so a server on the same host gets the CPU first")
	fs.alias("radius", "terrain-radius")
	fs.alias("metrics", "metrics-addr")
	if err := fs.parse(args); err != nil {
		return err
	}
	if *addr == "" || *fp == "" {
		return fmt.Errorf("-addr and -server-fingerprint are required (the server prints both when it starts)")
	}
	if err := checkServers(*addr, *fp); err != nil { // several: the bots spread over them
		return err
	}
	switch {
	case *n < 1 || *n > 10000:
		return fmt.Errorf("-n must be in 1..10000, got %d", *n)
	case *first < 0 || *first > 1_000_000 || *of < 0 || *of > 1_000_000 || (*of > 0 && *of < *first+*n):
		return fmt.Errorf("-first %d -of %d: want 0 ≤ -first and -first + -n ≤ -of ≤ 1000000", *first, *of)
	case *duration <= 0 || *duration > 24*time.Hour:
		return fmt.Errorf("-duration must be in (0, 24h], got %v", *duration)
	case !(*speed > 0 && *speed <= 200):
		return fmt.Errorf("-speed must be in (0, 200] m/s, got %g", *speed)
	case *radius > 64:
		return fmt.Errorf("-terrain-radius must be in 0..64 chunks, got %d", *radius)
	case *editEvery < 0:
		return fmt.Errorf("-edit-every must not be negative, got %v", *editEvery)
	case !(*spread > 0 && *spread <= 1e6):
		return fmt.Errorf("-spread must be in (0, 1e6] metres, got %g", *spread)
	case *teleport < 0 || (*teleport > 0 && *teleport >= *duration):
		return fmt.Errorf("-teleport-at must be 0 or less than -duration, got %v", *teleport)
	case *leaveHalf < 0 || (*leaveHalf > 0 && *leaveHalf >= *duration):
		return fmt.Errorf("-leave-half-after must be 0 or less than -duration, got %v", *leaveHalf)
	case *nice < 0 || *nice > 19:
		return fmt.Errorf("-nice must be in 0..19, got %d", *nice)
	}
	metricsURL, err := metricsURL(*metrics)
	if err != nil {
		return err
	}
	if err := checkOptionalFile("cpuprofile", *cpuprofile); err != nil {
		return err
	}
	if err := checkOptionalFile("edits-out", *editsOut); err != nil {
		return err
	}
	if err := checkOptionalFile("gaps-out", *gapsOut); err != nil {
		return err
	}
	if err := checkOptionalFile("baseline-gaps-out", *baseGapsOut); err != nil {
		return err
	}
	if err := checkOptionalFile("gaps-trace", *gapsTrace); err != nil {
		return err
	}
	if err := ready(); err != nil {
		return err
	}
	ee := *editEvery
	if ee == 0 {
		ee = -1
	}
	level := slog.LevelWarn + 4
	if *verbose {
		level = slog.LevelInfo
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	if *nice > 0 {
		if err := lowerPriority(*nice); err != nil {
			fmt.Fprintf(stderr, "bots: could not lower the priority (-nice %d): %v; running at the normal one\n", *nice, err)
		}
	}
	stopProfile, err := startCPUProfile(*cpuprofile)
	if err != nil {
		return err
	}
	defer stopProfile()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	rep, err := bots.Run(ctx, bots.Options{
		Addr: *addr, Fingerprint: *fp, Seed: *seed, N: *n, First: *first, Of: *of, Duration: *duration, Speed: *speed,
		Radius: uint32(*radius), EditEvery: ee, Spread: *spread, TeleportAt: *teleport, LeaveHalfAfter: *leaveHalf,
		MetricsURL: metricsURL, Password: joinPassword(*password), RecordEdits: *editsOut != "", GapTrace: *gapsTrace != "", Stay: *stay, Logger: log,
	})
	rep.WriteTable(stdout)
	if *editsOut != "" {
		err = errors.Join(err, writeEdits(*editsOut, rep))
	}
	if *gapsOut != "" {
		err = errors.Join(err, writeReportFile(*gapsOut, rep.WriteGaps))
	}
	if *baseGapsOut != "" {
		err = errors.Join(err, writeReportFile(*baseGapsOut, rep.WriteBaselineGaps))
	}
	if *gapsTrace != "" {
		err = errors.Join(err, writeReportFile(*gapsTrace, rep.WriteGapTrace))
	}
	return err
}

const botsAbout = `N headless players drive with the autopilot, stream their area and edit now
and then; prints per-player bytes/s and, with -metrics-addr, the server's
tick p99.

The bots come from one address and start -spread apart, so their server needs
  citydrive server -max-players-per-addr N -spawn-radius 0
(a default server lets 8 players in per address, all near its spawn).`

// joinPassword is a -password flag's value, or $CITYDRIVE_PASSWORD where
// it was not given (the environment keeps it out of ps and shell history).
func joinPassword(flag string) string {
	if flag == "" {
		return os.Getenv("CITYDRIVE_PASSWORD")
	}
	return flag
}

// metricsPath is where the server serves its metrics (host.Start).
const metricsPath = "/metrics"

// metricsURL takes -metrics-addr as the server's host:port (what was
// given to its -metrics-addr, with a host) or as a whole URL (the old
// -metrics); "" is none.
func metricsURL(s string) (string, error) {
	if s == "" {
		return "", nil
	}
	if !strings.Contains(s, "://") {
		host, port, err := net.SplitHostPort(s)
		if err != nil || host == "" || port == "" {
			return "", fmt.Errorf("-metrics-addr %q: want host:port (the server's -metrics-addr, with its host) or http://host:port/metrics", s)
		}
		return "http://" + net.JoinHostPort(host, port) + metricsPath, nil
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("-metrics-addr %q: want host:port or http://host:port/metrics", s)
	}
	return s, nil
}

// checkServers checks -addr (host:port, or several comma-separated) and
// -server-fingerprint (one for all, or one per -addr).
func checkServers(addrs, fps string) error {
	for _, a := range splitList(addrs) {
		if _, _, err := net.SplitHostPort(a); err != nil {
			return fmt.Errorf("-addr %q: want host:port[,host:port…]: %v", a, err)
		}
	}
	for _, f := range splitList(fps) {
		if _, err := transport.NormalizeFingerprint(f); err != nil {
			return fmt.Errorf("-server-fingerprint: %v", err)
		}
	}
	if na, nf := len(splitList(addrs)), len(splitList(fps)); nf != 1 && nf != na {
		return fmt.Errorf("-server-fingerprint: %d fingerprints for %d servers: give one for all or one per -addr", nf, na)
	}
	return nil
}

// writeEdits writes the run's recorded edits to file.
func writeEdits(file string, rep bots.Report) error { return writeReportFile(file, rep.WriteEdits) }

// writeReportFile writes one of the bots report's files.
func writeReportFile(file string, write func(io.Writer) error) error {
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	return errors.Join(write(f), f.Close())
}
