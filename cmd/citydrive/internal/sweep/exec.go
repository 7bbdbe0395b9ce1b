package sweep

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"

	"citydrive/cmd/citydrive/internal/soak"
)

// Exec runs each soak as a child process, `Path Before... soak ... -json`:
// a crash or a hang stays in its process, and parallel soaks use the
// cores without sharing a heap or a garbage collector.
type Exec struct {
	Path   string   // the citydrive binary (os.Executable)
	Before []string // arguments before the soak's (tests: the test binary's own)
	Env    []string // the child's environment; nil: this process's
}

// ChildEnv is env (this process's when nil) for a soak that shares the
// machine's cores with parallel-1 others: GOMAXPROCS its share of them,
// at least 1, unless env sets GOMAXPROCS already. A soak's goroutines hand
// each frame over several times; on more threads than its share of cores
// each hand-over is a futex wake-up across threads (a sixth of a 1-minute
// soak's CPU on two cores), and the drive is the same either way.
func ChildEnv(env []string, cores, parallel int) []string {
	if env == nil {
		env = os.Environ()
	}
	for _, kv := range env {
		if strings.HasPrefix(kv, "GOMAXPROCS=") {
			return env
		}
	}
	share := max(1, cores/max(parallel, 1))
	return append(slices.Clip(env), "GOMAXPROCS="+strconv.Itoa(share))
}

// maxLog bounds the log kept per run: a soak that warns without end
// must not hold the sweep's memory.
const maxLog = 4 << 20

// Soak runs j and reads the report from the last line of its output.
func (e Exec) Soak(ctx context.Context, j Job) (soak.Report, string, error) {
	// No frame descriptions: nothing draws them, and the drive (all the
	// sweep checks) is the same without.
	args := append(append(append([]string(nil), e.Before...), j.SoakArgs()...), "-frames=false", "-json")
	if j.Replays != "" {
		args = append(args, "-replays", j.Replays)
	}
	cmd := exec.CommandContext(ctx, e.Path, args...)
	cmd.Env = e.Env
	var stdout bytes.Buffer
	stderr := &capped{max: maxLog}
	cmd.Stdout, cmd.Stderr = &stdout, stderr
	err := cmd.Run()
	log := stderr.String()
	if err != nil {
		return soak.Report{}, log, fmt.Errorf("%v: %s", err, whyFailed(log))
	}
	r, err := ParseReport(stdout.Bytes())
	return r, log, err
}

// ParseReport reads soak -json's report: the last non-empty line.
func ParseReport(out []byte) (soak.Report, error) {
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	last := lines[len(lines)-1]
	var r soak.Report
	if err := json.Unmarshal([]byte(last), &r); err != nil {
		return soak.Report{}, fmt.Errorf("the soak's last line is not its JSON report: %q", truncate(last, 200))
	}
	return r, nil
}

// whyFailed picks the line of a failed soak's log that says why: the
// panic's message, or else the last line (the command's error).
func whyFailed(log string) string {
	lines := strings.Split(strings.TrimSpace(log), "\n")
	for _, l := range lines {
		if strings.HasPrefix(l, "panic: ") || strings.HasPrefix(l, "fatal error: ") {
			return truncate(l, 300)
		}
	}
	if last := lines[len(lines)-1]; last != "" {
		return truncate(last, 300)
	}
	return "no output"
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// capped is a buffer that keeps the first max bytes and counts the rest.
type capped struct {
	buf     bytes.Buffer
	max     int
	dropped int
}

func (c *capped) Write(p []byte) (int, error) {
	keep := min(len(p), c.max-c.buf.Len())
	c.buf.Write(p[:keep])
	c.dropped += len(p) - keep
	return len(p), nil
}

func (c *capped) String() string {
	if c.dropped > 0 {
		return c.buf.String() + fmt.Sprintf("\n[… %d more bytes of log left out]\n", c.dropped)
	}
	return c.buf.String()
}
