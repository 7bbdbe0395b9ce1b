package webmap

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"citydrive/netsync"
	"citydrive/netsync/wire"
	"citydrive/voxel"
)

// maxBody bounds an admin request's body.
const maxBody = 4 << 10

// maxEdited bounds the edited chunks sent at page load.
const maxEdited = 20_000

// maxShutdown bounds a shutdown countdown (an hour).
const maxShutdown = 3600

func httpError(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(map[string]string{"error": msg})
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_ = json.NewEncoder(w).Encode(v)
}

// decode reads a bounded JSON body into v, refusing unknown fields.
func decode(w http.ResponseWriter, r *http.Request, v any) bool {
	d := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxBody))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		httpError(w, http.StatusBadRequest, "bad request body: "+err.Error())
		return false
	}
	if _, err := d.Token(); !errors.Is(err, io.EOF) {
		httpError(w, http.StatusBadRequest, "bad request body: one JSON object expected")
		return false
	}
	return true
}

func (s *Server) config(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, map[string]any{"seed": fmt.Sprint(s.opt.Seed), "interval_ms": s.opt.Interval.Milliseconds(),
		"chunk": voxel.ChunkSize})
}

// edited lists the chunk columns with edits, as [x, z] chunk coordinates.
func (s *Server) edited(w http.ResponseWriter, r *http.Request) {
	cols := map[[2]int32]struct{}{}
	cut := false
	if s.opt.Edited != nil {
		cut = s.opt.Edited(maxEdited, func(p voxel.ChunkPos) { cols[[2]int32{p.X, p.Z}] = struct{}{} })
	}
	out := make([][2]int32, 0, len(cols))
	for c := range cols {
		out = append(out, c)
	}
	writeJSON(w, map[string]any{"columns": out, "cut": cut})
}

// playerJSON is a player as the page lists it.
type playerJSON struct {
	ID       uint32  `json:"id"`
	Key      string  `json:"key,omitempty"` // admin only: a key read off the map would pass the allow-list
	Name     string  `json:"name"`
	X        float64 `json:"x"`
	Z        float64 `json:"z"`
	Speed    float64 `json:"speed"`
	BytesIn  uint64  `json:"bytes_in"`
	BytesOut uint64  `json:"bytes_out"`
	Seconds  float64 `json:"seconds"`          // connected for
	Server   string  `json:"server"`           // "this", or in a cluster its server ("s3")
	Remote   bool    `json:"remote,omitempty"` // on another server of the cluster: id, car and server only
}

func (s *Server) toJSON(p netsync.PlayerInfo, now time.Time) playerJSON {
	j := playerJSON{ID: p.ID, Name: p.Name, X: p.X, Z: p.Z, Speed: p.Speed,
		BytesIn: p.BytesIn, BytesOut: p.BytesOut, Seconds: now.Sub(p.Joined).Seconds()}
	j.Server, j.Remote = s.opt.server(p.ID)
	if !j.Remote {
		j.Key = FormatKey(p.Key)
	}
	return j
}

// players lists the connected players; with keys only for the admin.
func (s *Server) players(keys bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
		defer cancel()
		snap, err := s.opt.Source.Snapshot(ctx, ^uint64(0)>>1)
		if err != nil {
			httpError(w, http.StatusServiceUnavailable, err.Error())
			return
		}
		out := make([]playerJSON, 0, len(snap.Players))
		for _, p := range snap.Players {
			j := s.toJSON(p, snap.At)
			if !keys {
				j.Key = ""
			}
			out = append(out, j)
		}
		writeJSON(w, out)
	}
}

func (s *Server) adminState(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, s.opt.Access.State())
}

// target is who an admin action is about: a player key, or a connected
// player's id.
type target struct {
	Key    string `json:"key,omitempty"`
	ID     uint32 `json:"id,omitempty"`
	Reason string `json:"reason,omitempty"`
}

func (s *Server) resolve(w http.ResponseWriter, r *http.Request, t target) (uint64, bool) {
	if len(t.Reason) > wire.MaxReasonLen-64 {
		httpError(w, http.StatusBadRequest, fmt.Sprintf("reason: at most %d bytes", wire.MaxReasonLen-64))
		return 0, false
	}
	if t.Key != "" {
		k, err := ParseKey(t.Key)
		if err != nil {
			httpError(w, http.StatusBadRequest, err.Error())
			return 0, false
		}
		return k, true
	}
	if t.ID == 0 {
		httpError(w, http.StatusBadRequest, `give "key" (16 hex digits) or "id" (a connected player)`)
		return 0, false
	}
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	snap, err := s.opt.Source.Snapshot(ctx, ^uint64(0)>>1)
	if err != nil {
		httpError(w, http.StatusServiceUnavailable, err.Error())
		return 0, false
	}
	for _, p := range snap.Players {
		if p.ID != t.ID {
			continue
		}
		if name, remote := s.opt.server(p.ID); remote {
			httpError(w, http.StatusConflict, fmt.Sprintf("player %d is on server %s: kick them there (a ban by key holds on every server)", t.ID, name))
			return 0, false
		}
		return p.Key, true
	}
	httpError(w, http.StatusNotFound, fmt.Sprintf("no player %d is connected", t.ID))
	return 0, false
}

// targeted decodes the request's target and finds its player key.
func (s *Server) targeted(w http.ResponseWriter, r *http.Request) (target, uint64, bool) {
	var t target
	if !decode(w, r, &t) {
		return t, 0, false
	}
	key, ok := s.resolve(w, r, t)
	return t, key, ok
}

// remove disconnects key's players, telling them they were done (kicked,
// banned) by the operator and why, and answers with how many.
func (s *Server) remove(w http.ResponseWriter, key uint64, t target, done string) {
	n := s.opt.Source.Kick(key, removedWhy(done, t.Reason))
	s.log.Info("admin: "+done, "key", FormatKey(key), "kicked", n, "reason", t.Reason)
	writeJSON(w, map[string]any{"key": FormatKey(key), "kicked": n})
}

func (s *Server) kick(w http.ResponseWriter, r *http.Request) {
	if t, key, ok := s.targeted(w, r); ok {
		s.remove(w, key, t, "kicked")
	}
}

func (s *Server) ban(w http.ResponseWriter, r *http.Request) {
	t, key, ok := s.targeted(w, r)
	if !ok {
		return
	}
	if err := s.opt.Access.Ban(key, t.Reason, time.Now()); err != nil {
		httpError(w, http.StatusInternalServerError, err.Error())
		return
	}
	s.remove(w, key, t, "banned")
}

func (s *Server) unban(w http.ResponseWriter, r *http.Request) {
	_, key, ok := s.targeted(w, r)
	if !ok {
		return
	}
	if err := s.opt.Access.Unban(key); err != nil {
		httpError(w, http.StatusInternalServerError, err.Error())
		return
	}
	s.log.Info("admin: unban", "key", FormatKey(key))
	writeJSON(w, map[string]any{"key": FormatKey(key)})
}

func (s *Server) allow(w http.ResponseWriter, r *http.Request) {
	var t struct {
		Key   string `json:"key"`
		Allow bool   `json:"allow"`
	}
	if !decode(w, r, &t) {
		return
	}
	key, err := ParseKey(t.Key)
	if err != nil {
		httpError(w, http.StatusBadRequest, err.Error())
		return
	}
	if err := s.opt.Access.Allow(key, t.Allow); err != nil {
		httpError(w, http.StatusInternalServerError, err.Error())
		return
	}
	s.log.Info("admin: allow-list", "key", t.Key, "allow", t.Allow)
	writeJSON(w, s.opt.Access.State())
}

func (s *Server) allowOnly(w http.ResponseWriter, r *http.Request) {
	var t struct {
		On bool `json:"on"`
	}
	if !decode(w, r, &t) {
		return
	}
	if err := s.opt.Access.SetAllowOnly(t.On); err != nil {
		httpError(w, http.StatusInternalServerError, err.Error())
		return
	}
	s.log.Info("admin: allow-list mode", "on", t.On)
	writeJSON(w, s.opt.Access.State())
}

func (s *Server) password(w http.ResponseWriter, r *http.Request) {
	var t struct {
		Password string `json:"password"`
	}
	if !decode(w, r, &t) {
		return
	}
	if err := s.opt.Access.SetPassword(t.Password); err != nil {
		httpError(w, http.StatusBadRequest, err.Error())
		return
	}
	s.log.Info("admin: join password", "set", t.Password != "")
	writeJSON(w, s.opt.Access.State())
}

func (s *Server) broadcast(w http.ResponseWriter, r *http.Request) {
	var t struct {
		Text string `json:"text"`
	}
	if !decode(w, r, &t) {
		return
	}
	if t.Text == "" || len(t.Text) > wire.MaxReasonLen {
		httpError(w, http.StatusBadRequest, fmt.Sprintf("text: 1 to %d bytes", wire.MaxReasonLen))
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	n, err := s.opt.Source.Notify(ctx, wire.Notice{Text: t.Text})
	if err != nil {
		httpError(w, http.StatusServiceUnavailable, err.Error())
		return
	}
	s.log.Info("admin: broadcast", "players", n, "text", t.Text)
	writeJSON(w, map[string]any{"players": n})
}

func (s *Server) shutdown(w http.ResponseWriter, r *http.Request) {
	var t struct {
		Seconds int    `json:"seconds"`
		Text    string `json:"text"`
	}
	if !decode(w, r, &t) {
		return
	}
	if t.Seconds < 0 || t.Seconds > maxShutdown || len(t.Text) > wire.MaxReasonLen-64 {
		httpError(w, http.StatusBadRequest, fmt.Sprintf("seconds: 0 to %d; text: at most %d bytes", maxShutdown, wire.MaxReasonLen-64))
		return
	}
	s.shutMu.Lock()
	already := s.shutting
	s.shutting = true
	s.shutMu.Unlock()
	if already {
		httpError(w, http.StatusConflict, "a shutdown is already counting down")
		return
	}
	s.log.Info("admin: shutdown", "seconds", t.Seconds, "text", t.Text)
	s.wg.Go(func() { s.countdown(time.Duration(t.Seconds)*time.Second, t.Text) })
	writeJSON(w, map[string]any{"seconds": t.Seconds})
}

// countdownMarks are the seconds left at which players are told again.
var countdownMarks = []int{600, 300, 120, 60, 30, 10, 5, 4, 3, 2, 1}

// countdown tells every player how long is left, at the start and at
// every mark, then stops the server.
func (s *Server) countdown(d time.Duration, text string) {
	end := time.Now().Add(d)
	say := func(left int) {
		msg := fmt.Sprintf("The server shuts down in %d s.", left)
		if text != "" {
			msg += " " + text
		}
		ctx, cancel := context.WithTimeout(s.ctx, time.Second)
		_, _ = s.opt.Source.Notify(ctx, wire.Notice{Text: msg, Shutdown: uint32(left)})
		cancel()
	}
	left := int(d.Round(time.Second).Seconds())
	if left > 0 {
		say(left)
	}
	for _, m := range countdownMarks {
		if m >= left {
			continue
		}
		t := time.NewTimer(time.Until(end.Add(-time.Duration(m) * time.Second)))
		select {
		case <-s.ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		say(m)
	}
	t := time.NewTimer(time.Until(end))
	defer t.Stop()
	select {
	case <-s.ctx.Done():
		return
	case <-t.C:
	}
	if s.opt.Shutdown != nil {
		s.opt.Shutdown()
	}
}
