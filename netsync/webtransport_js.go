//go:build js && wasm

package netsync

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"syscall/js"
	"time"

	"github.com/quic-go/quic-go"
)

// The browser's client connection: the page's WebTransport object
// (https://w3c.github.io/webtransport/) through syscall/js. Its promises
// are awaited on channels, so a goroutine waiting for the network parks
// like any other and the page's event loop runs meanwhile; JS callbacks
// never block, they only hand a result over.

// jsError is a rejected promise's reason (a WebTransportError, a
// TypeError, a DOMException).
type jsError struct{ v js.Value }

func (e jsError) Error() string {
	if e.v.Type() == js.TypeObject {
		if m := e.v.Get("message"); m.Type() == js.TypeString {
			if n := e.v.Get("name"); n.Type() == js.TypeString {
				return n.String() + ": " + m.String()
			}
			return m.String()
		}
	}
	return e.v.Call("toString").String()
}

// settled is a promise's outcome.
type settled struct {
	v   js.Value
	err error
}

// promise hands p's outcome to the returned channel (buffered: nobody
// need wait for it). The callbacks release themselves once p settles, so
// a waiter that gave up (its context ended) leaks nothing that outlives
// the promise.
func promise(p js.Value) <-chan settled {
	ch := make(chan settled, 1)
	var ok, fail js.Func
	ok = js.FuncOf(func(_ js.Value, args []js.Value) any {
		ch <- settled{v: arg0(args)}
		ok.Release()
		fail.Release()
		return nil
	})
	fail = js.FuncOf(func(_ js.Value, args []js.Value) any {
		ch <- settled{err: jsError{arg0(args)}}
		ok.Release()
		fail.Release()
		return nil
	})
	p.Call("then", ok, fail)
	return ch
}

func arg0(args []js.Value) js.Value {
	if len(args) == 0 {
		return js.Undefined()
	}
	return args[0]
}

// call calls v's method and turns a JS exception into an error (a
// closed stream's writer throws rather than rejecting, in places).
func call(v js.Value, method string, args ...any) (r js.Value, err error) {
	defer func() {
		if p := recover(); p != nil {
			if je, ok := p.(js.Error); ok {
				err = jsError{je.Value}
				return
			}
			err = fmt.Errorf("%s: %v", method, p)
		}
	}()
	return v.Call(method, args...), nil
}

// pageSession is a page's WebTransport session as a clientConn.
type pageSession struct {
	wt     js.Value
	url    string
	ctx    context.Context
	cancel context.CancelCauseFunc
	local  atomic.Bool // CloseWithError was called: the close is ours

	dgIn  *jsReader
	dgOut js.Value // datagrams.writable's writer

	bytesIn, bytesOut atomic.Uint64
}

func dialWebTransport(ctx context.Context, url string, hashes [][sha256.Size]byte) (clientConn, error) {
	ctor := js.Global().Get("WebTransport")
	if ctor.Type() != js.TypeFunction {
		return nil, errors.New("netsync: this browser offers no WebTransport here (browsers offer it only to secure pages: http://localhost, http://127.0.0.1 or HTTPS)")
	}
	list := js.Global().Get("Array").New()
	for _, h := range hashes {
		v := js.Global().Get("Uint8Array").New(len(h))
		js.CopyBytesToJS(v, h[:])
		list.Call("push", js.ValueOf(map[string]any{"algorithm": "sha-256", "value": v}))
	}
	opts := js.ValueOf(map[string]any{"serverCertificateHashes": list})
	var wt js.Value
	err := func() (err error) {
		defer func() {
			if p := recover(); p != nil {
				if je, ok := p.(js.Error); ok {
					err = jsError{je.Value}
					return
				}
				err = fmt.Errorf("%v", p)
			}
		}()
		wt = ctor.New(url, opts) // throws on a URL it will not open
		return nil
	}()
	if err != nil {
		return nil, fmt.Errorf("netsync: opening a WebTransport session at %s: %w", url, err)
	}
	c := &pageSession{wt: wt, url: url}
	c.ctx, c.cancel = context.WithCancelCause(context.Background())
	// Watched from the start: a session that never opens rejects closed
	// too, and an unwatched rejection is a console error.
	go c.watch(promise(wt.Get("closed")))
	select {
	case r := <-promise(wt.Get("ready")):
		if r.err != nil {
			c.cancel(r.err)
			return nil, fmt.Errorf("netsync: opening a WebTransport session at %s: %w (a page accepts only the certificates /play/config offers; is the server's WebTransport port reachable?)", url, r.err)
		}
	case <-ctx.Done():
		_ = c.CloseWithError(CodeOK, "gave up waiting")
		return nil, fmt.Errorf("netsync: opening a WebTransport session at %s: %w", url, context.Cause(ctx))
	}
	dg := wt.Get("datagrams")
	c.dgIn = &jsReader{reader: dg.Get("readable").Call("getReader"), sess: c}
	c.dgOut = dg.Get("writable").Call("getWriter")
	return c, nil
}

// watch ends the session's context when the page's session closes: with
// the server's code and reason as a remote *quic.ApplicationError (as a
// native connection's), so the client explains it the same way.
func (c *pageSession) watch(closed <-chan settled) {
	r := <-closed
	if c.local.Load() {
		return // CloseWithError set the cause
	}
	if r.err != nil {
		c.cancel(fmt.Errorf("netsync: the WebTransport session to %s was lost: %w", c.url, r.err))
		return
	}
	code, reason := uint64(0), ""
	if v := r.v; v.Type() == js.TypeObject {
		if cc := v.Get("closeCode"); cc.Type() == js.TypeNumber {
			code = uint64(cc.Int())
		}
		if rs := v.Get("reason"); rs.Type() == js.TypeString {
			reason = rs.String()
		}
	}
	c.cancel(&quic.ApplicationError{Remote: true, ErrorCode: quic.ApplicationErrorCode(code), ErrorMessage: reason})
}

func (c *pageSession) OpenStream(ctx context.Context) (peerStream, error) {
	p, err := call(c.wt, "createBidirectionalStream")
	if err != nil {
		return nil, c.streamErr(err)
	}
	select {
	case r := <-promise(p):
		if r.err != nil {
			return nil, c.streamErr(r.err)
		}
		return &pageStream{jsReader: jsReader{reader: r.v.Get("readable").Call("getReader"), sess: c},
			writer: r.v.Get("writable").Call("getWriter")}, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-c.ctx.Done():
		return nil, context.Cause(c.ctx)
	}
}

func (c *pageSession) ReceiveDatagram(ctx context.Context) ([]byte, error) {
	return c.dgIn.next(ctx, time.Time{})
}

// SendDatagram queues b without waiting: a datagram may be lost anyway,
// and while the browser's queue is full it is dropped (the car slot
// sends only the latest snapshot, so nothing stale piles up).
func (c *pageSession) SendDatagram(b []byte) error {
	if err := context.Cause(c.ctx); err != nil {
		return err
	}
	if d := c.dgOut.Get("desiredSize"); d.Type() == js.TypeNumber && d.Float() <= 0 {
		return nil
	}
	v := js.Global().Get("Uint8Array").New(len(b))
	js.CopyBytesToJS(v, b)
	p, err := call(c.dgOut, "write", v)
	if err != nil {
		return c.streamErr(err)
	}
	p.Call("catch", quiet())
	c.bytesOut.Add(uint64(len(b)))
	return nil
}

func (c *pageSession) CloseWithError(code quic.ApplicationErrorCode, reason string) error {
	if c.local.Swap(true) {
		return nil
	}
	c.cancel(fmt.Errorf("netsync: closed by this client (code %d): %s", code, reason))
	_, err := call(c.wt, "close", js.ValueOf(map[string]any{"closeCode": int(code), "reason": clipReason(reason)}))
	return err
}

func (c *pageSession) Context() context.Context { return c.ctx }

// Traffic is the stream and datagram bytes: a page sees no QUIC counters.
func (c *pageSession) Traffic() Traffic {
	return Traffic{BytesIn: c.bytesIn.Load(), BytesOut: c.bytesOut.Load()}
}

func (c *pageSession) release() error { return nil }

var (
	quietOnce sync.Once
	quietFunc js.Func
)

// quiet swallows what an unawaited promise rejects with (a datagram write
// at the session's end): one function for the page's life, never
// released, since such a promise may settle after its session is gone.
func quiet() js.Func {
	quietOnce.Do(func() { quietFunc = js.FuncOf(func(js.Value, []js.Value) any { return nil }) })
	return quietFunc
}

// closeGrace is how long a stream's error waits for the session's close:
// a server ending the session resets its streams as it sends the close,
// and the page may read the reset first (Chromium does), by more than a
// second in a page busy drawing at a few frames a second (the kick's
// reason was lost so in a loaded test run). A reset with no close is
// rare; it costs that connection's redial this long.
const closeGrace = 5 * time.Second

// streamErr is the session's end (the server's code and reason) if the
// session ends within closeGrace, else err.
func (c *pageSession) streamErr(err error) error {
	t := time.NewTimer(closeGrace)
	defer t.Stop()
	select {
	case <-c.ctx.Done():
		return context.Cause(c.ctx)
	case <-t.C:
		return err
	}
}

// jsReader reads a ReadableStream's chunks through its reader. At most
// one read() is in flight: one a caller stopped waiting for (deadline,
// context) is picked up by the next call, so nothing read is lost.
type jsReader struct {
	reader  js.Value
	sess    *pageSession
	pending <-chan settled
}

// next returns the next chunk (io.EOF at the stream's end), waiting until
// ctx ends or, if not zero, deadline.
func (r *jsReader) next(ctx context.Context, deadline time.Time) ([]byte, error) {
	if r.pending == nil {
		p, err := call(r.reader, "read")
		if err != nil {
			return nil, r.sess.streamErr(err)
		}
		r.pending = promise(p)
	}
	var expired <-chan time.Time
	if !deadline.IsZero() {
		d := time.Until(deadline)
		if d <= 0 {
			return nil, os.ErrDeadlineExceeded
		}
		t := time.NewTimer(d)
		defer t.Stop()
		expired = t.C
	}
	select {
	case s := <-r.pending:
		r.pending = nil
		if s.err != nil {
			return nil, r.sess.streamErr(s.err)
		}
		if s.v.Get("done").Bool() {
			return nil, io.EOF
		}
		v := s.v.Get("value")
		b := make([]byte, v.Get("byteLength").Int())
		js.CopyBytesToGo(b, v)
		r.sess.bytesIn.Add(uint64(len(b)))
		return b, nil
	case <-expired:
		return nil, os.ErrDeadlineExceeded
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-r.sess.ctx.Done():
		return nil, context.Cause(r.sess.ctx)
	}
}

// pageStream is a bidirectional WebTransport stream as a peerStream.
type pageStream struct {
	jsReader
	writer js.Value
	rest   []byte // what the last chunk held beyond the last Read

	mu       sync.Mutex
	deadline time.Time
}

// Read reads what the stream has; a deadline set with SetReadDeadline
// applies to the Reads that start after it.
func (s *pageStream) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if len(s.rest) == 0 {
		s.mu.Lock()
		dl := s.deadline
		s.mu.Unlock()
		b, err := s.next(context.Background(), dl)
		if err != nil {
			return 0, err
		}
		s.rest = b
	}
	n := copy(p, s.rest)
	s.rest = s.rest[n:]
	return n, nil
}

func (s *pageStream) SetReadDeadline(t time.Time) error {
	s.mu.Lock()
	s.deadline = t
	s.mu.Unlock()
	return nil
}

// Write returns once the browser took p (its write promise resolved):
// the stream's flow control holds a writer back, as QUIC's does.
func (s *pageStream) Write(p []byte) (int, error) {
	v := js.Global().Get("Uint8Array").New(len(p))
	js.CopyBytesToJS(v, p)
	w, err := call(s.writer, "write", v)
	if err != nil {
		return 0, s.sess.streamErr(err)
	}
	select {
	case r := <-promise(w):
		if r.err != nil {
			return 0, s.sess.streamErr(r.err)
		}
	case <-s.sess.ctx.Done():
		return 0, context.Cause(s.sess.ctx)
	}
	s.sess.bytesOut.Add(uint64(len(p)))
	return len(p), nil
}

// Close ends the stream's sending side.
func (s *pageStream) Close() error {
	p, err := call(s.writer, "close")
	if err != nil {
		return err
	}
	p.Call("catch", quiet())
	return nil
}
