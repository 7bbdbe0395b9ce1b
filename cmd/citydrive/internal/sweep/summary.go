package sweep

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"citydrive/cmd/citydrive/internal/game"
)

// SlowestKept is how many of the slowest runs a Summary lists.
const SlowestKept = 10

// Summary sums a sweep up. JSON names are the -json summary line.
type Summary struct {
	Type           string         `json:"type"` // "summary"
	Runs           int            `json:"runs"`
	Seeds          int            `json:"seeds"`
	FailingRuns    int            `json:"failing_runs"`
	ErroredRuns    int            `json:"errored_runs"` // of the failing, those that did not finish
	StuckEpisodes  int            `json:"stuck_episodes"`
	Contacts       int            `json:"contacts"`
	ContactsByKind map[string]int `json:"contacts_by_kind"`
	KM             float64        `json:"km"`
	Builds         int            `json:"builds"`
	GameSeconds    float64        `json:"game_s"`
	AverageKMH     float64        `json:"avg_kmh"`
	WallSeconds    float64        `json:"wall_s"` // the whole sweep's
	Worst          *Run           `json:"worst"`  // nil: no runs
	Slowest        []Run          `json:"slowest"`
	Failing        []Run          `json:"failing"`
}

// Run names one run in a Summary, with what ranks it.
type Run struct {
	Seed          uint64  `json:"seed"`
	Hour          float64 `json:"hour"`
	WallSeconds   float64 `json:"wall_s"`
	KM            float64 `json:"km"`
	StuckEpisodes int     `json:"stuck_episodes"`
	Contacts      int     `json:"contacts"`
	Failed        bool    `json:"failed"`
	Error         string  `json:"error,omitempty"`
}

func runOf(r Result) Run {
	run := Run{Seed: r.Seed, Hour: r.Hour, WallSeconds: r.Wall.Seconds(), KM: r.Report.KM,
		StuckEpisodes: r.Report.StuckEpisodes, Contacts: r.Report.Contacts, Failed: r.Failed()}
	if r.Err != nil {
		run.Error = r.Err.Error()
	}
	return run
}

// Summarise sums results up; wall is the sweep's wall time.
func Summarise(results []Result, wall time.Duration) Summary {
	s := Summary{Type: "summary", Runs: len(results), WallSeconds: wall.Seconds(),
		ContactsByKind: map[string]int{}, Slowest: []Run{}, Failing: []Run{}}
	for _, k := range game.ContactKinds {
		s.ContactsByKind[k] = 0
	}
	seeds := map[uint64]bool{}
	for _, r := range results {
		seeds[r.Seed] = true
		if r.Failed() {
			s.FailingRuns++
			s.Failing = append(s.Failing, runOf(r))
		}
		if r.Err != nil {
			s.ErroredRuns++
			continue
		}
		rep := r.Report
		s.StuckEpisodes += rep.StuckEpisodes
		s.Contacts += rep.Contacts
		for k, n := range rep.ContactsByKind {
			s.ContactsByKind[k] += n
		}
		s.KM += rep.KM
		s.Builds += rep.Builds
		s.GameSeconds += rep.GameSeconds
	}
	s.Seeds = len(seeds)
	if s.GameSeconds > 0 {
		s.AverageKMH = s.KM / (s.GameSeconds / 3600)
	}
	if w := Worst(results); w != nil {
		run := runOf(*w)
		s.Worst = &run
	}
	for _, r := range Slowest(results, SlowestKept) {
		s.Slowest = append(s.Slowest, runOf(r))
	}
	return s
}

// Worst is the run that went worst: one that did not finish, else the
// most stuck episodes, then the most contacts, then the fewest km; the
// earliest of equals. Nil when there are no results.
func Worst(results []Result) *Result {
	var worst *Result
	for i := range results {
		if worst == nil || worse(results[i], *worst) {
			worst = &results[i]
		}
	}
	return worst
}

// worse reports whether a went strictly worse than b.
func worse(a, b Result) bool {
	if (a.Err != nil) != (b.Err != nil) {
		return a.Err != nil
	}
	if c := cmp.Compare(a.Report.StuckEpisodes, b.Report.StuckEpisodes); c != 0 {
		return c > 0
	}
	if c := cmp.Compare(a.Report.Contacts, b.Report.Contacts); c != 0 {
		return c > 0
	}
	return a.Report.KM < b.Report.KM
}

// Slowest is the n runs that took the most wall time, slowest first.
func Slowest(results []Result, n int) []Result {
	s := slices.Clone(results)
	slices.SortStableFunc(s, func(a, b Result) int { return cmp.Compare(b.Wall, a.Wall) })
	return s[:min(n, len(s))]
}

// String is the summary as lines for a person.
func (s Summary) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "sweep: %d runs over %d seeds in %.1f s of wall time: %d failing", s.Runs, s.Seeds, s.WallSeconds, s.FailingRuns)
	if s.ErroredRuns > 0 {
		fmt.Fprintf(&b, " (%d did not finish)", s.ErroredRuns)
	}
	fmt.Fprintf(&b, "\n  stuck:     %d episodes\n  contacts:  %d (%s)\n", s.StuckEpisodes, s.Contacts, s.kinds())
	fmt.Fprintf(&b, "  driven:    %.1f km in %.0f s of game time, average %.1f km/h; %d builds\n", s.KM, s.GameSeconds, s.AverageKMH, s.Builds)
	if w := s.Worst; w != nil {
		fmt.Fprintf(&b, "  worst:     %s\n", w.describe())
	}
	if len(s.Slowest) > 0 {
		var ss []string
		for _, r := range s.Slowest {
			ss = append(ss, fmt.Sprintf("%d@%s %.1f s", r.Seed, FormatHour(r.Hour), r.WallSeconds))
		}
		fmt.Fprintf(&b, "  slowest:   %s (seed@hour wall)\n", strings.Join(ss, ", "))
	}
	if len(s.Failing) > 0 {
		var fs []string
		for _, r := range s.Failing {
			fs = append(fs, fmt.Sprintf("%d@%s", r.Seed, FormatHour(r.Hour)))
		}
		fmt.Fprintf(&b, "  failing:   %s (seed@hour)\n", strings.Join(fs, " "))
	}
	return b.String()
}

// kinds is the contacts by kind in game.ContactKinds' order, the kinds
// touched only.
func (s Summary) kinds() string {
	var ks []string
	for _, k := range game.ContactKinds {
		if n := s.ContactsByKind[k]; n > 0 {
			ks = append(ks, fmt.Sprintf("%s %d", strings.ReplaceAll(k, "_", " "), n))
		}
	}
	if len(ks) == 0 {
		return "none"
	}
	return strings.Join(ks, ", ")
}

func (r Run) describe() string {
	if r.Error != "" {
		return fmt.Sprintf("seed %d at hour %s did not finish: %s", r.Seed, FormatHour(r.Hour), r.Error)
	}
	return fmt.Sprintf("seed %d at hour %s: %d stuck episodes, %d contacts, %.2f km", r.Seed, FormatHour(r.Hour), r.StuckEpisodes, r.Contacts, r.KM)
}
