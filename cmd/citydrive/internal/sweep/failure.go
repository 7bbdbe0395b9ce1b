package sweep

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// FailureFile is where WriteFailure puts r's drive under dir.
func FailureFile(dir string, j Job) string {
	return filepath.Join(dir, fmt.Sprintf("seed-%d-hour-%s.txt", j.Seed, FormatHour(j.Hour)))
}

// WriteFailure writes what replays a failing run, and what it did, to
// FailureFile (dir is made when missing): its replays (KeepReplays put
// them beside it), the soak that drives it again, the broken rules, the
// game's warnings, the report and the whole log. It returns the file's
// path.
func WriteFailure(dir string, r Result) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	path := FailureFile(dir, r.Job)
	return path, os.WriteFile(path, []byte(failureText(r)), 0o644)
}

func failureText(r Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "seed: %d\nhour: %s\nduration: %s (simulated)\n", r.Seed, FormatHour(r.Hour), FormatDuration(r.Duration))
	if len(r.Args) > 0 {
		fmt.Fprintf(&b, "soak flags: %s\n", strings.Join(r.Args, " "))
	}
	if first := FirstReplay(r); first != "" {
		fmt.Fprintf(&b, "replay: citydrive replay %s\n", first)
		b.WriteString("replays (the drive, then each stuck episode and contact up to 3 s after it; -check plays one headless):\n")
		for _, p := range r.Replays {
			fmt.Fprintf(&b, "  %s\n", p)
		}
		fmt.Fprintf(&b, "soak again: %s (a new drive: a soak is not bit-repeatable)\n\nbroken:\n", r.Reproduce())
	} else {
		fmt.Fprintf(&b, "start: the seed's own (no -start)\nreproduce: %s\n\nbroken:\n", r.Reproduce())
	}
	for _, rule := range r.Broken {
		fmt.Fprintf(&b, "  - %s\n", rule)
	}
	if ws := Warnings(r.Log); len(ws) > 0 {
		b.WriteString("\nthe game's warnings about the drive:\n")
		for _, w := range ws {
			fmt.Fprintf(&b, "  %s\n", w)
		}
	}
	if r.Err == nil {
		rep, _ := json.Marshal(r.Report) // a Report always marshals
		fmt.Fprintf(&b, "\nreport (soak -json):\n%s\n", rep)
	}
	fmt.Fprintf(&b, "\nlog (the soak's stderr):\n%s", r.Log)
	return b.String()
}

// ReplayFile is where KeepReplays puts j's replay of the given name.
func ReplayFile(dir string, j Job, name string) string {
	return filepath.Join(dir, fmt.Sprintf("seed-%d-hour-%s-%s", j.Seed, FormatHour(j.Hour), name))
}

// KeepReplays moves the replays r's soak wrote (its report names them)
// into dir beside its FailureFile (ReplayFile) and returns where they
// are. Only files in the run's own replay directory are taken.
func KeepReplays(dir string, r Result) ([]string, error) {
	if r.Err != nil || len(r.Report.Replays) == 0 || r.Replays != nil {
		return r.Replays, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var kept []string
	for _, p := range r.Report.Replays {
		name := filepath.Base(p)
		if !strings.HasSuffix(name, ".replay") {
			continue
		}
		to := ReplayFile(dir, r.Job, name)
		if err := move(p, to); err != nil {
			return kept, err
		}
		kept = append(kept, to)
	}
	return kept, nil
}

// move renames from to to, or copies it where a rename cannot (another
// file system).
func move(from, to string) error {
	if os.Rename(from, to) == nil {
		return nil
	}
	b, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, b, 0o644)
}

// FirstReplay is the replay to open first: the first incident's, or the
// whole drive's ("": none).
func FirstReplay(r Result) string {
	switch len(r.Replays) {
	case 0:
		return ""
	case 1:
		return r.Replays[0]
	}
	return r.Replays[1]
}

// driveWarning matches the game's log lines about the drive itself (not
// the streaming's), which say where and when it went wrong.
var driveWarning = regexp.MustCompile(`msg="car (stuck|touched an obstacle)"`)

// Warnings is the lines of log about the drive: stuck episodes (each with
// a reproduce= -start that begins the soak beside the spot) and contacts.
func Warnings(log string) []string {
	var ws []string
	for l := range strings.Lines(log) {
		if driveWarning.MatchString(l) {
			ws = append(ws, strings.TrimRight(l, "\n"))
		}
	}
	return ws
}

// startHint matches a stuck episode's reproduce="-start x,z".
var startHint = regexp.MustCompile(`reproduce="(-start [^"]+)"`)

// StartHints is the -start flags the log's stuck episodes give, in order.
func StartHints(log string) []string {
	var hs []string
	for _, m := range startHint.FindAllStringSubmatch(log, -1) {
		hs = append(hs, m[1])
	}
	return hs
}
