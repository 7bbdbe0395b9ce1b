package render

import (
	"fmt"

	"github.com/go-gl/gl/v4.1-core/gl"

	"citydrive/slots"
)

// The Renderer is the slot table's vertex buffer in the game.
var _ slots.Sink = (*Renderer)(nil)

// Upload writes the first count vertices of verts into slot's range of the
// vertex buffer (only the used part, with one glBufferSubData). A count
// over the slot's capacity or past the end of verts is an error, never a
// silent cut: nothing is written then.
func (r *Renderer) Upload(slot int, verts []uint32, count int) error {
	if slot < 0 || slot >= r.opt.Layout.Near.Slots {
		return fmt.Errorf("render: upload to slot %d out of range [0, %d)", slot, r.opt.Layout.Near.Slots)
	}
	if count < 0 || count > r.opt.Layout.Near.VertsPerSlot {
		return fmt.Errorf("render: upload of %d vertices to slot %d: a slot holds %d", count, slot, r.opt.Layout.Near.VertsPerSlot)
	}
	if count*slots.WordsPerVertex > len(verts) {
		return fmt.Errorf("render: upload of %d vertices to slot %d with only %d words", count, slot, len(verts))
	}
	r.makeCurrent()
	r.slotCounts[slot] = count
	r.slotLOD.Coarse[slot] = slots.CoarseCount(verts, count)
	r.stats.Uploads++
	r.shadow.dirty = true
	if count == 0 {
		return nil
	}
	gl.BindBuffer(gl.ARRAY_BUFFER, r.vbo)
	gl.BufferSubData(gl.ARRAY_BUFFER, slot*r.opt.Layout.Near.VertsPerSlot*slots.BytesPerVertex, count*slots.BytesPerVertex, gl.Ptr(verts))
	return glError("slot upload")
}

// Clear forgets a slot's vertices. It writes nothing to the GPU: the count
// drops to zero and the stale vertices are never drawn (the draw input's
// count for this slot must be zero too, or the slot omitted).
func (r *Renderer) Clear(slot int) {
	if slot < 0 || slot >= r.opt.Layout.Near.Slots {
		return
	}
	r.slotCounts[slot] = 0
	r.slotLOD.Coarse[slot] = 0
	r.shadow.dirty = true
}

// Layout is the vertex buffer's layout, defaults applied.
func (r *Renderer) Layout() slots.Layout { return r.opt.Layout }
