package sweep

import (
	"fmt"
	"strings"

	"citydrive/cmd/citydrive/internal/soak"
)

// Record is one run as a -json line.
type Record struct {
	Type      string       `json:"type"` // "run"
	Seed      uint64       `json:"seed"`
	Hour      float64      `json:"hour"`
	DurationS float64      `json:"duration_s"` // simulated
	WallS     float64      `json:"wall_s"`
	OK        bool         `json:"ok"`
	Broken    []string     `json:"broken"`
	Error     string       `json:"error,omitempty"`
	Reproduce string       `json:"reproduce"`
	File      string       `json:"file,omitempty"`    // the failing drive's file
	Replays   []string     `json:"replays,omitempty"` // its replays: the drive's, then each incident's
	Report    *soak.Report `json:"report"`            // null when the soak did not finish
}

// RecordOf is r as a Record.
func RecordOf(r Result) Record {
	rec := Record{Type: "run", Seed: r.Seed, Hour: r.Hour, DurationS: r.Duration.Seconds(), WallS: r.Wall.Seconds(),
		OK: !r.Failed(), Broken: append([]string{}, r.Broken...), Reproduce: r.Reproduce(), File: r.File, Replays: r.Replays}
	if r.Err != nil {
		rec.Error = r.Err.Error()
	} else {
		rep := r.Report
		rec.Report = &rep
	}
	return rec
}

// Line is r as one line for a person: a failing run says what broke, how
// to watch it again and where its file is.
func Line(r Result) string {
	head := fmt.Sprintf("seed %d hour %s", r.Seed, FormatHour(r.Hour))
	if !r.Failed() {
		rep := r.Report
		return fmt.Sprintf("ok   %s: %.2f km, %d builds, %d contacts, %.1f s", head, rep.KM, rep.Builds, rep.Contacts, r.Wall.Seconds())
	}
	line := fmt.Sprintf("FAIL %s: %s; ", head, strings.Join(r.Broken, "; "))
	if first := FirstReplay(r); first != "" {
		line += "replay: citydrive replay " + first
	} else {
		line += "reproduce: " + r.Reproduce()
		if hs := StartHints(r.Log); len(hs) > 0 {
			line += fmt.Sprintf(" (first stuck at: add %s)", hs[0])
		}
	}
	if r.File != "" {
		line += "; details: " + r.File
	}
	return line
}
