package render

import (
	"fmt"

	"github.com/go-gl/gl/v4.1-core/gl"
)

// target is the off-screen colour+depth framebuffer the world is drawn
// into at the render scale, then blitted to the window.
type target struct {
	fbo, colour, depth uint32
	w, h               int
}

func (t *target) ensure(w, h int) error {
	if t.fbo != 0 && t.w == w && t.h == h {
		return nil
	}
	t.delete()
	t.w, t.h = w, h
	gl.GenFramebuffers(1, &t.fbo)
	gl.BindFramebuffer(gl.FRAMEBUFFER, t.fbo)
	gl.GenTextures(1, &t.colour)
	gl.BindTexture(gl.TEXTURE_2D, t.colour)
	gl.TexImage2D(gl.TEXTURE_2D, 0, gl.RGBA8, int32(w), int32(h), 0, gl.RGBA, gl.UNSIGNED_BYTE, nil)
	gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.LINEAR)
	gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.LINEAR)
	gl.FramebufferTexture2D(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.TEXTURE_2D, t.colour, 0)
	gl.GenRenderbuffers(1, &t.depth)
	gl.BindRenderbuffer(gl.RENDERBUFFER, t.depth)
	gl.RenderbufferStorage(gl.RENDERBUFFER, gl.DEPTH_COMPONENT24, int32(w), int32(h))
	gl.FramebufferRenderbuffer(gl.FRAMEBUFFER, gl.DEPTH_ATTACHMENT, gl.RENDERBUFFER, t.depth)
	if s := gl.CheckFramebufferStatus(gl.FRAMEBUFFER); s != gl.FRAMEBUFFER_COMPLETE {
		return fmt.Errorf("render: off-screen target %dx%d incomplete (0x%x)", w, h, s)
	}
	return nil
}

func (t *target) delete() {
	if t.fbo != 0 {
		gl.DeleteFramebuffers(1, &t.fbo)
		gl.DeleteTextures(1, &t.colour)
		gl.DeleteRenderbuffers(1, &t.depth)
		t.fbo, t.colour, t.depth = 0, 0, 0
	}
}

// shadowMap is the sun's depth texture and its framebuffer.
type shadowMap struct {
	fbo, tex uint32
	size     int
	dirty    bool // set by slot uploads and clears, terrain inserts and removes
	terrain  bool // whether the map was last rendered with terrain
}

func (s *shadowMap) init(size int) error {
	if size <= 0 {
		size = 1024
	}
	s.size = size
	gl.GenTextures(1, &s.tex)
	gl.BindTexture(gl.TEXTURE_2D, s.tex)
	gl.TexImage2D(gl.TEXTURE_2D, 0, gl.DEPTH_COMPONENT24, int32(size), int32(size), 0, gl.DEPTH_COMPONENT, gl.FLOAT, nil)
	gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.LINEAR)
	gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.LINEAR)
	gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_S, gl.CLAMP_TO_EDGE)
	gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_T, gl.CLAMP_TO_EDGE)
	gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_COMPARE_MODE, gl.COMPARE_REF_TO_TEXTURE)
	gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_COMPARE_FUNC, gl.LEQUAL)
	gl.GenFramebuffers(1, &s.fbo)
	gl.BindFramebuffer(gl.FRAMEBUFFER, s.fbo)
	gl.FramebufferTexture2D(gl.FRAMEBUFFER, gl.DEPTH_ATTACHMENT, gl.TEXTURE_2D, s.tex, 0)
	gl.DrawBuffer(gl.NONE)
	gl.ReadBuffer(gl.NONE)
	st := gl.CheckFramebufferStatus(gl.FRAMEBUFFER)
	gl.BindFramebuffer(gl.FRAMEBUFFER, 0)
	if st != gl.FRAMEBUFFER_COMPLETE {
		return fmt.Errorf("render: shadow map framebuffer incomplete (0x%x)", st)
	}
	return nil
}

func (s *shadowMap) delete() {
	if s.fbo != 0 {
		gl.DeleteFramebuffers(1, &s.fbo)
		gl.DeleteTextures(1, &s.tex)
		s.fbo, s.tex = 0, 0
	}
}
