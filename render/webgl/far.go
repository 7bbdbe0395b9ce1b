//go:build js && wasm

package webgl

import (
	"fmt"
	"syscall/js"

	"github.com/go-gl/mathgl/mgl32"

	"citydrive/render/frustum"
	"citydrive/render/glsl"
	"citydrive/render/scene"
	"citydrive/slots"
)

// The far tier, as on the desktop (render/far.go): the far slots sit in
// the one vertex buffer after the near ones, are drawn with back faces
// culled by the world program built with FAR_MASK, and a far fragment
// over a cell of the frame's near mask (an R8 texture) is discarded, so
// near and far never both draw one place. There is no depth pre-pass here,
// so the far program writes depth; the far slots wholly deep in the fog
// are left out (the desktop's software profile does the same).

type farGL struct {
	prog        *program
	counts      []int
	lists       [scene.MaxGroups]scene.DrawList
	groups      []scene.Group
	cut         [scene.MaxGroups][]scene.SlotDraw
	mask        js.Value
	maskVersion uint64
	maskN       int
	maskValid   bool
	maskOn      bool
	maskEye     mgl32.Vec3
	maskSize    float32
}

// farSink is the far region as a slots.Sink.
type farSink struct{ d *Display }

var _ slots.Sink = farSink{}

// FarSink is the far tier's region of the vertex buffer (nil when the
// layout has no far slots): the game builds the far tier only for a
// display that has one.
func (d *Display) FarSink() slots.Sink {
	if d.layout.Far.Slots == 0 {
		return nil
	}
	return farSink{d}
}

// Upload writes the first count vertices of verts into far slot slot.
func (s farSink) Upload(slot int, verts []uint32, count int) error {
	far := s.d.layout.Far
	if slot < 0 || slot >= far.Slots {
		return fmt.Errorf("webgl: far slot %d outside 0..%d", slot, far.Slots-1)
	}
	if count < 0 || count > far.VertsPerSlot || len(verts) < count*slots.WordsPerVertex {
		return fmt.Errorf("webgl: %d vertices do not fit far slot %d (%d at most, %d words given)", count, slot, far.VertsPerSlot, len(verts))
	}
	s.d.write(s.d.layout.FarFirst()+slot*far.VertsPerSlot, verts[:count*slots.WordsPerVertex])
	s.d.far.counts[slot] = count
	s.d.stats.Uploads++
	return nil
}

// Clear forgets a far slot's vertices (no GPU write).
func (s farSink) Clear(slot int) {
	if slot >= 0 && slot < len(s.d.far.counts) {
		s.d.far.counts[slot] = 0
	}
}

func (d *Display) setupFar() error {
	f := &d.far
	f.counts = make([]int, d.layout.Far.Slots)
	if d.layout.Far.Slots == 0 {
		return nil
	}
	var err error
	defs := append([]string{"FAR_MASK"}, worldDefs...)
	if f.prog, err = d.link("far world", glsl.Source(glsl.ES, defs, glsl.WorldVert), glsl.Source(glsl.ES, defs, glsl.WorldFrag)); err != nil {
		return err
	}
	gl := d.gl
	f.mask = gl.Call("createTexture")
	gl.Call("activeTexture", glTexture0+unitNearMask)
	gl.Call("bindTexture", glTexture2D, f.mask)
	gl.Call("pixelStorei", glUnpackAlignment, 1)
	one := js.Global().Get("Uint8Array").New(1)
	gl.Call("texImage2D", glTexture2D, 0, glR8, 1, 1, 0, glRed, glUnsignedByte, one)
	gl.Call("texParameteri", glTexture2D, glTexMinFilter, glNearest)
	gl.Call("texParameteri", glTexture2D, glTexMagFilter, glNearest)
	gl.Call("texParameteri", glTexture2D, glTexWrapS, glClampToEdge)
	gl.Call("texParameteri", glTexture2D, glTexWrapT, glClampToEdge)
	return nil
}

// prepareFar builds the far draw lists (fogged slots left out) and
// uploads the near mask when it changed.
func (d *Display) prepareFar(fs *frameState, fr *frustum.Frustum, st *scene.Stats) {
	f := &d.far
	f.groups = f.groups[:0]
	f.maskOn = false
	if d.layout.Far.Slots == 0 || fs.f.Loading {
		return
	}
	groups := fs.f.FarGroups
	if len(groups) > scene.MaxGroups {
		groups = groups[:scene.MaxGroups]
	}
	cam := fs.f.Camera.Position
	cut := scene.FogCutDistance(fs.fogStart, fs.fogEnd)
	for i, g := range groups {
		off := scene.Relative(g.Origin, cam)
		buf := f.cut[i][:0]
		for _, s := range g.Slots {
			if boxDist2(s.Min.Add(off), s.Max.Add(off)) > cut*cut {
				st.FarFogged++
				continue
			}
			buf = append(buf, s)
		}
		f.cut[i] = buf
		f.groups = append(f.groups, scene.Group{Origin: g.Origin, Slots: buf})
		l := &f.lists[i]
		l.Reset()
		far := d.layout.Far
		l.Build(buf, f.counts, g.Origin.Sub(cam), fr, far.Slots, far.VertsPerSlot)
		first := int32(d.layout.FarFirst())
		for k := range l.First {
			l.First[k] += first
		}
		st.FarCulled += l.Culled
		st.BadSlots += l.Bad
	}
	m := fs.f.NearMask
	f.maskOn = m != nil && m.N > 0 && len(m.Cells) >= m.N*m.N
	if !f.maskOn {
		return
	}
	if m.Version != f.maskVersion || m.N != f.maskN || !f.maskValid {
		gl := d.gl
		s := d.stageBytes(m.Cells[:m.N*m.N]).u8
		gl.Call("activeTexture", glTexture0+unitNearMask)
		gl.Call("bindTexture", glTexture2D, f.mask)
		gl.Call("pixelStorei", glUnpackAlignment, 1)
		gl.Call("texImage2D", glTexture2D, 0, glR8, m.N, m.N, 0, glRed, glUnsignedByte, s, 0)
		f.maskVersion, f.maskN, f.maskValid = m.Version, m.N, true
		st.MaskUploads++
	}
	f.maskEye = mgl32.Vec3{float32(cam[0] - m.OriginX), 0, float32(cam[2] - m.OriginZ)}
	f.maskSize = float32(float64(m.N) * m.Cell)
}

// drawFar draws the far groups lit in the main pass.
func (d *Display) drawFar(fs *frameState, ps *scene.PassStats) {
	f := &d.far
	if len(f.groups) == 0 {
		return
	}
	gl := d.gl
	p := f.prog
	gl.Call("useProgram", p.p)
	d.setLighting(p, fs)
	d.setWorld(p, fs)
	on := 0
	if f.maskOn {
		on = 1
		p.setVec3("uMaskEye", f.maskEye)
		p.setFloat("uMaskSize", f.maskSize)
	}
	p.setInt("uFarMask", on)
	gl.Call("bindVertexArray", d.vao)
	gl.Call("enable", glCullFace) // closed masses and ground, wound from their normal's side
	cam := fs.f.Camera.Position
	for i, g := range f.groups {
		p.setVec3("uOffset", scene.Relative(g.Origin, cam))
		d.multiDraw(&f.lists[i], ps)
	}
	gl.Call("disable", glCullFace)
}

// boxDist2 is the squared distance from the eye (the origin) to the box.
func boxDist2(lo, hi mgl32.Vec3) float32 {
	var s float32
	for a := 0; a < 3; a++ {
		v := max(lo[a], 0, -hi[a])
		s += v * v
	}
	return s
}
