package webmap

import (
	"bytes"
	"compress/gzip"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// wasmLike is compressible like a module: a few repeated byte patterns
// with noise.
func wasmLike(n int) []byte {
	r := rand.New(rand.NewPCG(1, 2))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i % 7)
		if r.IntN(8) == 0 {
			b[i] = byte(r.IntN(256))
		}
	}
	return b
}

func gz(t *testing.T, b []byte) []byte {
	var out bytes.Buffer
	zw := gzip.NewWriter(&out)
	_, err := zw.Write(b)
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	return out.Bytes()
}

func get(t *testing.T, h http.Handler, path string, header ...string) *http.Response {
	t.Helper()
	r := httptest.NewRequest(http.MethodGet, path, nil)
	for i := 0; i+1 < len(header); i += 2 {
		r.Header.Set(header[i], header[i+1])
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w.Result()
}

func body(t *testing.T, rsp *http.Response) []byte {
	t.Helper()
	b, err := io.ReadAll(rsp.Body)
	require.NoError(t, err)
	return b
}

func gunzip(t *testing.T, b []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	require.NoError(t, err)
	out, err := io.ReadAll(zr)
	require.NoError(t, err)
	return out
}

// The module goes gzipped to a browser that accepts it and plain to one
// that does not, stored either way; other files as they are; the ETag
// names the form and answers a revalidation with 304.
func TestTheModuleIsServedGzipped(t *testing.T) {
	raw := wasmLike(1 << 20)
	for name, files := range map[string]fstest.MapFS{
		"stored plain":   {"game.wasm": {Data: raw}, "wasm_exec.js": {Data: []byte("go()")}},
		"stored gzipped": {"game.wasm.gz": {Data: gz(t, raw)}, "wasm_exec.js": {Data: []byte("go()")}},
	} {
		t.Run(name, func(t *testing.T) {
			h := newCompressedFiles(files)
			rsp := get(t, h, "/game.wasm", "Accept-Encoding", "gzip, deflate, br")
			require.Equal(t, http.StatusOK, rsp.StatusCode)
			assert.Equal(t, "gzip", rsp.Header.Get("Content-Encoding"))
			assert.Equal(t, "application/wasm", rsp.Header.Get("Content-Type"))
			assert.Equal(t, "Accept-Encoding", rsp.Header.Get("Vary"))
			assert.Equal(t, "no-cache", rsp.Header.Get("Cache-Control"))
			zipped := body(t, rsp)
			assert.Less(t, len(zipped), len(raw)/2, "compressed")
			assert.Equal(t, raw, gunzip(t, zipped))
			etag := rsp.Header.Get("ETag")
			require.NotEmpty(t, etag)

			rsp = get(t, h, "/game.wasm", "Accept-Encoding", "gzip", "If-None-Match", etag)
			assert.Equal(t, http.StatusNotModified, rsp.StatusCode)
			assert.Empty(t, body(t, rsp))

			for _, ae := range []string{"", "identity", "br, gzip;q=0"} {
				rsp = get(t, h, "/game.wasm", "Accept-Encoding", ae)
				require.Equal(t, http.StatusOK, rsp.StatusCode, ae)
				assert.Empty(t, rsp.Header.Get("Content-Encoding"), ae)
				assert.Equal(t, "application/wasm", rsp.Header.Get("Content-Type"))
				assert.NotEqual(t, etag, rsp.Header.Get("ETag"), "the plain form is another entity")
				assert.Equal(t, raw, body(t, rsp), ae)
			}

			rsp = get(t, h, "/wasm_exec.js", "Accept-Encoding", "gzip")
			assert.Empty(t, rsp.Header.Get("Content-Encoding"))
			assert.Equal(t, "go()", string(body(t, rsp)))
			assert.Equal(t, http.StatusNotFound, get(t, h, "/other.wasm", "Accept-Encoding", "gzip").StatusCode)
		})
	}
}

// A stored .gz that is not gzip is an error, not garbage sent as a module.
func TestABrokenStoredModuleIsRefused(t *testing.T) {
	h := newCompressedFiles(fstest.MapFS{"game.wasm.gz": {Data: []byte("not gzip")}})
	rsp := get(t, h, "/game.wasm", "Accept-Encoding", "gzip")
	assert.Equal(t, http.StatusInternalServerError, rsp.StatusCode)
	assert.Contains(t, string(body(t, rsp)), "not a gzipped module")
}
