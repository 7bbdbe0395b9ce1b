package wire

import (
	"math"
	"unicode/utf8"

	"github.com/vmihailenco/msgpack/v5"
)

// Join (protocol 7) follows the Hello on the control stream: who the
// player is and what they know. Hello keeps its layout across versions
// (so a version mismatch can always be explained), which is why these
// ride in a message of their own. The server reads it only when the
// versions match, and checks bans, the allow-list and the join password
// against it before the Welcome.
type Join struct {
	Key      uint64 // the player key (netsync.Identity), stable across reconnects
	Name     string // shown on the server's map; at most MaxNameLen bytes of UTF-8
	Password string // the server's join password, or empty; at most MaxPasswordLen bytes
}

const (
	// MaxNameLen bounds a player's name.
	MaxNameLen = 32
	// MaxPasswordLen bounds a join password.
	MaxPasswordLen = 128
)

func (*Join) Kind() Kind      { return KindJoin }
func (*Join) fieldCount() int { return 3 }

func (m *Join) encodeFields(e *msgpack.Encoder) error {
	if err := e.EncodeUint(m.Key); err != nil {
		return err
	}
	if err := e.EncodeString(clip(m.Name, MaxNameLen)); err != nil {
		return err
	}
	return e.EncodeString(clip(m.Password, MaxPasswordLen))
}

func (m *Join) decodeFields(r *reader) (err error) {
	if m.Key, err = r.uint("key", math.MaxUint64); err != nil {
		return err
	}
	if m.Name, err = r.text("name", MaxNameLen); err != nil {
		return err
	}
	m.Password, err = r.text("password", MaxPasswordLen)
	return err
}

// clip cuts s to at most n bytes without splitting a rune, after replacing
// invalid UTF-8, so that what is encoded always decodes.
func clip(s string, n int) string {
	if utf8.ValidString(s) && len(s) <= n {
		return s
	}
	s = toValidUTF8(s)
	if len(s) > n {
		s = s[:n]
		for !utf8.ValidString(s) {
			s = s[:len(s)-1]
		}
	}
	return s
}

// text reads a UTF-8 string of at most max bytes.
func (r *reader) text(field string, max int) (string, error) {
	b, err := r.raw(field, true, max)
	if err != nil {
		return "", err
	}
	if !utf8.Valid(b) {
		return "", malformed("%s: invalid UTF-8", field)
	}
	return string(b), nil
}
