package render

import (
	"fmt"

	"github.com/go-gl/gl/v4.1-core/gl"
	"github.com/go-gl/mathgl/mgl32"

	"citydrive/render/frustum"
	"citydrive/render/scene"
	"citydrive/slots"
)

// The far tier: the slots of Options.Layout.Far in the same vertex
// buffer, after the near slots and before the dynamic region. Far slots are drawn (depth pre-pass and main pass, never the
// shadow map) with the near mask: a fragment over a cell the frame's
// NearMask marks is discarded, in both passes, so near and far geometry
// never both draw one place, and where a near item is not built yet the
// far item still shows.

const unitNearMask = 5

// farSink is the far region as a slots.Sink.
type farSink struct{ r *Renderer }

var _ slots.Sink = farSink{}

// FarSink is the far tier's region of the vertex buffer, for the far slot
// table (nil when Options.Layout.Far.Slots is 0).
func (r *Renderer) FarSink() slots.Sink {
	if r.opt.Layout.Far.Slots == 0 {
		return nil
	}
	return farSink{r}
}

// Upload writes the first count vertices of verts into far slot slot.
func (s farSink) Upload(slot int, verts []uint32, count int) error {
	r := s.r
	if slot < 0 || slot >= r.opt.Layout.Far.Slots {
		return fmt.Errorf("render: upload to far slot %d out of range [0, %d)", slot, r.opt.Layout.Far.Slots)
	}
	if count < 0 || count > r.opt.Layout.Far.VertsPerSlot || count*slots.WordsPerVertex > len(verts) {
		return fmt.Errorf("render: upload of %d vertices to far slot %d (holds %d, %d words given)", count, slot, r.opt.Layout.Far.VertsPerSlot, len(verts))
	}
	r.makeCurrent()
	r.farCounts[slot] = count
	r.stats.Uploads++
	if count == 0 {
		return nil
	}
	gl.BindBuffer(gl.ARRAY_BUFFER, r.vbo)
	off := (int(r.farFirst) + slot*r.opt.Layout.Far.VertsPerSlot) * slots.BytesPerVertex
	gl.BufferSubData(gl.ARRAY_BUFFER, off, count*slots.BytesPerVertex, gl.Ptr(verts))
	return glError("far slot upload")
}

// Clear forgets a far slot's vertices (writes nothing to the GPU).
func (s farSink) Clear(slot int) {
	if slot >= 0 && slot < len(s.r.farCounts) {
		s.r.farCounts[slot] = 0
	}
}

// setupFar allocates the near-mask texture.
func (r *Renderer) setupFar() {
	r.farCounts = make([]int, r.opt.Layout.Far.Slots)
	gl.GenTextures(1, &r.maskTex)
	gl.BindTexture(gl.TEXTURE_2D, r.maskTex)
	one := []uint8{0}
	gl.PixelStorei(gl.UNPACK_ALIGNMENT, 1)
	gl.TexImage2D(gl.TEXTURE_2D, 0, gl.R8, 1, 1, 0, gl.RED, gl.UNSIGNED_BYTE, gl.Ptr(one))
	gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.NEAREST)
	gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.NEAREST)
	gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_S, gl.CLAMP_TO_EDGE)
	gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_T, gl.CLAMP_TO_EDGE)
}

// prepareFar builds the far draw lists for the camera and uploads the near
// mask when it changed.
func (r *Renderer) prepareFar(fs *frameState, fr *frustum.Frustum, st *Stats) {
	fs.farGroups = nil
	if r.opt.Layout.Far.Slots == 0 || fs.f.Loading {
		return
	}
	fs.farGroups = fs.f.FarGroups
	if len(fs.farGroups) > scene.MaxGroups {
		fs.farGroups = fs.farGroups[:scene.MaxGroups]
	}
	if r.passes.FarSort {
		fs.farGroups = r.sortFar(fs.farGroups, fs)
	}
	cam := fs.f.Camera.Position
	if r.opt.FarFogCut {
		fs.farGroups = r.fogCutFar(fs.farGroups, fs, st)
	}
	for i, g := range fs.farGroups {
		l := &r.farLists[i]
		l.Reset()
		l.Build(g.Slots, r.farCounts, g.Origin.Sub(cam), fr, r.opt.Layout.Far.Slots, r.opt.Layout.Far.VertsPerSlot)
		for k := range l.First {
			l.First[k] += r.farFirst
		}
		st.FarCulled += l.Culled
		st.BadSlots += l.Bad
	}
	m := fs.f.NearMask
	fs.maskOn = m != nil && m.N > 0 && len(m.Cells) >= m.N*m.N
	if !fs.maskOn {
		return
	}
	if m.Version != r.maskVersion || m.N != r.maskN || !r.maskValid {
		gl.ActiveTexture(gl.TEXTURE0 + unitNearMask)
		gl.BindTexture(gl.TEXTURE_2D, r.maskTex)
		gl.PixelStorei(gl.UNPACK_ALIGNMENT, 1)
		if m.N != r.maskN {
			gl.TexImage2D(gl.TEXTURE_2D, 0, gl.R8, int32(m.N), int32(m.N), 0, gl.RED, gl.UNSIGNED_BYTE, gl.Ptr(m.Cells))
		} else {
			gl.TexSubImage2D(gl.TEXTURE_2D, 0, 0, 0, int32(m.N), int32(m.N), gl.RED, gl.UNSIGNED_BYTE, gl.Ptr(m.Cells))
		}
		r.maskVersion, r.maskN, r.maskValid = m.Version, m.N, true
		st.MaskUploads++
	}
	fs.maskEye = mgl32.Vec3{float32(cam[0] - m.OriginX), 0, float32(cam[2] - m.OriginZ)}
	fs.maskSize = float32(float64(m.N) * m.Cell)
}

// fogCutFar leaves out the far slots whose box is wholly farther from
// the eye than the distance where the fog reaches scene.FarFogCutFog,
// into buffers the renderer keeps (order kept).
func (r *Renderer) fogCutFar(groups []Group, fs *frameState, st *Stats) []Group {
	cut := scene.FogCutDistance(fs.fogStart, fs.fogEnd)
	cam := fs.f.Camera.Position
	r.farCut = r.farCut[:0]
	for i, g := range groups {
		off := rel32(g.Origin, cam)
		buf := r.farCutBuf[i][:0]
		for _, s := range g.Slots {
			if boxDist2(s.Min.Add(off), s.Max.Add(off)) > cut*cut {
				st.FarFogged++
				continue
			}
			buf = append(buf, s)
		}
		r.farCutBuf[i] = buf
		r.farCut = append(r.farCut, Group{Origin: g.Origin, Slots: buf})
	}
	return r.farCut
}

// setFarMask sets the mask uniforms of p: on for far draws, off otherwise.
func (r *Renderer) setFarMask(p *program, fs *frameState, far bool) {
	on := int32(0)
	if far && fs.maskOn {
		on = 1
	}
	p.setInt("uFarMask", on)
	p.setInt("uNearMask", unitNearMask)
	if on == 0 {
		return
	}
	p.setInt("uNearMask", unitNearMask)
	gl.ActiveTexture(gl.TEXTURE0 + unitNearMask)
	gl.BindTexture(gl.TEXTURE_2D, r.maskTex)
	p.setVec3("uMaskEye", fs.maskEye)
	p.setFloat("uMaskSize", fs.maskSize)
}

// drawFar multi-draws the far groups with p (already in use, uViewProj set).
func (r *Renderer) drawFar(p *program, fs *frameState, ps *PassStats) {
	if len(fs.farGroups) == 0 {
		return
	}
	r.setFarMask(p, fs, true)
	// Far geometry is closed masses and ground, wound counter-clockwise
	// from its normal's side (citygen's quadN): back faces never show.
	gl.Enable(gl.CULL_FACE)
	defer gl.Disable(gl.CULL_FACE)
	gl.BindVertexArray(r.vao)
	cam := fs.f.Camera.Position
	for i, g := range fs.farGroups {
		p.setVec3("uOffset", rel32(g.Origin, cam))
		r.multiDraw(gl.TRIANGLES, &r.farLists[i], ps)
	}
	r.setFarMask(p, fs, false)
}
