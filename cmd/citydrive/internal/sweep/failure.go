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
// FailureFile (dir is made when missing): seed, start, hour and duration
// replay the drive (a replay file comes later), then the broken
// rules, the game's warnings, the report and the whole log. It returns
// the file's path.
func WriteFailure(dir string, r Result) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	path := FailureFile(dir, r.Job)
	return path, os.WriteFile(path, []byte(failureText(r)), 0o644)
}

func failureText(r Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "seed: %d\nstart: the seed's own (no -start)\nhour: %s\nduration: %s (simulated)\n",
		r.Seed, FormatHour(r.Hour), FormatDuration(r.Duration))
	if len(r.Args) > 0 {
		fmt.Fprintf(&b, "soak flags: %s\n", strings.Join(r.Args, " "))
	}
	fmt.Fprintf(&b, "reproduce: %s\n\nbroken:\n", r.Reproduce())
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
