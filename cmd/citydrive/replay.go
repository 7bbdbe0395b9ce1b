package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"citydrive/cmd/citydrive/internal/game"
	"citydrive/cmd/citydrive/internal/replay"
	"citydrive/netsync/wire"
	"citydrive/voxel/store"
)

const replayAbout = `Plays a recorded drive back: every drive (play, join, client) is kept in
the data directory's replays/ (the last 20), and a soak or a sweep writes
one of each stuck episode and contact. The drive replays bit-exactly: the
same car at every step, the same traffic. In the window: Space pauses,
Left/Right seek 10 s, Up/Down change the speed; C, H, M, R and F1 are
the game's. -check plays it headless as fast as it goes and compares it
with the checksums recorded every second: the exit status says whether
it is identical. With no FILE it lists the data directory's replays.`

func runReplay(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("replay", stdout, "replay [flags] [FILE]", replayAbout)
	check := fs.Bool("check", false, "play it headless and compare it with its checksums and incidents (no window)")
	defDir, _ := store.DefaultDir()
	data := fs.String("data", defDir, "data `directory` whose replays/ a bare FILE name is found in, and listed without FILE")
	width := fs.Int("width", 1280, "window width in pixels")
	height := fs.Int("height", 720, "window height in pixels")
	fullscreen := fs.Bool("fullscreen", false, "fullscreen on the primary monitor")
	profile := fs.String("profile", "full", "performance profile: full (60 fps), cool (30 fps, lighter shadows) or battery (45 fps cap)")
	mute := fs.Bool("mute", false, "no engine sound")
	sf := addStreamFlags(fs.FlagSet)
	pos, err := fs.parseArgs(args, 1)
	if err != nil {
		return err
	}
	// The file is the command's input: reading it is its work.
	if err := ready(); err != nil {
		return err
	}
	if len(pos) == 0 {
		return listReplays(stdout, *data)
	}
	path := findReplay(pos[0], *data)
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	rp, err := replay.Read(f)
	f.Close()
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if fs.isSet("seed") && *sf.seed != rp.Seed {
		return fmt.Errorf("-seed %d disagrees with the replay's seed %d (leave -seed out)", *sf.seed, rp.Seed)
	}
	*sf.seed = rp.Seed
	cfg, w, err := sf.config()
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, describeReplay(path, rp))
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	if *check {
		began := time.Now()
		res, err := game.CheckReplay(rp, game.Options{Streaming: cfg, World: w, Log: log, Out: io.Discard})
		if err != nil {
			return err
		}
		fmt.Fprint(stdout, checkText(res, time.Since(began)))
		if res.Diverged != nil {
			return errors.New("the replay is not as recorded")
		}
		return nil
	}
	return replayWindow(windowOptions{width: *width, height: *height, fullscreen: *fullscreen, profile: *profile, mute: *mute},
		game.Options{Streaming: cfg, World: w, Replay: rp, Out: stdout, Log: log})
}

// windowOptions are the window flags of replay.
type windowOptions struct {
	width, height int
	fullscreen    bool
	profile       string
	mute          bool
}

// saveDrive keeps the session's drive in the data directory's replays
// (the last replay.Keep of them).
func saveDrive(stdout io.Writer, log *slog.Logger, data string, s *game.Session) {
	rec := s.Recording()
	if rec == nil || rec.Steps() == 0 || data == "" {
		return
	}
	name := replay.Name(time.Unix(0, rec.Header().Recorded), rec.Header().Seed)
	path, err := replay.Save(replay.DirIn(data), name, rec.File(), replay.Keep)
	if err != nil {
		log.Warn("the drive's replay was not saved", "err", err)
		return
	}
	fmt.Fprintf(stdout, "replay of the drive: citydrive replay %s\n", path)
}

// findReplay is arg, or the data directory's replay of that name when arg
// is a bare name that is not a file here.
func findReplay(arg, data string) string {
	if _, err := os.Stat(arg); err == nil || strings.ContainsRune(arg, os.PathSeparator) || data == "" {
		return arg
	}
	if p := filepath.Join(replay.DirIn(data), arg); fileExists(p) {
		return p
	}
	return arg
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

// listReplays prints the data directory's replays, newest first.
func listReplays(w io.Writer, data string) error {
	if data == "" {
		return fmt.Errorf("-data is required: no default data directory could be found (set $HOME or $XDG_DATA_HOME)")
	}
	dir := replay.DirIn(data)
	names, err := replay.List(dir)
	if err != nil {
		return err
	}
	if len(names) == 0 {
		fmt.Fprintf(w, "no replays in %s yet: every drive is recorded there\n", dir)
		return nil
	}
	fmt.Fprintf(w, "replays in %s, newest first (citydrive replay NAME plays one):\n", dir)
	for _, n := range names {
		line := n
		if f, err := os.Open(filepath.Join(dir, n)); err == nil {
			if rp, err := replay.Read(f); err == nil {
				line += "  " + summary(rp)
			} else {
				line += "  (" + err.Error() + ")"
			}
			f.Close()
		}
		fmt.Fprintln(w, "  "+line)
	}
	return nil
}

// describeReplay is a replay's first line: what it is.
func describeReplay(path string, rp *replay.Replay) string {
	s := fmt.Sprintf("replay %s: %s", path, summary(rp))
	if rp.Build != "" {
		s += ", recorded by " + rp.Build
	}
	if rp.Protocol != wire.ProtocolVersion {
		s += fmt.Sprintf(" (protocol %d; this build speaks %d: its traffic or car may differ)", rp.Protocol, wire.ProtocolVersion)
	}
	return s
}

// summary is a replay's seed, length, who drove and what happened.
func summary(rp *replay.Replay) string {
	who := "driven by hand"
	if rp.Autopilot {
		who = "the autopilot driving"
	}
	traffic := "no traffic"
	if rp.Traffic {
		traffic = fmt.Sprintf("traffic at %g h", rp.TimeOfDay)
	}
	s := fmt.Sprintf("seed %d, %s (%d steps), %s, %s", rp.Seed, stepTime(rp.Steps), rp.Steps, who, traffic)
	if rp.Remote {
		s += ", with other players"
	}
	if n := len(rp.Incidents); n > 0 {
		s += fmt.Sprintf(", %d incidents", n)
	}
	return s
}

// stepTime is n physics steps as m:ss.sss.
func stepTime(n uint64) string {
	d := time.Duration(n) * time.Second / game.PhysicsHz
	return fmt.Sprintf("%d:%06.3f", int(d.Minutes()), (d % time.Minute).Seconds())
}

// checkText is -check's verdict.
func checkText(res game.ReplayResult, took time.Duration) string {
	var b strings.Builder
	fmt.Fprintf(&b, "played %s headless in %.1f s: ", stepTime(res.Steps), took.Seconds())
	if d := res.Diverged; d != nil {
		fmt.Fprintf(&b, "NOT as recorded: %s differs first after step %d (%s); the same at step %d (%s)\n",
			d.What, d.Step, stepTime(d.Step), d.Since, stepTime(d.Since))
	} else {
		fmt.Fprintf(&b, "identical: %d checksums of the car and the traffic, %d incidents at the recorded steps\n", res.Checks, len(res.Incidents))
	}
	for _, in := range res.Incidents {
		fmt.Fprintf(&b, "  %s at %s (step %d)\n", in.Kind, stepTime(in.Step), in.Step)
	}
	d := res.Drive
	fmt.Fprintf(&b, "drove %.2f km: %d contacts, %d stuck episodes, %d resets\n", d.Distance/1000, d.Contacts, d.StuckEpisodes, d.Resets)
	return b.String()
}
