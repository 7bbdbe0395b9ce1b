package webmap

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// TokenFile is where the admin token is kept in the data directory.
const TokenFile = "admin-token"

// LoadOrCreateToken returns the admin token kept in dir, creating a
// random one on first start (created: the caller prints it once).
func LoadOrCreateToken(dir string) (token string, created bool, err error) {
	path := filepath.Join(dir, TokenFile)
	b, err := os.ReadFile(path)
	if err == nil {
		t := strings.TrimSpace(string(b))
		if err := CheckToken(t); err != nil {
			return "", false, fmt.Errorf("admin token in %s: %w (remove the file for a new one)", path, err)
		}
		return t, false, nil
	}
	if !errors.Is(err, os.ErrNotExist) {
		return "", false, fmt.Errorf("admin token: %w", err)
	}
	var raw [24]byte
	_, _ = rand.Read(raw[:])
	t := hex.EncodeToString(raw[:])
	if err := writeFileAtomic(path, []byte(t+"\n"), 0o600); err != nil {
		return "", false, fmt.Errorf("admin token: %w", err)
	}
	return t, true, nil
}

// CheckToken bounds a token given by flag or environment.
func CheckToken(t string) error {
	if len(t) < 16 || len(t) > 256 {
		return fmt.Errorf("an admin token is 16 to 256 characters, got %d", len(t))
	}
	for _, r := range t {
		if r <= ' ' || r > '~' {
			return errors.New("an admin token is printable ASCII without spaces")
		}
	}
	return nil
}

// failLimiter rate-limits wrong tokens per address: a burst of
// failBurst, then one more every failEvery; an address over it is
// answered 429 without its token being looked at. The table is bounded
// (maxFailAddrs; the stalest entry goes).
type failLimiter struct {
	mu   sync.Mutex
	now  func() time.Time
	addr map[netip.Prefix]*failBucket
}

type failBucket struct {
	n    float64
	last time.Time
}

const (
	failBurst    = 5
	failEvery    = 10 * time.Second
	maxFailAddrs = 4096
)

func newFailLimiter() *failLimiter {
	return &failLimiter{now: time.Now, addr: map[netip.Prefix]*failBucket{}}
}

// blocked reports whether key has used up its wrong tries.
func (l *failLimiter) blocked(key netip.Prefix) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.addr[key]
	if b == nil {
		return false
	}
	l.refill(b)
	return b.n < 1
}

// failed spends one of key's wrong tries.
func (l *failLimiter) failed(key netip.Prefix) {
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.addr[key]
	if b == nil {
		if len(l.addr) >= maxFailAddrs {
			var oldest netip.Prefix
			var at time.Time
			for k, v := range l.addr {
				if at.IsZero() || v.last.Before(at) {
					oldest, at = k, v.last
				}
			}
			delete(l.addr, oldest)
		}
		b = &failBucket{n: failBurst, last: l.now()}
		l.addr[key] = b
	}
	l.refill(b)
	b.n = max(0, b.n-1)
}

func (l *failLimiter) refill(b *failBucket) {
	now := l.now()
	b.n = min(failBurst, b.n+now.Sub(b.last).Seconds()/failEvery.Seconds())
	b.last = now
}

// remoteKey is the client's address, IPv6 by its /64 (one household).
func remoteKey(r *http.Request) (netip.Addr, netip.Prefix) {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return netip.Addr{}, netip.Prefix{}
	}
	ip = ip.Unmap()
	bits := 32
	if ip.Is6() {
		bits = 64
	}
	p, _ := ip.Prefix(bits)
	return ip, p
}

// admin wraps an admin handler: loopback only (or TLS with -web-public),
// the right token, wrong ones rate-limited.
func (s *Server) admin(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ip, key := remoteKey(r)
		if !ip.IsLoopback() {
			if !s.opt.Public {
				httpError(w, http.StatusForbidden, "admin requests are taken from this machine only; start the server with -web-public to allow others (over TLS)")
				return
			}
			if r.TLS == nil {
				httpError(w, http.StatusForbidden, "admin requests from other machines need TLS")
				return
			}
		}
		if s.limit.blocked(key) {
			w.Header().Set("Retry-After", fmt.Sprint(int(failEvery.Seconds())))
			httpError(w, http.StatusTooManyRequests, "too many wrong admin tokens from your address; wait and try again")
			return
		}
		got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok || subtle.ConstantTimeCompare([]byte(got), []byte(s.opt.Token)) != 1 {
			s.limit.failed(key)
			w.Header().Set("WWW-Authenticate", `Bearer realm="citydrive admin"`)
			httpError(w, http.StatusUnauthorized, "wrong or missing admin token (Authorization: Bearer TOKEN; the token is in the data directory's admin-token file)")
			return
		}
		h(w, r)
	}
}
