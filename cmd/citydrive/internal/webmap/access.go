package webmap

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"citydrive/netsync/cluster"
	"citydrive/netsync/wire"
)

// AccessFile is where a server's access rules are kept in its data
// directory. They are the server's, not a world's (the edit store is one
// per seed), so they live beside the server identity rather than in a
// world's store.
const AccessFile = "access.json"

// maxAccessEntries bounds the ban and allow lists (and so the file).
const maxAccessEntries = 100_000

// Ban is one banned player key.
type Ban struct {
	Reason string    `json:"reason"`
	At     time.Time `json:"at"`
}

// accessRules is the persisted form.
type accessRules struct {
	Bans      map[string]Ban `json:"bans"`  // by key, as 16 hex digits
	Allow     []string       `json:"allow"` // keys, 16 hex digits
	AllowOnly bool           `json:"allow_only"`
	// PasswordHash is the SHA-256 of the join password (hex), empty for
	// none: the file never holds the password itself.
	PasswordHash string `json:"password_sha256,omitempty"`
}

// Access is the operator's rule for who may join: bans by player key, an
// allow-list mode and a join password. It is the server's netsync.Gate;
// every change is written to the data directory before it takes effect
// (a ban survives a restart). Safe for concurrent use.
type Access struct {
	path   string
	shared *cluster.Rules // in a cluster: the rules are its, path unused
	log    *slog.Logger

	mu    sync.Mutex
	rules accessRules
	bans  map[uint64]Ban
	allow map[uint64]bool
	pass  [32]byte // SHA-256 of the password
	hasPw bool
	onBan func(key uint64, reason string) // shared rules: a new ban taken in
}

// OpenAccess loads the rules from dir (none yet: everyone may join).
func OpenAccess(dir string) (*Access, error) {
	a := &Access{path: filepath.Join(dir, AccessFile), bans: map[uint64]Ban{}, allow: map[uint64]bool{}}
	b, err := os.ReadFile(a.path)
	if errors.Is(err, os.ErrNotExist) {
		return a, nil
	}
	if err != nil {
		return nil, fmt.Errorf("access rules: %w", err)
	}
	var r accessRules
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("access rules in %s are damaged (%v): fix or remove the file", a.path, err)
	}
	if len(r.Bans) > maxAccessEntries || len(r.Allow) > maxAccessEntries {
		return nil, fmt.Errorf("access rules in %s: more than %d entries", a.path, maxAccessEntries)
	}
	for k, ban := range r.Bans {
		key, err := ParseKey(k)
		if err != nil {
			return nil, fmt.Errorf("access rules in %s: ban %q: %v", a.path, k, err)
		}
		a.bans[key] = ban
	}
	for _, k := range r.Allow {
		key, err := ParseKey(k)
		if err != nil {
			return nil, fmt.Errorf("access rules in %s: allow %q: %v", a.path, k, err)
		}
		a.allow[key] = true
	}
	if r.PasswordHash != "" {
		h, err := hex.DecodeString(r.PasswordHash)
		if err != nil || len(h) != len(a.pass) {
			return nil, fmt.Errorf("access rules in %s: password_sha256 is not 64 hex digits", a.path)
		}
		copy(a.pass[:], h)
		a.hasPw = true
	}
	a.rules = r
	return a, nil
}

// FormatKey writes a player key as the admin API and the files spell it.
func FormatKey(k uint64) string { return fmt.Sprintf("%016x", k) }

// ParseKey reads a key written by FormatKey (16 hex digits).
func ParseKey(s string) (uint64, error) {
	if len(s) != 16 {
		return 0, fmt.Errorf("a player key is 16 hex digits, got %q", s)
	}
	return strconv.ParseUint(s, 16, 64)
}

// Admit implements netsync.Gate.
func (a *Access) Admit(key uint64, _, password string) string {
	a.mu.Lock()
	defer a.mu.Unlock()
	if ban, ok := a.bans[key]; ok {
		if ban.Reason != "" {
			return "you are banned from this server: " + ban.Reason
		}
		return "you are banned from this server"
	}
	if a.rules.AllowOnly && !a.allow[key] {
		return fmt.Sprintf("this server admits only the players on its allow-list; ask its operator to add your player key %s", FormatKey(key))
	}
	if a.hasPw {
		h := sha256.Sum256([]byte(password))
		if subtle.ConstantTimeCompare(h[:], a.pass[:]) != 1 {
			if password == "" {
				return "this server needs a join password: ask its operator, and join with -password"
			}
			return "wrong join password: ask the server's operator for it"
		}
	}
	return ""
}

// Banned reports whether key is banned.
func (a *Access) Banned(key uint64) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	_, ok := a.bans[key]
	return ok
}

// AccessState is the rules as the admin API shows them.
type AccessState struct {
	Bans      map[string]Ban `json:"bans"`
	Allow     []string       `json:"allow"`
	AllowOnly bool           `json:"allow_only"`
	Password  bool           `json:"password"` // whether one is set
}

// State is a copy of the rules.
func (a *Access) State() AccessState {
	a.mu.Lock()
	defer a.mu.Unlock()
	s := AccessState{Bans: map[string]Ban{}, Allow: []string{}, AllowOnly: a.rules.AllowOnly, Password: a.hasPw}
	for k, b := range a.bans {
		s.Bans[FormatKey(k)] = b
	}
	for k := range a.allow {
		s.Allow = append(s.Allow, FormatKey(k))
	}
	slices.Sort(s.Allow)
	return s
}

// Ban bans key (the caller kicks it).
func (a *Access) Ban(key uint64, reason string, now time.Time) error {
	ban := Ban{Reason: clipText(reason, wire.MaxReasonLen-64), At: now.UTC()}
	full := func() error {
		if _, ok := a.bans[key]; !ok && len(a.bans) >= maxAccessEntries {
			return fmt.Errorf("the ban list is full (%d keys)", maxAccessEntries)
		}
		return nil
	}
	if a.shared != nil {
		v, err := json.Marshal(ban)
		if err != nil {
			return err
		}
		return a.put(full, banRule+FormatKey(key), v)
	}
	return a.change(func() error {
		if err := full(); err != nil {
			return err
		}
		a.bans[key] = ban
		return nil
	})
}

// Unban lifts key's ban.
func (a *Access) Unban(key uint64) error {
	if a.shared != nil {
		return a.put(nil, banRule+FormatKey(key), nil)
	}
	return a.change(func() error { delete(a.bans, key); return nil })
}

// Allow adds key to the allow-list (or removes it).
func (a *Access) Allow(key uint64, on bool) error {
	full := func() error {
		if on && !a.allow[key] && len(a.allow) >= maxAccessEntries {
			return fmt.Errorf("the allow-list is full (%d keys)", maxAccessEntries)
		}
		return nil
	}
	if a.shared != nil {
		return a.put(full, allowRule+FormatKey(key), flag(on))
	}
	return a.change(func() error {
		if err := full(); err != nil {
			return err
		}
		if on {
			a.allow[key] = true
		} else {
			delete(a.allow, key)
		}
		return nil
	})
}

// SetAllowOnly turns allow-list mode on or off.
func (a *Access) SetAllowOnly(on bool) error {
	if a.shared != nil {
		return a.put(nil, allowOnlyRule, flag(on))
	}
	return a.change(func() error { a.rules.AllowOnly = on; return nil })
}

// SetPassword sets the join password ("" removes it). Players connected
// already stay.
func (a *Access) SetPassword(pw string) error {
	if len(pw) > wire.MaxPasswordLen {
		return fmt.Errorf("a join password is at most %d bytes", wire.MaxPasswordLen)
	}
	if a.shared != nil {
		var v []byte
		if pw != "" {
			h := sha256.Sum256([]byte(pw))
			v = []byte(hex.EncodeToString(h[:]))
		}
		return a.put(nil, passwordRule, v)
	}
	return a.change(func() error {
		a.hasPw = pw != ""
		a.pass = sha256.Sum256([]byte(pw))
		return nil
	})
}

// The rules' keys in a cluster's shared rules (cluster.Rules): one key a
// rule, so servers changing different rules never conflict; an empty
// value is no rule.
//
//	ban.<key>        a Ban, as JSON
//	allow.<key>      "1": on the allow-list
//	allow_only       "1": allow-list mode
//	password_sha256  the join password's SHA-256, 64 hex digits
const (
	banRule       = "ban."
	allowRule     = "allow."
	allowOnlyRule = "allow_only"
	passwordRule  = "password_sha256"
)

// flag is a boolean rule's value (false: none).
func flag(on bool) []byte {
	if on {
		return []byte("1")
	}
	return nil
}

// OpenSharedAccess is the Access of a server in a cluster: the rules are
// the cluster's (its access bucket), so a ban on one server holds on all
// of them and outlives them; the data directory's access.json is not
// used. Every change returns once this server enforces it; another
// server enforces it once its watch of the bucket has it (milliseconds).
func OpenSharedAccess(shared *cluster.Rules, log *slog.Logger) *Access {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	a := &Access{shared: shared, log: log, bans: map[uint64]Ban{}, allow: map[uint64]bool{}}
	shared.Watch(a.apply)
	return a
}

// apply takes one shared rule (value nil: removed) into the rules
// enforced; one that does not parse is logged and ignored.
func (a *Access) apply(k string, v []byte) {
	a.mu.Lock()
	kick := a.applyLocked(k, v)
	a.mu.Unlock()
	if kick != nil { // outside a.mu: the kick takes the server's locks
		kick()
	}
}

// applyLocked is apply under a.mu; it returns the kick a new ban calls
// for (nil: none).
func (a *Access) applyLocked(k string, v []byte) (kick func()) {
	bad := func(err error) { a.log.Warn("a shared access rule does not parse; ignored", "rule", k, "err", err) }
	switch {
	case strings.HasPrefix(k, banRule):
		key, err := ParseKey(k[len(banRule):])
		if err != nil {
			bad(err)
			return nil
		}
		if v == nil {
			delete(a.bans, key)
			return nil
		}
		var ban Ban
		if err := json.Unmarshal(v, &ban); err != nil {
			bad(err)
			return nil
		}
		_, had := a.bans[key]
		a.bans[key] = ban
		if f := a.onBan; f != nil && !had {
			return func() { f(key, ban.Reason) }
		}
	case strings.HasPrefix(k, allowRule):
		key, err := ParseKey(k[len(allowRule):])
		if err != nil {
			bad(err)
			return nil
		}
		if v == nil {
			delete(a.allow, key)
		} else {
			a.allow[key] = true
		}
	case k == allowOnlyRule:
		a.rules.AllowOnly = v != nil
	case k == passwordRule:
		if v == nil {
			a.hasPw, a.pass = false, [32]byte{}
			return nil
		}
		h, err := hex.DecodeString(string(v))
		if err != nil || len(h) != len(a.pass) {
			bad(errors.New("not 64 hex digits"))
			return nil
		}
		copy(a.pass[:], h)
		a.hasPw = true
	default:
		bad(errors.New("unknown rule"))
	}
	return nil
}

// Kicker is what KickBanned kicks with (*netsync.Server).
type Kicker interface {
	Kick(key uint64, reason string) int
}

// KickBanned makes a cluster server kick its players whose key another
// server bans (the server that bans kicks its own), as the ban reaches
// it. On a single server it does nothing: its bans are its own.
func (a *Access) KickBanned(k Kicker, log *slog.Logger) {
	if a.shared == nil {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.onBan = func(key uint64, reason string) {
		if n := k.Kick(key, removedWhy("banned", reason)); n > 0 && log != nil {
			log.Info("kicked a player another server of the cluster banned", "key", FormatKey(key), "kicked", n, "reason", reason)
		}
	}
}

// removedWhy is what a player removed by the operator (done: kicked,
// banned) is told, with the operator's reason when there is one.
func removedWhy(done, reason string) string {
	msg := done + " by the server's operator"
	if reason != "" {
		msg += ": " + reason
	}
	return msg
}

// put writes one shared rule, if check (under the lock; nil: none) lets
// it; it returns once this server enforces it.
func (a *Access) put(check func() error, k string, v []byte) error {
	if check != nil {
		a.mu.Lock()
		err := check()
		a.mu.Unlock()
		if err != nil {
			return err
		}
	}
	if err := a.shared.Put(context.Background(), k, v); err != nil {
		return fmt.Errorf("saving the access rules in the cluster: %w", err)
	}
	return nil
}

// Sync returns once this server enforces every change made so far on
// any server of its cluster (at once on a single server).
func (a *Access) Sync(ctx context.Context) error {
	if a.shared == nil {
		return nil
	}
	return a.shared.Sync(ctx)
}

// Shared reports whether the rules are a cluster's.
func (a *Access) Shared() bool { return a.shared != nil }

// change applies f and writes the rules; if the write fails the change
// is undone, so what is enforced is always what is on disk.
func (a *Access) change(f func() error) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	saved := a.snapshot()
	if err := f(); err != nil {
		return err
	}
	if err := a.write(); err != nil {
		a.restore(saved)
		return err
	}
	return nil
}

type accessSnapshot struct {
	rules accessRules
	bans  map[uint64]Ban
	allow map[uint64]bool
	pass  [32]byte
	hasPw bool
}

func (a *Access) snapshot() accessSnapshot {
	s := accessSnapshot{rules: a.rules, bans: map[uint64]Ban{}, allow: map[uint64]bool{}, pass: a.pass, hasPw: a.hasPw}
	for k, v := range a.bans {
		s.bans[k] = v
	}
	for k, v := range a.allow {
		s.allow[k] = v
	}
	return s
}

func (a *Access) restore(s accessSnapshot) {
	a.rules, a.bans, a.allow, a.pass, a.hasPw = s.rules, s.bans, s.allow, s.pass, s.hasPw
}

// write saves the rules atomically: a temporary file, synced, renamed
// over the old one, and the directory synced.
func (a *Access) write() error {
	r := accessRules{Bans: map[string]Ban{}, Allow: []string{}, AllowOnly: a.rules.AllowOnly}
	for k, b := range a.bans {
		r.Bans[FormatKey(k)] = b
	}
	for k := range a.allow {
		r.Allow = append(r.Allow, FormatKey(k))
	}
	slices.Sort(r.Allow)
	if a.hasPw {
		r.PasswordHash = fmt.Sprintf("%x", a.pass)
	}
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := writeFileAtomic(a.path, append(b, '\n'), 0o600); err != nil {
		return fmt.Errorf("saving the access rules: %w", err)
	}
	a.rules = r
	return nil
}

func writeFileAtomic(path string, b []byte, mode os.FileMode) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(b)
	if err == nil {
		err = f.Chmod(mode)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		_ = os.Remove(tmp)
		return err
	}
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
	return nil
}

// clipText cuts s to at most n bytes of valid UTF-8.
func clipText(s string, n int) string {
	s = strings.ToValidUTF8(s, "?")
	if len(s) > n {
		s = s[:n]
		for !utf8.ValidString(s) {
			s = s[:len(s)-1]
		}
	}
	return s
}
