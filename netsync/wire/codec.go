package wire

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/vmihailenco/msgpack/v5"
	"github.com/vmihailenco/msgpack/v5/msgpcode"

	"citydrive/voxel"
)

// Kind tags a framed message. The numbers are part of the wire format.
// Hello, Welcome and Refuse keep their kind and layout across protocol
// versions so that a version mismatch can always be explained to the player.
type Kind uint8

const (
	KindHello     Kind = 1
	KindWelcome   Kind = 2
	KindRefuse    Kind = 3
	KindJoin      Kind = 4 // protocol 7: follows Hello when the versions match
	KindSubscribe Kind = 10
	// 11 was ChunkDefault (protocol 1); retired, never reused.
	KindChunkEdits    Kind = 12
	KindChunkDrop     Kind = 13
	KindChunkDefaults Kind = 14
	KindEditRequest   Kind = 20
	KindEditAck       Kind = 21
	KindEditReject    Kind = 22
	KindEditBroadcast Kind = 23
	KindTickRate      Kind = 30 // protocol 3
	KindClock         Kind = 31 // protocol 5
	KindReset         Kind = 32 // protocol 6
	KindPose          Kind = 33 // protocol 6
	KindNotice        Kind = 34 // protocol 7
	KindOwners        Kind = 35 // protocol 8
	KindHandover      Kind = 36 // protocol 8
)

func (k Kind) String() string {
	switch k {
	case KindHello:
		return "Hello"
	case KindWelcome:
		return "Welcome"
	case KindRefuse:
		return "Refuse"
	case KindSubscribe:
		return "Subscribe"
	case KindChunkDefaults:
		return "ChunkDefaults"
	case KindChunkEdits:
		return "ChunkEdits"
	case KindChunkDrop:
		return "ChunkDrop"
	case KindEditRequest:
		return "EditRequest"
	case KindEditAck:
		return "EditAck"
	case KindEditReject:
		return "EditReject"
	case KindEditBroadcast:
		return "EditBroadcast"
	case KindTickRate:
		return "TickRate"
	case KindClock:
		return "Clock"
	case KindReset:
		return "Reset"
	case KindPose:
		return "Pose"
	case KindJoin:
		return "Join"
	case KindNotice:
		return "Notice"
	case KindOwners:
		return "Owners"
	case KindHandover:
		return "Handover"
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// Message is one framed wire message. The set of implementations is closed.
type Message interface {
	Kind() Kind
	fieldCount() int
	encodeFields(e *msgpack.Encoder) error
	decodeFields(r *reader) error
}

func newMessage(k Kind) Message {
	switch k {
	case KindHello:
		return new(Hello)
	case KindWelcome:
		return new(Welcome)
	case KindRefuse:
		return new(Refuse)
	case KindSubscribe:
		return new(Subscribe)
	case KindChunkDefaults:
		return new(ChunkDefaults)
	case KindChunkEdits:
		return new(ChunkEdits)
	case KindChunkDrop:
		return new(ChunkDrop)
	case KindEditRequest:
		return new(EditRequest)
	case KindEditAck:
		return new(EditAck)
	case KindEditReject:
		return new(EditReject)
	case KindEditBroadcast:
		return new(EditBroadcast)
	case KindTickRate:
		return new(TickRate)
	case KindClock:
		return new(Clock)
	case KindReset:
		return new(Reset)
	case KindPose:
		return new(Pose)
	case KindJoin:
		return new(Join)
	case KindNotice:
		return new(Notice)
	case KindOwners:
		return new(Owners)
	case KindHandover:
		return new(Handover)
	}
	return nil
}

// ErrMalformed is wrapped by every decoding error: the input is not a valid
// message (bad structure, bad length, out-of-range value, trailing bytes).
var ErrMalformed = errors.New("wire: malformed message")

func malformed(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrMalformed, fmt.Sprintf(format, args...))
}

// Decoder decodes messages under fixed Limits, reusing its state. It is not
// safe for concurrent use.
type Decoder struct {
	lim Limits
	r   reader
}

// NewDecoder returns a Decoder enforcing lim.
func NewDecoder(lim Limits) *Decoder {
	d := &Decoder{lim: lim}
	d.r.dec = msgpack.NewDecoder(&d.r.br)
	d.r.lim = &d.lim
	return d
}

// Decode is a convenience for NewDecoder(lim).Decode(payload).
func Decode(payload []byte, lim Limits) (Message, error) {
	return NewDecoder(lim).Decode(payload)
}

// Decode decodes exactly one message from payload (a frame without its
// length prefix). The result does not alias payload.
func (d *Decoder) Decode(payload []byte) (Message, error) {
	r := &d.r
	r.reset(payload)
	c, err := r.dec.PeekCode()
	if err != nil {
		return nil, malformed("empty message")
	}
	if !msgpcode.IsFixedArray(c) && c != msgpcode.Array16 && c != msgpcode.Array32 {
		return nil, malformed("message is not an array (code %#x)", c)
	}
	n, err := r.dec.DecodeArrayLen()
	if err != nil {
		return nil, malformed("array header: %v", err)
	}
	k, err := r.uint("kind", math.MaxUint8)
	if err != nil {
		return nil, err
	}
	m := newMessage(Kind(k))
	if m == nil {
		return nil, malformed("unknown message kind %d", k)
	}
	r.fields = n - 1
	if n != 1+m.fieldCount() && !(m.Kind() == KindWelcome && (n-1 == welcomeFieldsV3 || n-1 == welcomeFieldsV6)) {
		return nil, malformed("%v: %d elements, want %d", m.Kind(), n, 1+m.fieldCount())
	}
	if err := m.decodeFields(r); err != nil {
		return nil, fmt.Errorf("%v: %w", m.Kind(), err)
	}
	if rest := r.br.Len(); rest != 0 {
		return nil, malformed("%v: %d trailing bytes", m.Kind(), rest)
	}
	return m, nil
}

// reader wraps msgpack.Decoder's primitive methods with the bounds and range
// checks the message decoders need. It never calls a msgpack method that
// allocates by a declared length.
type reader struct {
	buf []byte
	br  bytes.Reader
	dec *msgpack.Decoder
	lim *Limits
	// fields is the message's element count after its kind (a Welcome
	// from before protocol 5 or 7 has fewer).
	fields int
}

func (r *reader) reset(b []byte) {
	r.buf = b
	r.br.Reset(b)
	r.dec.ResetReader(&r.br)
}

func isUintCode(c byte) bool {
	return c <= msgpcode.PosFixedNumHigh || c == msgpcode.Uint8 || c == msgpcode.Uint16 ||
		c == msgpcode.Uint32 || c == msgpcode.Uint64
}

func isIntCode(c byte) bool {
	return c >= msgpcode.NegFixedNumLow || c == msgpcode.Int8 || c == msgpcode.Int16 ||
		c == msgpcode.Int32 || c == msgpcode.Int64
}

// uint reads an integer in [0, max].
func (r *reader) uint(field string, max uint64) (uint64, error) {
	c, err := r.dec.PeekCode()
	if err != nil {
		return 0, malformed("%s: missing", field)
	}
	var v uint64
	switch {
	case isUintCode(c):
		v, err = r.dec.DecodeUint64()
	case isIntCode(c):
		var s int64
		s, err = r.dec.DecodeInt64()
		if err == nil && s < 0 {
			return 0, malformed("%s: %d is negative", field, s)
		}
		v = uint64(s)
	default:
		return 0, malformed("%s: not an integer (code %#x)", field, c)
	}
	if err != nil {
		return 0, malformed("%s: %v", field, err)
	}
	if v > max {
		return 0, malformed("%s: %d out of range [0, %d]", field, v, max)
	}
	return v, nil
}

// int reads an integer in [min, max].
func (r *reader) int(field string, min, max int64) (int64, error) {
	c, err := r.dec.PeekCode()
	if err != nil {
		return 0, malformed("%s: missing", field)
	}
	var v int64
	switch {
	case isUintCode(c):
		var u uint64
		u, err = r.dec.DecodeUint64()
		if err == nil && u > math.MaxInt64 {
			return 0, malformed("%s: %d out of range", field, u)
		}
		v = int64(u)
	case isIntCode(c):
		v, err = r.dec.DecodeInt64()
	default:
		return 0, malformed("%s: not an integer (code %#x)", field, c)
	}
	if err != nil {
		return 0, malformed("%s: %v", field, err)
	}
	if v < min || v > max {
		return 0, malformed("%s: %d out of range [%d, %d]", field, v, min, max)
	}
	return v, nil
}

func (r *reader) u32(field string) (uint32, error) {
	v, err := r.uint(field, math.MaxUint32)
	return uint32(v), err
}

func (r *reader) i32(field string) (int32, error) {
	v, err := r.int(field, math.MinInt32, math.MaxInt32)
	return int32(v), err
}

func (r *reader) pos() (voxel.ChunkPos, error) {
	var p voxel.ChunkPos
	var err error
	if p.X, err = r.i32("pos.x"); err != nil {
		return p, err
	}
	if p.Y, err = r.i32("pos.y"); err != nil {
		return p, err
	}
	p.Z, err = r.i32("pos.z")
	return p, err
}

func (r *reader) index() (uint16, error) {
	v, err := r.uint("index", voxel.ChunkVolume-1)
	return uint16(v), err
}

func (r *reader) block() (voxel.Block, error) {
	v, err := r.uint("block", uint64(r.lim.MaxBlock))
	return voxel.Block(v), err
}

// raw reads a str (wantStr) or bin header, checks its length against max
// and against the bytes actually left, and returns the body as a sub-slice
// of the input without copying or allocating.
func (r *reader) raw(field string, wantStr bool, max int) ([]byte, error) {
	c, err := r.dec.PeekCode()
	if err != nil {
		return nil, malformed("%s: missing", field)
	}
	if wantStr && !msgpcode.IsString(c) || !wantStr && !msgpcode.IsBin(c) {
		return nil, malformed("%s: wrong type (code %#x)", field, c)
	}
	n, err := r.dec.DecodeBytesLen()
	if err != nil {
		return nil, malformed("%s: %v", field, err)
	}
	if n < 0 || n > max {
		return nil, malformed("%s: length %d exceeds %d", field, n, max)
	}
	if n > r.br.Len() {
		return nil, malformed("%s: length %d but only %d bytes left", field, n, r.br.Len())
	}
	off := len(r.buf) - r.br.Len()
	if _, err := r.br.Seek(int64(n), io.SeekCurrent); err != nil {
		return nil, malformed("%s: %v", field, err)
	}
	return r.buf[off : off+n], nil
}

func (r *reader) reason() (string, error) {
	b, err := r.raw("reason", true, MaxReasonLen)
	if err != nil {
		return "", err
	}
	if !utf8.Valid(b) {
		return "", malformed("reason: invalid UTF-8")
	}
	return string(b), nil
}

// Encoder encodes messages, reusing its msgpack encoder. It is not safe for
// concurrent use.
type Encoder struct {
	w   sliceWriter
	enc *msgpack.Encoder
}

// NewEncoder returns an Encoder.
func NewEncoder() *Encoder {
	e := &Encoder{}
	e.enc = msgpack.NewEncoder(&e.w)
	return e
}

// Append appends the msgpack encoding of m (no length prefix) to dst.
func (e *Encoder) Append(dst []byte, m Message) ([]byte, error) {
	e.w.b = dst
	defer func() { e.w.b = nil }()
	if err := e.enc.EncodeArrayLen(1 + m.fieldCount()); err != nil {
		return dst, err
	}
	if err := e.enc.EncodeUint(uint64(m.Kind())); err != nil {
		return dst, err
	}
	if err := m.encodeFields(e.enc); err != nil {
		return dst, fmt.Errorf("wire: encode %v: %w", m.Kind(), err)
	}
	return e.w.b, nil
}

// AppendFrame appends a complete frame (length prefix and message) to dst.
// It fails if the message is longer than maxPayload.
func (e *Encoder) AppendFrame(dst []byte, m Message, maxPayload int) ([]byte, error) {
	start := len(dst)
	dst = append(dst, 0, 0, 0, 0)
	out, err := e.Append(dst, m)
	if err != nil {
		return dst[:start], err
	}
	n := len(out) - start - HeaderSize
	if n > maxPayload {
		return dst[:start], fmt.Errorf("%w: %v is %d bytes, cap %d", ErrFrameTooLarge, m.Kind(), n, maxPayload)
	}
	putHeader(out[start:], n)
	return out, nil
}

// Encode returns the msgpack encoding of m (no length prefix).
func Encode(m Message) ([]byte, error) { return NewEncoder().Append(nil, m) }

type sliceWriter struct{ b []byte }

func (w *sliceWriter) Write(p []byte) (int, error) { w.b = append(w.b, p...); return len(p), nil }
func (w *sliceWriter) WriteByte(c byte) error      { w.b = append(w.b, c); return nil }

func encodePos(e *msgpack.Encoder, p voxel.ChunkPos) error {
	if err := e.EncodeInt(int64(p.X)); err != nil {
		return err
	}
	if err := e.EncodeInt(int64(p.Y)); err != nil {
		return err
	}
	return e.EncodeInt(int64(p.Z))
}

func encodeReason(e *msgpack.Encoder, s string) error {
	return e.EncodeString(clip(s, MaxReasonLen))
}

func toValidUTF8(s string) string { return strings.ToValidUTF8(s, "?") }
