package store

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"

	"citydrive/voxel/backup"
)

// SocketName is the Unix socket in a store's directory on which a server
// serves exports of its store (ServeExports).
//
// Why a socket: the server holds the database's exclusive file lock for as
// long as it runs, and bbolt's read-only open takes a shared lock, which
// that excludes; reading the file under nobody's lock would race the
// writer reusing pages. So the consistent snapshot is taken where the lock
// is held: a read transaction in the server, streamed to whoever connects.
// Only the directory's owner can connect (the socket is 0600), which is
// the same user who could read edits.db itself; no token is needed.
const SocketName = "export.sock"

// ErrNoExporter is FetchExport with nobody serving the directory's socket.
var ErrNoExporter = errors.New("voxel store: no server is serving exports of this store")

// exportIdle bounds how long a connected exporter may stop reading before
// the server gives up on it: the read transaction it holds keeps bbolt
// from reusing pages, so the file would grow while it stalls.
const exportIdle = 30 * time.Second

// errorPrefix starts the line the server sends instead of a backup when
// it cannot make one (a backup starts with backup.Magic, never with this).
const errorPrefix = "error: "

// spoolPattern names an export's spool file, unlinked once created; one
// left by a crash in between is removed by the next ServeExports.
const spoolPattern = "export-*.spool"

// exportLeftover reports a file a crashed server's export socket leaves
// in a world's directory: a directory holding only such files (and no
// edits.db: moved away, as ErrCorrupt suggests) is still an empty one.
func exportLeftover(name string) bool {
	spool, _ := filepath.Match(spoolPattern, name)
	return name == SocketName || spool
}

// maxErrorLine bounds the error line a client reads.
const maxErrorLine = 1024

// ExportServer serves exports of a store on its socket. Close stops it.
type ExportServer struct {
	s    *Store
	ln   *net.UnixListener
	path string

	mu     sync.Mutex
	conn   net.Conn // the export being written
	closed bool
	done   chan struct{}

	closeOnce sync.Once
	closeErr  error
}

// ServeExports listens on SocketName in the store's directory: each
// connection gets one backup (Export) and is closed; one at a time, so a
// second export waits for the first. Close it before the store (bbolt's
// Close waits for read transactions, and an export is one).
func (s *Store) ServeExports() (*ExportServer, error) {
	path := filepath.Join(filepath.Dir(s.path), SocketName)
	// This store holds the exclusive lock, so a socket here is a crashed
	// server's, which nobody serves.
	if st, err := os.Lstat(path); err == nil {
		if st.Mode()&os.ModeSocket == 0 {
			return nil, fmt.Errorf("voxel store: %s exists and is not a socket; move it away", path)
		}
		if err := os.Remove(path); err != nil {
			return nil, describe(path, err)
		}
	}
	if old, _ := filepath.Glob(filepath.Join(filepath.Dir(path), spoolPattern)); len(old) > 0 {
		for _, f := range old {
			_ = os.Remove(f) // a crashed export's; nothing refers to it
		}
	}
	ln, err := listenUnix(path)
	if err != nil {
		return nil, describe(path, err)
	}
	// Between the bind and the chmod the socket has the umask's mode; the
	// directory's own permissions still apply, and a connection made then
	// gets no more than edits.db would give it.
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		_ = os.Remove(path)
		return nil, describe(path, err)
	}
	e := &ExportServer{s: s, ln: ln, path: path, done: make(chan struct{})}
	go e.loop()
	return e, nil
}

// Path is the socket's path.
func (e *ExportServer) Path() string { return e.path }

func (e *ExportServer) loop() {
	defer close(e.done)
	for {
		c, err := e.ln.Accept()
		if err != nil {
			return // closed (Accept fails only then on a Unix socket we own)
		}
		e.serve(c)
	}
}

func (e *ExportServer) serve(c net.Conn) {
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		c.Close()
		return
	}
	e.conn = c
	e.mu.Unlock()
	defer func() {
		e.mu.Lock()
		e.conn = nil
		e.mu.Unlock()
		c.Close()
	}()
	w := &idleWriter{c: c}
	if err := e.export(w); err != nil && w.n == 0 {
		// Nothing sent yet (Encode checks everything before its first
		// byte): say why instead of a stream that just ends.
		msg := strings.ReplaceAll(err.Error(), "\n", " ")
		if len(msg) > maxErrorLine-len(errorPrefix)-1 {
			msg = msg[:maxErrorLine-len(errorPrefix)-1]
		}
		_, _ = w.Write([]byte(errorPrefix + msg + "\n"))
	}
}

// export writes the backup into a spool file first and sends that: the
// read transaction then lasts as long as the local disk takes, never as
// long as the client does. (An open read transaction blocks a commit that
// has to grow bbolt's memory map, and keeps the pages it sees from being
// reused; a stalled client would stall the server's edits.) The spool is
// unlinked at once, so nothing stays behind, even after a crash.
func (e *ExportServer) export(w io.Writer) error {
	f, err := os.CreateTemp(filepath.Dir(e.path), spoolPattern)
	if err != nil {
		return describe(filepath.Dir(e.path), err)
	}
	defer f.Close()
	if err := os.Remove(f.Name()); err != nil {
		return describe(f.Name(), err)
	}
	if _, err := e.s.Export(f); err != nil {
		return describe(f.Name(), err)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	_, err = io.Copy(w, f)
	return err
}

// idleWriter writes to a connection, failing a write the reader leaves
// waiting for exportIdle.
type idleWriter struct {
	c net.Conn
	n int64
}

func (w *idleWriter) Write(b []byte) (int, error) {
	_ = w.c.SetWriteDeadline(time.Now().Add(exportIdle))
	n, err := w.c.Write(b)
	w.n += int64(n)
	return n, err
}

// Close stops serving: an export being written is cut off (its client
// sees a truncated backup and says so), and the socket is removed.
func (e *ExportServer) Close() error {
	e.closeOnce.Do(func() {
		e.mu.Lock()
		e.closed = true
		if e.conn != nil {
			e.conn.Close()
		}
		e.mu.Unlock()
		err := e.ln.Close()
		<-e.done
		if rerr := os.Remove(e.path); rerr != nil && !errors.Is(rerr, os.ErrNotExist) {
			err = errors.Join(err, rerr)
		}
		e.closeErr = err
	})
	return e.closeErr
}

// FetchExport asks the server holding the store in dir for a backup over
// its socket and copies it to w, as it arrives: the caller checks what it
// got (backup.Verify), since a server that stops mid-way leaves it
// truncated. ErrNoExporter: nobody serves that socket (no server, or one
// from before exports, or a socket left by a crash).
func FetchExport(ctx context.Context, dir string, w io.Writer) error {
	path := filepath.Join(dir, SocketName)
	c, err := dialUnix(ctx, path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.ECONNREFUSED) {
			return fmt.Errorf("%w: %s: %v", ErrNoExporter, path, err)
		}
		return fmt.Errorf("voxel store: connecting to %s: %w", path, err)
	}
	defer c.Close()
	stop := context.AfterFunc(ctx, func() { c.Close() })
	defer stop()
	br := bufio.NewReader(c)
	head, err := br.Peek(len(backup.Magic))
	switch {
	case err == nil && string(head) == backup.Magic:
	case err == nil && strings.HasPrefix(string(head), errorPrefix): // len(head) > len(errorPrefix)
		line, _ := io.ReadAll(io.LimitReader(br, maxErrorLine))
		msg := strings.TrimSpace(strings.TrimPrefix(string(line), errorPrefix))
		return fmt.Errorf("the server on %s could not export: %s", dir, msg)
	case ctx.Err() != nil:
		return ctx.Err()
	case err != nil:
		return fmt.Errorf("the server on %s sent no backup: %w", dir, err)
	default:
		return fmt.Errorf("the server on %s answered with something that is not a backup", dir)
	}
	if _, err := io.Copy(w, br); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return err
	}
	return nil
}

// maxSocketPath is the longest path a Unix socket may be bound to (Linux's
// sun_path holds 108 bytes with the NUL; 104 elsewhere).
const maxSocketPath = 103

// listenUnix listens on path; a path longer than a socket address can
// hold is reached on Linux through the directory's descriptor
// (/proc/self/fd/N/name), which the kernel resolves like any path.
func listenUnix(path string) (*net.UnixListener, error) {
	var ln net.Listener
	err := viaShortPath(path, func(p string) error {
		var err error
		ln, err = net.Listen("unix", p)
		return err
	})
	if err != nil {
		return nil, err
	}
	ul := ln.(*net.UnixListener)
	ul.SetUnlinkOnClose(false) // the short path dies with its descriptor: Close removes path itself
	return ul, nil
}

func dialUnix(ctx context.Context, path string) (net.Conn, error) {
	var c net.Conn
	err := viaShortPath(path, func(p string) error {
		var err error
		c, err = (&net.Dialer{}).DialContext(ctx, "unix", p)
		return err
	})
	return c, err
}

func viaShortPath(path string, fn func(string) error) error {
	if len(path) <= maxSocketPath || runtime.GOOS != "linux" {
		return fn(path)
	}
	d, err := os.Open(filepath.Dir(path))
	if err != nil {
		return err
	}
	defer d.Close()
	return fn(fmt.Sprintf("/proc/self/fd/%d/%s", d.Fd(), filepath.Base(path)))
}
