//go:build js && wasm

package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net"
	"net/url"
	"strconv"
	"strings"
	"syscall/js"
	"time"

	"citydrive/cmd/citydrive/internal/game"
	"citydrive/netsync"
	"citydrive/netsync/wire"
	"citydrive/voxel"
	"citydrive/voxel/gen"
	"citydrive/voxel/ground"
)

// Joining a server from the page: the join code in the fragment names it
// and pins its identity; /play/config (next to the page) gives the
// WebTransport session URL and the certificates the browser may accept,
// which netsync checks against the pin before the browser is asked.

const (
	// dialTimeout bounds one join: the config, the session, the handshake.
	dialTimeout = 10 * time.Second
	// maxConfig bounds /play/config's body (two certificates: about 2 KiB).
	maxConfig = 64 << 10
	// maxJoinCode bounds the fragment parsed (cmd/citydrive's limit).
	maxJoinCode = 400
)

// joinCode is citydrive://HOST:PORT/SEED/FINGERPRINT.
type joinCode struct {
	addr        string // HOST:PORT, the native port (named in errors)
	seed        uint64
	fingerprint string // 64 hex digits, lower case
}

// parseJoinCode reads the page's fragment; ok is false without one.
func parseJoinCode(hash string) (c joinCode, ok bool, err error) {
	code, err := url.PathUnescape(strings.TrimPrefix(hash, "#"))
	if err != nil {
		return c, false, fmt.Errorf("the page's fragment %q is not a join code: %v", hash, err)
	}
	if code == "" {
		return c, false, nil
	}
	bad := func(why string) error {
		return fmt.Errorf("join code %q: %s (want citydrive://HOST:PORT/SEED/FINGERPRINT, as the server prints it)", code, why)
	}
	if len(code) > maxJoinCode {
		return c, false, bad(fmt.Sprintf("%d bytes is too long", len(code)))
	}
	rest, found := strings.CutPrefix(strings.ToLower(code), "citydrive://")
	if !found {
		return c, false, bad("it does not start with citydrive://")
	}
	parts := strings.Split(rest, "/")
	if len(parts) != 3 {
		return c, false, bad(fmt.Sprintf("want 3 parts after citydrive://, got %d", len(parts)))
	}
	if _, _, err := net.SplitHostPort(parts[0]); err != nil {
		return c, false, bad(fmt.Sprintf("address %q: want HOST:PORT", parts[0]))
	}
	seed, err := strconv.ParseUint(parts[1], 10, 64)
	if err != nil {
		return c, false, bad(fmt.Sprintf("the seed %q is not a whole number", parts[1]))
	}
	fp := strings.ReplaceAll(parts[2], ":", "")
	if len(fp) != 64 || strings.Trim(fp, "0123456789abcdef") != "" {
		return c, false, bad(fmt.Sprintf("the fingerprint %q is not 64 hex digits", parts[2]))
	}
	return joinCode{addr: parts[0], seed: seed, fingerprint: fp}, true, nil
}

// playConfig is /play/config (package webmap writes it).
type playConfig struct {
	WebTransport string   `json:"webtransport"`
	Seed         string   `json:"seed"`
	Fingerprint  string   `json:"fingerprint"`
	Identity     string   `json:"identity"`
	Certificates []string `json:"certificates"`
}

// errNoWebTransport: the server serves the page but takes no sessions.
var errNoWebTransport = errors.New("this server takes no browser players (it was started without -webtransport-addr)")

// fetchConfig fetches /play/config and checks it against the join code.
func fetchConfig(ctx context.Context, code joinCode) (netsync.WebTransportTarget, error) {
	var t netsync.WebTransportTarget
	opts := js.ValueOf(map[string]any{"cache": "no-store"})
	rsp, err := await(ctx, js.Global().Call("fetch", "config", opts))
	if err != nil {
		return t, fmt.Errorf("fetching /play/config: %w", err)
	}
	status := rsp.Get("status").Int()
	if status == 404 {
		return t, errNoWebTransport
	}
	buf, err := await(ctx, rsp.Call("arrayBuffer"))
	if err != nil {
		return t, fmt.Errorf("reading /play/config: %w", err)
	}
	n := buf.Get("byteLength").Int()
	if n > maxConfig { // before it is copied into Go
		return t, fmt.Errorf("/play/config is %d bytes (at most %d)", n, maxConfig)
	}
	text := make([]byte, n)
	js.CopyBytesToGo(text, js.Global().Get("Uint8Array").New(buf))
	if status != 200 {
		return t, fmt.Errorf("/play/config answered %d: %.200s", status, text)
	}
	var c playConfig
	if err := json.Unmarshal(text, &c); err != nil {
		return t, fmt.Errorf("/play/config is not the server's config: %w", err)
	}
	if !strings.EqualFold(c.Fingerprint, code.fingerprint) {
		return t, fmt.Errorf("the join code's server (fingerprint %.16s…) is not the one serving this page (%.16s…)", code.fingerprint, c.Fingerprint)
	}
	if c.Seed != strconv.FormatUint(code.seed, 10) {
		return t, fmt.Errorf("the join code's world is seed %d, the server's is %q", code.seed, c.Seed)
	}
	t.URL = c.WebTransport
	if t.Offer.Identity, err = base64.StdEncoding.DecodeString(c.Identity); err != nil {
		return t, fmt.Errorf("/play/config's identity is not base64: %w", err)
	}
	for i, s := range c.Certificates {
		der, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			return t, fmt.Errorf("/play/config's certificate %d is not base64: %w", i, err)
		}
		t.Offer.Certs = append(t.Offer.Certs, der)
	}
	return t, nil
}

// joiner dials the join code's server; every dial (a redial too) fetches
// the config again, since certificates rotate. One identity throughout:
// a redial is the same player, and its unanswered edits go again.
type joiner struct {
	code joinCode
	id   *netsync.Identity
	name string
	log  *slog.Logger
}

func (j joiner) dial(ctx context.Context) (*netsync.Client, error) {
	ctx, cancel := context.WithTimeout(ctx, dialTimeout)
	defer cancel()
	target, err := fetchConfig(ctx, j.code)
	if err != nil {
		return nil, err
	}
	return j.dialTarget(ctx, target)
}

func (j joiner) dialTarget(ctx context.Context, target netsync.WebTransportTarget) (*netsync.Client, error) {
	c, err := netsync.Dial(ctx, netsync.ClientConfig{
		Addr: j.code.addr, Fingerprint: j.code.fingerprint, Seed: j.code.seed, Generator: gen.Version,
		Radius: ground.DefaultRadius, Logger: j.log, Identity: j.id, Name: j.name,
		WebTransport: &target,
	})
	if err != nil {
		return nil, fmt.Errorf("joining %s: %w", j.code.addr, err)
	}
	return c, nil
}

// await waits for a JS promise. The callbacks only hand the outcome over
// (they run on the page's event loop) and release themselves.
func await(ctx context.Context, p js.Value) (js.Value, error) {
	type settled struct {
		v   js.Value
		err error
	}
	ch := make(chan settled, 1)
	var ok, fail js.Func
	ok = js.FuncOf(func(_ js.Value, args []js.Value) any {
		ch <- settled{v: args[0]}
		ok.Release()
		fail.Release()
		return nil
	})
	fail = js.FuncOf(func(_ js.Value, args []js.Value) any {
		ch <- settled{err: errors.New(args[0].Call("toString").String())}
		ok.Release()
		fail.Release()
		return nil
	})
	p.Call("then", ok, fail)
	select {
	case r := <-ch:
		return r.v, r.err
	case <-ctx.Done():
		return js.Undefined(), context.Cause(ctx)
	}
}

// editHook is window.citydrive.edit(x, y, z, block): the block at world
// block x, y, z set to block through the game's edit path (the server
// answers, as for the edit keys). It returns null, or why not.
func editHook(s *game.Session) js.Func {
	return js.FuncOf(func(_ js.Value, args []js.Value) any {
		if len(args) != 4 {
			return fmt.Sprintf("edit(x, y, z, block) takes 4 whole numbers, got %d arguments", len(args))
		}
		var v [4]int64
		for i, a := range args {
			f := math.NaN()
			if a.Type() == js.TypeNumber {
				f = a.Float()
			}
			if f != math.Trunc(f) || math.Abs(f) > 1<<53 {
				return fmt.Sprintf("edit: argument %d (%s) is not a whole number", i+1, a.Call("toString").String())
			}
			v[i] = int64(f)
		}
		if v[3] < 0 || v[3] > int64(wire.DefaultLimits.MaxBlock) {
			return fmt.Sprintf("edit: block %d is not in 0..%d", v[3], wire.DefaultLimits.MaxBlock)
		}
		if err := s.QueueEdit(v[0], v[1], v[2], voxel.Block(v[3])); err != nil {
			return err.Error()
		}
		return nil
	})
}

// publishLink writes the link's state into o (window.citydrive.link).
func publishLink(o js.Value, l game.LinkState) {
	o.Set("connected", l.Connected)
	o.Set("player", l.Player)
	o.Set("carSeq", l.CarSeq)
	o.Set("x", l.X)
	o.Set("y", l.Y)
	o.Set("z", l.Z)
	o.Set("heading", l.Heading)
	o.Set("cars", l.Cars)
	o.Set("editsSent", l.EditsSent)
	o.Set("editsApplied", l.EditsApplied)
	o.Set("editsRefused", l.EditsRefused)
	o.Set("status", l.Status)
	o.Set("lost", l.Lost)
}
