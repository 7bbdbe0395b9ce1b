package webmap

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"path"
	"strings"
	"sync"
	"time"
)

// The game's WebAssembly module is about 20 MB as built and under 5 MB
// gzipped, so it goes gzipped to every browser that accepts it (all do).
// `go generate` may store it gzipped only (NAME.gz, the binary then
// carries 5 MB instead of 20); a module stored plain is compressed once,
// on its first request, and kept. A client that does not accept gzip gets
// the plain bytes (decompressed once, kept).

const (
	// gzSuffix names a file stored gzipped.
	gzSuffix = ".gz"
	// maxModule bounds a module read into memory (either form).
	maxModule = 64 << 20
	// revalidate: the module's name never changes between builds, so a
	// browser keeps it but asks (If-None-Match) before using it again.
	revalidate = "no-cache"
)

// compressedFiles serves files, gzipping the .wasm ones.
type compressedFiles struct {
	files fs.FS
	plain http.Handler

	mu      sync.Mutex
	modules map[string]*module
}

func newCompressedFiles(files fs.FS) *compressedFiles {
	return &compressedFiles{files: files, plain: http.FileServerFS(files), modules: map[string]*module{}}
}

// module is one .wasm file in both forms, each made once from the other.
type module struct {
	once     sync.Once
	err      error
	gz, raw  []byte
	etag     string // of the plain bytes; the gzip form's adds "-gz"
	modified time.Time
}

func (c *compressedFiles) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	name := strings.TrimPrefix(path.Clean("/"+r.URL.Path), "/")
	if !strings.HasSuffix(name, ".wasm") {
		c.plain.ServeHTTP(w, r)
		return
	}
	m, err := c.module(name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		http.NotFound(w, r)
		return
	case err != nil:
		httpError(w, http.StatusInternalServerError, err.Error())
		return
	}
	h := w.Header()
	h.Set("Content-Type", "application/wasm")
	h.Set("Cache-Control", revalidate)
	h.Add("Vary", "Accept-Encoding")
	body, etag := m.raw, m.etag
	if acceptsGzip(r) {
		body, etag = m.gz, strings.TrimSuffix(m.etag, `"`)+`-gz"`
		h.Set("Content-Encoding", "gzip")
	}
	h.Set("ETag", etag)
	// ServeContent answers If-None-Match (304) and ranges of the bytes sent.
	http.ServeContent(w, r, name, m.modified, bytes.NewReader(body))
}

// module loads name in both forms the first time it is asked for.
func (c *compressedFiles) module(name string) (*module, error) {
	c.mu.Lock()
	m := c.modules[name]
	if m == nil {
		m = &module{}
		c.modules[name] = m
	}
	c.mu.Unlock()
	m.once.Do(func() { m.err = m.load(c.files, name) })
	return m, m.err
}

func (m *module) load(files fs.FS, name string) error {
	if gz, st, err := readBounded(files, name+gzSuffix); err == nil {
		raw, err := io.ReadAll(io.LimitReader(mustGunzip(gz), maxModule+1))
		if err != nil || len(raw) > maxModule {
			return fmt.Errorf("%s%s is not a gzipped module of at most %d bytes (%v)", name, gzSuffix, maxModule, err)
		}
		m.gz, m.raw, m.modified = gz, raw, st.ModTime()
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	} else {
		raw, st, err := readBounded(files, name)
		if err != nil {
			return err
		}
		var b bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
		_, _ = zw.Write(raw) // a bytes.Buffer does not fail
		_ = zw.Close()
		m.gz, m.raw, m.modified = b.Bytes(), raw, st.ModTime()
	}
	sum := sha256.Sum256(m.raw)
	m.etag = `"` + hex.EncodeToString(sum[:12]) + `"`
	return nil
}

// mustGunzip reads gz; a bad header shows as the read's error.
func mustGunzip(gz []byte) io.Reader {
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return errReader{err}
	}
	return zr
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

func readBounded(files fs.FS, name string) ([]byte, fs.FileInfo, error) {
	st, err := fs.Stat(files, name)
	if err != nil {
		return nil, nil, err
	}
	if st.Size() > maxModule {
		return nil, nil, fmt.Errorf("%s is %d bytes (at most %d)", name, st.Size(), maxModule)
	}
	b, err := fs.ReadFile(files, name)
	return b, st, err
}

// acceptsGzip reads Accept-Encoding: gzip listed, and not with q=0.
func acceptsGzip(r *http.Request) bool {
	for _, v := range r.Header.Values("Accept-Encoding") {
		for part := range strings.SplitSeq(v, ",") {
			coding, params, _ := strings.Cut(strings.TrimSpace(part), ";")
			if !strings.EqualFold(strings.TrimSpace(coding), "gzip") {
				continue
			}
			q := strings.ReplaceAll(strings.TrimSpace(params), " ", "")
			return q != "q=0" && q != "q=0.0" && q != "q=0.00" && q != "q=0.000"
		}
	}
	return false
}
