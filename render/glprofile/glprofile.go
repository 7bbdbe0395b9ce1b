// Package glprofile chooses how to draw for the GL implementation at
// hand: the full picture on a GPU, or the software profile, the passes
// that are cheap where a CPU rasterises (Mesa's llvmpipe, softpipe,
// swrast). llvmpipe shades vertices on the thread that calls GL and
// fragments on its other threads, on the same few cores: both the
// vertices sent a frame and the fragments shaded count. Pure policy: it
// reads the GL_RENDERER string and returns settings; package render
// applies them.
package glprofile

import (
	"fmt"
	"strings"

	"citydrive/render/scene"
	"citydrive/slots"
)

// Mode is what -gl-profile asks for.
type Mode int

const (
	Auto     Mode = iota // software when the renderer is a software one
	Full                 // always the full picture
	Software             // always the software profile
)

var modeNames = [...]string{Auto: "auto", Full: "full", Software: "software"}

// Words describes ParseMode's words (for -h).
const Words = "auto | full | software"

func (m Mode) String() string {
	if m < 0 || int(m) >= len(modeNames) {
		return fmt.Sprintf("Mode(%d)", int(m))
	}
	return modeNames[m]
}

// ParseMode reads a Mode by name.
func ParseMode(s string) (Mode, error) {
	for m, n := range modeNames {
		if strings.EqualFold(strings.TrimSpace(s), n) {
			return Mode(m), nil
		}
	}
	return Auto, fmt.Errorf("unknown GL profile %q (want %s)", s, Words)
}

// softwareRenderers are substrings of GL_RENDERER naming a CPU
// rasteriser (Mesa's: "llvmpipe (LLVM 15.0.6, 256 bits)", "softpipe",
// "Software Rasterizer" from swrast).
var softwareRenderers = []string{"llvmpipe", "softpipe", "swrast", "software rasterizer"}

// IsSoftware says whether a GL_RENDERER string names a CPU rasteriser.
func IsSoftware(renderer string) bool {
	r := strings.ToLower(renderer)
	for _, s := range softwareRenderers {
		if strings.Contains(r, s) {
			return true
		}
	}
	return false
}

// Choice is the profile chosen and why (for the log).
type Choice struct {
	Software bool
	Reason   string
}

// Name is the chosen profile's name.
func (c Choice) Name() string {
	if c.Software {
		return modeNames[Software]
	}
	return modeNames[Full]
}

// Choose picks the profile for mode m on the GL renderer named renderer.
func Choose(m Mode, renderer string) Choice {
	switch m {
	case Full:
		return Choice{Reason: "-gl-profile full"}
	case Software:
		return Choice{Software: true, Reason: "-gl-profile software"}
	}
	if IsSoftware(renderer) {
		return Choice{Software: true, Reason: fmt.Sprintf("GL renderer %q rasterises on the CPU", renderer)}
	}
	return Choice{Reason: fmt.Sprintf("GL renderer %q is not a software one", renderer)}
}

// Settings are what a profile changes in the renderer. The zero value is
// the full profile: nothing changed.
type Settings struct {
	// Passes replace the renderer's default passes (a -passes of its own
	// wins over them).
	Passes scene.Passes
	// DetailBeyond (m) replaces slots.DetailBeyond: near slots farther
	// than this draw only their coarse prefix (0: slots.DetailBeyond).
	DetailBeyond float64
	// ShadowLOD draws the shadow map with the same detail cut, measured
	// from the shadow map's centre (details cast a pixel of shadow).
	ShadowLOD bool
	// ShadowSize (texels) replaces the performance profile's shadow map
	// size when smaller (0: the profile's).
	ShadowSize int
	// FarFogCut leaves out far-tier slots that lie wholly deep in the fog
	// (render.Options.FarFogCut), every frame.
	FarFogCut bool
	// CullBackFacesBeyond (m, 0: never) culls the back faces of near
	// slots wholly farther than this (render.Options.CullBackFacesBeyond).
	CullBackFacesBeyond float64
	// ShadowMoveShare (0: scene.ShadowMove metres) is the share of the
	// shadow map's half extent the camera may take it along before it is
	// redrawn (render.Options.ShadowMoveShare).
	ShadowMoveShare float64
	// VehicleDetailBeyond (m, 0: never) draws traffic wholly farther than
	// this without its details (render.Options.VehicleDetailBeyond).
	VehicleDetailBeyond float64
}

// The software profile's figures.
const (
	// softwareDetailBeyond: slots.DetailBeyond is where a 0.45 m detail
	// spans about 3 pixels of a 1080-pixel view; the software profile
	// draws 720 pixels high at the 0.55 render-scale floor, 396 pixels,
	// where the same detail spans 3 pixels at 140 × 396/1080 ≈ 51 m.
	softwareDetailBeyond = slots.DetailBeyond * 396 / 1080
	// softwareShadowSize: a 1024² map over the 160 m half range is a
	// texel of 0.3 m, still finer than a pixel of the 396-pixel view
	// beyond 30 m.
	softwareShadowSize = 1024
	// softwareShadowMoveShare: a refresh is another scene as dear as a
	// third of a frame, every 8 m of driving (scene.ShadowMove) it was a
	// frame in five at 10 fps. Moving a quarter of the half extent (40 m
	// of 160) the map still covers the view's direction from a quarter
	// behind the eye to 1.25 ahead (200 m), where the full map's edge lies
	// at 232-240 m; and the map's 0.3 m texels are under a pixel of the
	// 396-pixel view beyond 30 m, so what moves at a refresh is a texel.
	softwareShadowMoveShare = 0.25
)

// fullPasses are the full profile's passes, the cheapest of
// gpubench's variants on the H200 at 1920x1080 and 3840x2160 that draw the
// default's picture (docs/rendering.md, "Pass variants"): the pre-pass
// cost more than it saved (its 0.36 ms of vertices against 0.24 ms of
// main pass), and the lean programs save 0.15 ms of fragment work.
var fullPasses = scene.Passes{DepthPrepass: scene.Off, FarSort: true, Lean: true}

// For returns the settings of the chosen profile.
func For(c Choice) Settings {
	if !c.Software {
		return Settings{Passes: fullPasses}
	}
	return Settings{
		// The pre-pass sends every vertex twice. Without it the far tier
		// is drawn nearest first so that hidden far fragments fail the
		// depth test before shading; one shadow tap and the lean
		// programs cut the fragment work, per-vertex fog the far tier's.
		// llvmpipe interpolates varyings a vec4 slot at a time: packed,
		// the world programs' smooth ones fill three slots, not four.
		// Split draws keep Mesa's clipping path from resetting thousands
		// of vertices at every vertex-buffer flush (scene.SplitVerts).
		Passes:       scene.Passes{DepthPrepass: scene.Off, FarSort: true, Lean: true, VertexFog: true, ShadowOneTap: true, Pack: true, Split: true},
		DetailBeyond: softwareDetailBeyond,
		ShadowLOD:    true,
		ShadowSize:   softwareShadowSize,
		FarFogCut:    true,
		// Back faces are half of a closed building's triangles: culled,
		// llvmpipe neither bins nor rasterises them. Only beyond the
		// detail cut: nearer, the open ledges and shop canopies show
		// their backs from below.
		CullBackFacesBeyond: softwareDetailBeyond,
		// Traffic is a few hundred instances of 396 vertices, most of them
		// far away: beyond the same distance their lights and tyres (under
		// 0.45 m) are under 3 pixels, and the body, cabin and roof are
		// 108 vertices.
		VehicleDetailBeyond: softwareDetailBeyond,
		ShadowMoveShare:     softwareShadowMoveShare,
	}
}

// String describes the settings for the log.
func (s Settings) String() string {
	if s == (Settings{Passes: fullPasses}) {
		return "as built, passes " + s.Passes.String()
	}
	return fmt.Sprintf("passes %s, slot detail beyond %.0f m, shadow map %d² (detail cut %v), far slots deep in fog left out %v, back faces culled beyond %.0f m, traffic without details beyond %.0f m, shadow map redrawn after %.2f of its half extent", s.Passes, s.DetailBeyond, s.ShadowSize, s.ShadowLOD, s.FarFogCut, s.CullBackFacesBeyond, s.VehicleDetailBeyond, s.ShadowMoveShare)
}
