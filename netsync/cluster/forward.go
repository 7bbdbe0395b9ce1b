package cluster

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"

	"citydrive/voxel"
)

// Edit forwarding: a server holding an edit of a region another server
// owns sends it to the owner over NATS request/reply
// (<prefix>.edit.<slot>) instead of refusing it: players near a border
// edit the neighbour's chunks all the time, and during a handover a
// player's edits may reach its old server. The owner commits it like its
// own and answers with the revision; the sender acknowledges once its own
// watch shows that revision, as for its own commits. An owner that no
// longer owns the region says so and the sender looks again (it never
// forwards a forwarded edit: two servers swapping a region must not wait
// on each other).

// Request: version, player key, sequence, chunk x y z, block index, block.
const (
	fwdVersion  = 1
	fwdReqSize  = 1 + 8 + 4 + 3*4 + 2 + 1
	maxReason   = 255
	fwdReplyMin = 1 + 8 + 1
)

// Reply statuses.
const (
	fwdStored  byte = iota // rev is the edit's revision
	fwdApplied             // stored before (a retry)
	fwdNotOwner
	fwdFailed // reason says why
)

var errNotOwner = errors.New("this server does not own that region")

func encodeForward(r request) []byte {
	b := make([]byte, 0, fwdReqSize)
	b = append(b, fwdVersion)
	b = binary.BigEndian.AppendUint64(b, r.player)
	b = binary.BigEndian.AppendUint32(b, r.seq)
	for _, v := range [...]int32{r.e.Pos.X, r.e.Pos.Y, r.e.Pos.Z} {
		b = binary.BigEndian.AppendUint32(b, uint32(v))
	}
	b = binary.BigEndian.AppendUint16(b, r.e.Index)
	return append(b, byte(r.e.Block))
}

// decodeForward parses a forwarded edit (from another server: checked
// like a player's, by e.Check, before it is queued).
func decodeForward(b []byte) (request, error) {
	if len(b) != fwdReqSize || b[0] != fwdVersion {
		return request{}, fmt.Errorf("cluster: forwarded edit of %d bytes (version %d): want %d bytes, version %d", len(b), first(b), fwdReqSize, fwdVersion)
	}
	r := request{player: binary.BigEndian.Uint64(b[1:]), seq: binary.BigEndian.Uint32(b[9:])}
	r.e.Pos = voxel.ChunkPos{X: int32(binary.BigEndian.Uint32(b[13:])), Y: int32(binary.BigEndian.Uint32(b[17:])), Z: int32(binary.BigEndian.Uint32(b[21:]))}
	r.e.Index = binary.BigEndian.Uint16(b[25:])
	r.e.Block = voxel.Block(b[27])
	return r, r.e.Check()
}

func first(b []byte) int {
	if len(b) == 0 {
		return -1
	}
	return int(b[0])
}

func encodeReply(status byte, rev uint64, reason string) []byte {
	if len(reason) > maxReason {
		reason = reason[:maxReason]
	}
	b := make([]byte, 0, fwdReplyMin+len(reason))
	b = append(b, status)
	b = binary.BigEndian.AppendUint64(b, rev)
	b = append(b, byte(len(reason)))
	return append(b, reason...)
}

func decodeReply(b []byte) (status byte, rev uint64, reason string, err error) {
	if len(b) < fwdReplyMin || len(b) != fwdReplyMin+int(b[9]) || b[0] > fwdFailed {
		return 0, 0, "", fmt.Errorf("cluster: malformed forwarding reply of %d bytes", len(b))
	}
	return b[0], binary.BigEndian.Uint64(b[1:]), string(b[10:]), nil
}

// forwarder sends edits to their region's owner and takes the ones sent
// to this server.
type forwarder struct {
	nc      *nats.Conn
	prefix  string
	w       *World
	timeout time.Duration
	sub     *nats.Subscription
}

func newForwarder(nc *nats.Conn, prefix string, w *World) (*forwarder, error) {
	f := &forwarder{nc: nc, prefix: prefix, w: w, timeout: w.opt.OpTimeout + time.Second}
	sub, err := nc.Subscribe(editSubject(prefix, w.self), f.handle)
	if err != nil {
		return nil, fmt.Errorf("cluster: taking forwarded edits: %w", err)
	}
	f.sub = sub
	return f, nil
}

func (f *forwarder) close() { _ = f.sub.Unsubscribe() }

// forward sends r to server slot. again: look for the owner once more.
func (f *forwarder) forward(ctx context.Context, slot uint32, r request) (rev uint64, err error, again bool) {
	if r.reply != nil {
		return 0, errNotOwner, false // forwarded to us: the sender looks again
	}
	ctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	m, err := f.nc.RequestWithContext(ctx, editSubject(f.prefix, slot), encodeForward(r))
	if err != nil {
		// No answer (the owner died or is slow): the stamp makes a
		// second try harmless if the first was stored.
		return 0, fmt.Errorf("the server owning this region did not answer: %w", err), true
	}
	status, rev, reason, err := decodeReply(m.Data)
	switch {
	case err != nil:
		return 0, err, true
	case status == fwdStored:
		return rev, nil, false
	case status == fwdApplied:
		return 0, nil, false
	case status == fwdNotOwner:
		return 0, errNotOwner, true
	}
	return 0, errors.New(reason), false
}

// handle takes one forwarded edit (hostile until decoded: a bad one is
// answered as refused, never queued).
func (f *forwarder) handle(m *nats.Msg) {
	respond := func(status byte, rev uint64, reason string) {
		if m.Reply != "" {
			_ = m.Respond(encodeReply(status, rev, reason))
		}
	}
	r, err := decodeForward(m.Data)
	if err != nil {
		respond(fwdFailed, 0, err.Error())
		return
	}
	if slot, ok := f.w.dir.OwnerSlot(RegionOf(r.e.Pos)); !ok || slot != f.w.self {
		respond(fwdNotOwner, 0, "")
		return
	}
	// The sender waits f.timeout (the same on every server) from about
	// now: past that the owner works on it no longer (World.commit).
	r.until = time.Now().Add(f.timeout)
	r.reply = func(rev uint64, err error) {
		switch {
		case errors.Is(err, errNotOwner):
			respond(fwdNotOwner, 0, "")
		case err != nil:
			respond(fwdFailed, 0, err.Error()) // the sender says "not saved"
		case rev == 0:
			respond(fwdApplied, 0, "")
		default:
			respond(fwdStored, rev, "")
		}
	}
	if err := f.w.enqueue(r); err != nil {
		respond(fwdFailed, 0, err.Error())
	}
}
