package render

import (
	"errors"
	"fmt"
	"slices"

	"github.com/go-gl/gl/v4.1-core/gl"
	"github.com/go-gl/mathgl/mgl32"
)

// Passes (scene.Passes) are ways of drawing a frame that can change
// between Draws; gpubench measures them side by side on the same frames.
// Each is off in the zero value, which draws as before.

// SetPasses sets how the following frames are drawn.
func (r *Renderer) SetPasses(p Passes) { r.passes = p }

// Passes returns how frames are drawn now.
func (r *Renderer) Passes() Passes { return r.passes }

// HoldShadow, while on, keeps the sun's shadow map as it is: no refresh
// and no frame counted towards one (gpubench draws one frame many times,
// and times the shadow map only on the frame's first draw).
func (r *Renderer) HoldShadow(on bool) { r.holdShadow = on }

// prepassOn says whether this frame draws the depth pre-pass.
func (r *Renderer) prepassOn() bool {
	switch r.passes.DepthPrepass {
	case On:
		return true
	case Off:
		return false
	}
	return !r.opt.NoDepthPrepass
}

// worldKey names a world program variant.
type worldKey struct {
	far, lean, vertexFog, shadowOneTap bool
	fragShadow, pack, shadowSkip       bool
}

// worldProgram is the world program for near (or far) slots under this
// frame's passes: the default ones from setup, or a variant compiled the
// first time it is asked for. Per-vertex fog is for the far tier only:
// near triangles can be long (the lake reaches 4.8 km), where fog is not
// linear along a triangle.
func (r *Renderer) worldProgram(far bool, fs *frameState) *program {
	k := worldKey{far: far, lean: r.passes.Lean && !fs.tintAge, vertexFog: far && r.passes.VertexFog, shadowOneTap: r.passes.ShadowOneTap,
		fragShadow: r.passes.FragShadow, pack: r.passes.Pack, shadowSkip: r.passes.ShadowSkip}
	if k == (worldKey{far: far}) {
		if far {
			return r.worldFar
		}
		return r.world
	}
	if p, ok := r.worldVariants[k]; ok {
		return p
	}
	var defs []string
	name := "world"
	if far {
		defs, name = append(defs, "FAR_MASK"), "far world"
	}
	for _, d := range []struct {
		on        bool
		def, name string
	}{{k.lean, "LEAN", "lean"}, {k.vertexFog, "VERTEX_FOG", "vertex fog"}, {k.shadowOneTap, "SHADOW_ONE_TAP", "one-tap shadow"},
		{k.fragShadow, "FRAG_SHADOW", "shadow per pixel"}, {k.pack, "PACK", "packed"}, {k.shadowSkip, "SHADOW_SKIP", "shadow skipped facing away"}} {
		if d.on {
			defs, name = append(defs, d.def), name+" "+d.name
		}
	}
	p, err := newProgram(name, defSrc(defs, worldVert), defSrc(defs, worldFrag))
	if err != nil { // the sources are ours: a failure is a bug, drawn as the default
		r.variantErr = errors.Join(r.variantErr, fmt.Errorf("render: %w", err))
		p = r.world
		if far {
			p = r.worldFar
		}
	}
	if r.worldVariants == nil {
		r.worldVariants = map[worldKey]*program{}
	}
	r.worldVariants[k] = p
	return p
}

// sortFar puts each far group's slots nearest first (distance from the
// eye to the slot's box), into buffers the renderer keeps.
func (r *Renderer) sortFar(groups []Group, fs *frameState) []Group {
	cam := fs.f.Camera.Position
	r.farSorted = r.farSorted[:0]
	for i, g := range groups {
		off := rel32(g.Origin, cam)
		keys := r.farKeys[:0]
		for k := range g.Slots {
			keys = append(keys, farKey{d: boxDist2(g.Slots[k].Min.Add(off), g.Slots[k].Max.Add(off)), i: k})
		}
		slices.SortFunc(keys, func(a, b farKey) int {
			switch {
			case a.d < b.d:
				return -1
			case a.d > b.d:
				return 1
			}
			return a.i - b.i
		})
		buf := r.farSortBuf[i][:0]
		for _, k := range keys {
			buf = append(buf, g.Slots[k.i])
		}
		r.farSortBuf[i], r.farKeys = buf, keys
		r.farSorted = append(r.farSorted, Group{Origin: g.Origin, Slots: buf})
	}
	return r.farSorted
}

type farKey struct {
	d float32
	i int
}

// boxDist2 is the squared distance from the origin to the box.
func boxDist2(lo, hi mgl32.Vec3) float32 {
	var s float32
	for a := 0; a < 3; a++ {
		v := max(lo[a], 0, -hi[a])
		s += v * v
	}
	return s
}

// DrawFloor draws one floor frame into the last Draw's off-screen target:
// a colour and depth clear, one full-screen triangle (constant colour,
// depth written) and the blit to the window, each timed (TimedFrame.Floor).
// It is what any frame of that size costs at least on this GPU; gpubench
// measures it between the game's frames, so that both run at one clock.
func (r *Renderer) DrawFloor() error {
	if r.closed {
		return fmt.Errorf("render: draw after Close")
	}
	if r.target.fbo == 0 {
		return errors.New("render: DrawFloor before the first Draw (no target yet)")
	}
	r.makeCurrent()
	fbW, fbH := r.win.GetFramebufferSize()
	tw, th := int32(r.target.w), int32(r.target.h)
	r.timer.beginFrame(true)
	r.timer.begin(gpuFloorClear)
	gl.BindFramebuffer(gl.FRAMEBUFFER, r.target.fbo)
	gl.Viewport(0, 0, tw, th)
	gl.ClearColor(0.2, 0.3, 0.4, 1)
	gl.DepthMask(true)
	gl.ClearDepth(1)
	gl.Clear(gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT)
	r.timer.begin(gpuFloorTriangle)
	gl.Enable(gl.DEPTH_TEST)
	gl.DepthFunc(gl.LESS)
	gl.Disable(gl.BLEND)
	r.floorProg.use()
	gl.BindVertexArray(r.emptyVAO)
	gl.DrawArrays(gl.TRIANGLES, 0, 3)
	r.timer.begin(gpuFloorBlit)
	gl.BindFramebuffer(gl.READ_FRAMEBUFFER, r.target.fbo)
	gl.BindFramebuffer(gl.DRAW_FRAMEBUFFER, 0)
	gl.BlitFramebuffer(0, 0, tw, th, 0, 0, int32(fbW), int32(fbH), gl.COLOR_BUFFER_BIT, gl.LINEAR)
	r.timer.end()
	gl.BindFramebuffer(gl.FRAMEBUFFER, 0)
	return glError("floor frame")
}

// hasDefaultDepth says whether the window's framebuffer has a depth
// buffer (Passes.Direct needs one).
func hasDefaultDepth() bool {
	gl.BindFramebuffer(gl.FRAMEBUFFER, 0)
	var bits int32
	gl.GetFramebufferAttachmentParameteriv(gl.FRAMEBUFFER, gl.DEPTH, gl.FRAMEBUFFER_ATTACHMENT_DEPTH_SIZE, &bits)
	return glError("default framebuffer depth") == nil && bits > 0
}
