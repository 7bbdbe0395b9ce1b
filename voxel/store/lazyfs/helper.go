package lazyfs

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hanwen/go-fuse/v2/fuse"
)

// helperEnv names the mount point when the test binary is run as the
// helper process that serves the file system.
const helperEnv = "CITYDRIVE_LAZYFS_MOUNT"

// replyWait bounds the wait for the helper's answer to one command (a
// remount is the slowest: milliseconds).
const replyWait = 30 * time.Second

// maxLine bounds one command or answer line.
const maxLine = 256

// Available reports why this machine cannot run the file system: FUSE
// needs /dev/fuse and fusermount (fuse3's fusermount3, or fuse's).
func Available() error {
	st, err := os.Stat("/dev/fuse")
	if err != nil {
		return fmt.Errorf("lazyfs: no FUSE device: %v (load the fuse module, or give the container /dev/fuse)", err)
	}
	if st.Mode()&os.ModeCharDevice == 0 {
		return errors.New("lazyfs: /dev/fuse is not a character device")
	}
	if _, err := exec.LookPath("fusermount3"); err != nil {
		if _, err := exec.LookPath("fusermount"); err != nil {
			return errors.New("lazyfs: neither fusermount3 nor fusermount is installed (Debian: apt-get install fuse3; cmd/deps.sh does it)")
		}
	}
	f, err := os.OpenFile("/dev/fuse", os.O_RDWR, 0)
	if err != nil {
		return fmt.Errorf("lazyfs: cannot open /dev/fuse: %v", err)
	}
	return f.Close()
}

// RunIfHelper makes this process the file system's helper when it was
// started as one (by Start): it serves the mount until told to quit or
// until its parent goes, then exits. Call it first in TestMain.
func RunIfHelper() {
	dir := os.Getenv(helperEnv)
	if dir == "" {
		return
	}
	os.Exit(serve(dir, os.Stdin, os.Stdout))
}

// serve mounts a fresh file system at dir and answers commands, one a
// line, each with "ok ..." or "err ...":
//
//	cut N SEED   the power goes off in the Nth change from now (N ≥ 1)
//	remount      power back on: unmount, keep only what was durable, mount
//	full 0|1     every write fails with ENOSPC (a full disk)
//	ro 0|1       every change fails with EROFS
//	state        "ok cut=0|1 ops=N cuts=N"
//	quit
func serve(dir string, in io.Reader, out io.Writer) int {
	s := newState()
	srv, err := mount(dir, s)
	if err != nil {
		fmt.Fprintf(out, "err mounting %s: %v\n", dir, err)
		return 1
	}
	fmt.Fprintln(out, "ok")
	go orphaned(dir)
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, maxLine), maxLine)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		var reply string
		if f[0] == "remount" {
			srv, reply = remount(dir, s, srv)
		} else {
			reply = command(s, f)
		}
		fmt.Fprintln(out, reply)
		if f[0] == "quit" {
			break
		}
	}
	// Told to quit, or the parent is gone: leave no mount behind.
	if srv != nil && srv.Unmount() != nil {
		_ = syscall.Unmount(dir, syscall.MNT_DETACH)
	}
	return 0
}

// orphanCheck is how often the helper looks whether its parent is gone.
const orphanCheck = time.Second

// orphaned ends the helper, leaving no mount behind, once its parent has
// gone without telling it (a test binary killed or crashed): the parent
// may have died with a file open on the mount, and then a clean unmount
// would wait for it.
func orphaned(dir string) {
	parent := os.Getppid()
	for range time.Tick(orphanCheck) {
		if os.Getppid() != parent {
			_ = syscall.Unmount(dir, syscall.MNT_DETACH)
			os.Exit(1)
		}
	}
}

func command(s *state, f []string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	arg := func(i int) (uint64, bool) {
		if len(f) <= i {
			return 0, false
		}
		v, err := strconv.ParseUint(f[i], 10, 64)
		return v, err == nil
	}
	switch f[0] {
	case "cut":
		n, ok1 := arg(1)
		seed, ok2 := arg(2)
		if !ok1 || !ok2 || n == 0 || n > 1<<30 {
			return "err usage: cut N SEED"
		}
		s.cutAt, s.rng = int(n), rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	case "full", "ro":
		v, ok := arg(1)
		if !ok || v > 1 {
			return "err usage: " + f[0] + " 0|1"
		}
		if f[0] == "full" {
			s.full = v == 1
		} else {
			s.ro = v == 1
		}
	case "state":
		cut := 0
		if s.cut {
			cut = 1
		}
		return fmt.Sprintf("ok cut=%d ops=%d cuts=%d", cut, s.ops, s.cuts)
	case "quit":
	default:
		return "err unknown command " + strconv.Quote(f[0])
	}
	return "ok"
}

// remount drops the kernel's caches with the mount (a new mount has none)
// and serves what was durable. The power goes off first if it was on.
func remount(dir string, s *state, srv *fuse.Server) (*fuse.Server, string) {
	if err := srv.Unmount(); err != nil {
		return srv, fmt.Sprintf("err unmounting (a file still open?): %v", err)
	}
	s.mu.Lock()
	if !s.cut {
		s.powerCut()
	}
	s.restart()
	s.cutAt = 0
	s.mu.Unlock()
	srv, err := mount(dir, s)
	if err != nil {
		return nil, fmt.Sprintf("err mounting again: %v", err)
	}
	return srv, "ok"
}

// Mount is a running file system, served by a helper process.
type Mount struct {
	Dir string
	tb  testing.TB
	cmd *exec.Cmd
	in  io.WriteCloser
	out *os.File
	rd  *bufio.Reader
}

// Start mounts a fresh, empty file system at dir (created if needed),
// served by this test binary run again (its TestMain calls RunIfHelper).
// It is unmounted when the test ends.
func Start(tb testing.TB, dir string) *Mount {
	tb.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		tb.Fatal(err)
	}
	m := &Mount{Dir: dir, tb: tb, out: pr, rd: bufio.NewReaderSize(pr, maxLine)}
	m.cmd = exec.Command(os.Args[0], "-test.run=^$")
	m.cmd.Env = append(os.Environ(), helperEnv+"="+dir)
	m.cmd.Stdout, m.cmd.Stderr = pw, os.Stderr
	if m.in, err = m.cmd.StdinPipe(); err != nil {
		tb.Fatal(err)
	}
	if err := m.cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	_ = pw.Close()
	tb.Cleanup(m.close)
	if _, err := m.reply(); err != nil {
		tb.Fatalf("lazyfs: the helper did not mount %s: %v", dir, err)
	}
	return m
}

func (m *Mount) reply() (string, error) {
	if err := m.out.SetReadDeadline(time.Now().Add(replyWait)); err != nil {
		return "", err
	}
	line, err := m.rd.ReadString('\n')
	if err != nil {
		return "", fmt.Errorf("lazyfs helper: %w", err)
	}
	line = strings.TrimSpace(line)
	if rest, ok := strings.CutPrefix(line, "ok"); ok {
		return strings.TrimSpace(rest), nil
	}
	return "", fmt.Errorf("lazyfs helper: %s", line)
}

func (m *Mount) do(format string, args ...any) string {
	m.tb.Helper()
	if _, err := fmt.Fprintf(m.in, format+"\n", args...); err != nil {
		m.tb.Fatalf("lazyfs: %v", err)
	}
	r, err := m.reply()
	if err != nil {
		m.tb.Fatal(err)
	}
	return r
}

// CutAfter arms a power cut in the nth change (write, truncation, fsync,
// create, rename, unlink) from now; seed picks what the cut keeps.
func (m *Mount) CutAfter(n int, seed uint64) { m.tb.Helper(); m.do("cut %d %d", n, seed) }

// Remount brings the power back (cutting it first if it is on): the files
// are what was durable, and the kernel's caches are gone. Every file on
// the mount must be closed.
func (m *Mount) Remount() { m.tb.Helper(); m.do("remount") }

// Full makes every write fail with ENOSPC, or (false) succeed again.
func (m *Mount) Full(on bool) { m.tb.Helper(); m.do("full %d", b2i(on)) }

// ReadOnly makes every change fail with EROFS, or (false) succeed again.
func (m *Mount) ReadOnly(on bool) { m.tb.Helper(); m.do("ro %d", b2i(on)) }

// State reports whether the power is off, and the changes and cuts so
// far.
func (m *Mount) State() (cut bool, ops, cuts int) {
	m.tb.Helper()
	r := m.do("state")
	var c int
	if _, err := fmt.Sscanf(r, "cut=%d ops=%d cuts=%d", &c, &ops, &cuts); err != nil {
		m.tb.Fatalf("lazyfs: state %q: %v", r, err)
	}
	return c == 1, ops, cuts
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func (m *Mount) close() {
	_, _ = fmt.Fprintln(m.in, "quit")
	_, _ = m.reply()
	_ = m.in.Close()
	if err := m.cmd.Wait(); err != nil {
		m.tb.Errorf("lazyfs helper: %v", err)
	}
	_ = m.out.Close()
}
