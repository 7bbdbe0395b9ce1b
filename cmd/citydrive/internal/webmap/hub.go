package webmap

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"slices"
	"sync"
	"time"

	"citydrive/netsync"
)

// The stream (GET /api/stream) is Server-Sent Events. Every interval a
// "cars" event carries every player's car in a compact binary form,
// base64 (encodeCars): the only thing that changes that fast and that the
// browser cannot compute from the seed. "players" (names) is sent when
// the set changes and every keyframeEvery; "stats" (the panel) every
// statsEvery; "edits" (chunk columns, as they are committed) when there
// are new ones; "history" (the sparkline's 10 minutes) once on connect.

const (
	statsEvery    = 2 * time.Second
	keyframeEvery = 30 * time.Second
	historyEvery  = 5 * time.Second
	historyLen    = 120 // 10 minutes
	viewerQueue   = 8   // events buffered per viewer; a slower one misses some
	maxViewers    = 64  // streams at once; more are refused 503
)

// sample is one point of the panel's history.
type sample struct {
	T       int64   `json:"t"` // unix ms
	Hz      int     `json:"hz"`
	Nominal int     `json:"nominal"`
	P99     float64 `json:"p99_ms"`
	Players int     `json:"players"`
	In      float64 `json:"in_bps"`  // per player, bytes/s the server received
	Out     float64 `json:"out_bps"` // per player, bytes/s the server sent
	Viewers int     `json:"viewers"`
}

type hub struct {
	ctx      context.Context
	src      Source
	interval time.Duration
	log      *slog.Logger
	server   func(id uint32) (name string, remote bool) // Options.server

	mu      sync.Mutex
	viewers map[*viewer]struct{}
	history []sample
	last    sample

	// run-goroutine state
	editSeq   uint64
	prevBytes map[uint32][2]uint64
	prevAt    time.Time
	names     string
}

type viewer struct {
	ch chan []byte
}

func newHub(ctx context.Context, src Source, interval time.Duration, log *slog.Logger) *hub {
	return &hub{ctx: ctx, src: src, interval: interval, log: log, viewers: map[*viewer]struct{}{},
		server:    func(uint32) (string, bool) { return "this", false },
		prevBytes: map[uint32][2]uint64{}}
}

func (h *hub) join() (*viewer, []sample, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.viewers) >= maxViewers {
		return nil, nil, false
	}
	v := &viewer{ch: make(chan []byte, viewerQueue)}
	h.viewers[v] = struct{}{}
	return v, append([]sample(nil), h.history...), true
}

func (h *hub) leave(v *viewer) {
	h.mu.Lock()
	delete(h.viewers, v)
	h.mu.Unlock()
}

func (h *hub) count() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.viewers)
}

// publish hands ev to every viewer without waiting: a viewer whose queue
// is full misses it (cars are state; the next one supersedes it).
func (h *hub) publish(ev []byte) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for v := range h.viewers {
		select {
		case v.ch <- ev:
		default:
		}
	}
}

// run polls the server: every interval while someone watches, every
// historyEvery otherwise (the history is kept either way).
func (h *hub) run() {
	t := time.NewTicker(h.interval)
	defer t.Stop()
	var lastStats, lastKey, lastHist time.Time
	for {
		select {
		case <-h.ctx.Done():
			return
		case now := <-t.C:
			watched := h.count() > 0
			if !watched && now.Sub(lastHist) < historyEvery {
				continue
			}
			ctx, cancel := context.WithTimeout(h.ctx, 2*time.Second)
			snap, err := h.src.Snapshot(ctx, h.editSeq)
			cancel()
			if err != nil {
				continue // stopping, or the tick is stuck: the probes say so
			}
			st := h.stats(snap)
			if now.Sub(lastHist) >= historyEvery {
				lastHist = now
				h.mu.Lock()
				h.history = append(h.history, st)
				if len(h.history) > historyLen {
					h.history = slices.Delete(h.history, 0, len(h.history)-historyLen)
				}
				h.mu.Unlock()
			}
			if n := len(snap.Edits); n > 0 {
				h.editSeq = snap.Edits[n-1].Seq
			}
			if !watched {
				continue
			}
			names := playerNames(snap.Players, h.server)
			if names != h.names || now.Sub(lastKey) >= keyframeEvery {
				h.names, lastKey = names, now
				h.publish(sseEvent("players", names))
			}
			h.publish(sseEvent("cars", base64.StdEncoding.EncodeToString(encodeCars(nil, snap.Players))))
			if len(snap.Edits) > 0 {
				h.publish(sseEvent("edits", editColumns(snap.Edits)))
			}
			if now.Sub(lastStats) >= statsEvery {
				lastStats = now
				b, _ := json.Marshal(st)
				h.publish(sseEvent("stats", string(b)))
			}
		}
	}
}

// stats is the panel's sample from a snapshot, with each player's byte
// rates since the last one.
func (h *hub) stats(snap netsync.Snapshot) sample {
	st := sample{T: snap.At.UnixMilli(), Hz: snap.Tick.Hz, Nominal: snap.Tick.NominalHz,
		P99: float64(snap.Tick.P99.Microseconds()) / 1000, Viewers: h.count()}
	dt := snap.At.Sub(h.prevAt).Seconds()
	var in, out float64
	n := 0
	next := make(map[uint32][2]uint64, len(snap.Players))
	for _, p := range snap.Players {
		if _, remote := h.server(p.ID); remote {
			continue // the panel is this server's: its players, its bytes
		}
		st.Players++
		next[p.ID] = [2]uint64{p.BytesIn, p.BytesOut}
		if prev, ok := h.prevBytes[p.ID]; ok && dt > 0 {
			in += float64(p.BytesIn-prev[0]) / dt
			out += float64(p.BytesOut-prev[1]) / dt
			n++
		}
	}
	if n > 0 {
		st.In, st.Out = in/float64(n), out/float64(n)
	}
	h.prevBytes, h.prevAt = next, snap.At
	h.mu.Lock()
	h.last = st
	h.mu.Unlock()
	return st
}

func playerNames(ps []netsync.PlayerInfo, server func(uint32) (string, bool)) string {
	// Keys are not streamed (they are for the admin: /api/players has
	// them); the admin calls take a player's id.
	type entry struct {
		ID     uint32 `json:"id"`
		Name   string `json:"name"`
		Server string `json:"server"`
		Remote bool   `json:"remote,omitempty"`
	}
	out := make([]entry, 0, len(ps))
	for _, p := range ps {
		e := entry{ID: p.ID, Name: p.Name}
		e.Server, e.Remote = server(p.ID)
		out = append(out, e)
	}
	b, _ := json.Marshal(out)
	return string(b)
}

func editColumns(es []netsync.EditMark) string {
	seen := map[[2]int32]bool{}
	out := make([][2]int32, 0, len(es))
	for _, e := range es {
		c := [2]int32{e.Pos.X, e.Pos.Z}
		if !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	b, _ := json.Marshal(out)
	return string(b)
}

func sseEvent(name, data string) []byte {
	return fmt.Appendf(nil, "event: %s\ndata: %s\n\n", name, data)
}

// carsFormat is the first byte of a cars event (its layout's version).
const carsFormat = 1

// encodeCars appends the players with a car: per car its id (uvarint),
// x and z in decimetres (varints), heading in 256ths of a turn (a byte)
// and speed in dm/s (varint); about 10 bytes a car.
func encodeCars(dst []byte, ps []netsync.PlayerInfo) []byte {
	dst = append(dst, carsFormat)
	n := 0
	for _, p := range ps {
		if p.HasCar {
			n++
		}
	}
	dst = binary.AppendUvarint(dst, uint64(n))
	for _, p := range ps {
		if !p.HasCar {
			continue
		}
		dst = binary.AppendUvarint(dst, uint64(p.ID))
		dst = binary.AppendVarint(dst, int64(math.Round(p.X*10)))
		dst = binary.AppendVarint(dst, int64(math.Round(p.Z*10)))
		turn := p.Heading / (2 * math.Pi)
		dst = append(dst, byte(int64(math.Round((turn-math.Floor(turn))*256))&0xff))
		dst = binary.AppendVarint(dst, int64(math.Round(p.Speed*10)))
	}
	return dst
}

func (s *Server) stream(w http.ResponseWriter, r *http.Request) {
	fl, ok := w.(http.Flusher)
	if !ok {
		httpError(w, http.StatusInternalServerError, "streaming unsupported")
		return
	}
	v, hist, ok := s.hub.join()
	if !ok {
		httpError(w, http.StatusServiceUnavailable, fmt.Sprintf("too many map viewers (%d); try again later", maxViewers))
		return
	}
	defer s.hub.leave(v)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Accel-Buffering", "no")
	b, _ := json.Marshal(hist)
	if _, err := w.Write(sseEvent("history", string(b))); err != nil {
		return
	}
	fl.Flush()
	keep := time.NewTicker(15 * time.Second) // through proxies that close idle streams
	defer keep.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-s.ctx.Done():
			return
		case <-keep.C:
			if _, err := w.Write([]byte(": keep-alive\n\n")); err != nil {
				return
			}
			fl.Flush()
		case ev := <-v.ch:
			if _, err := w.Write(ev); err != nil {
				return
			}
			fl.Flush()
		}
	}
}
