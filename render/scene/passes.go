package scene

import (
	"fmt"
	"strings"
)

// Toggle is a choice that can follow the renderer's own policy (Auto) or
// be forced on or off.
type Toggle uint8

// Toggle values.
const (
	Auto Toggle = iota
	On
	Off
)

func (t Toggle) String() string {
	switch t {
	case On:
		return "on"
	case Off:
		return "off"
	}
	return "auto"
}

// Passes are the ways of drawing one frame that can change between two
// Draws without changing what is drawn: citydrive gpubench draws the same
// frames with several of them to measure each on the GPU. The zero value
// is the renderer's default.
type Passes struct {
	// DepthPrepass: Auto follows the renderer's options, On and Off force
	// the depth pre-pass.
	DepthPrepass Toggle
	// NoFarPrepass keeps the far tier out of the pre-pass: the main pass
	// writes its depth (near geometry is still pre-passed).
	NoFarPrepass bool
	// FarSort draws the far slots nearest first (the frame lists them in
	// slot order), so without a far pre-pass hidden far fragments fail the
	// depth test early.
	FarSort bool
	// Direct draws straight into the window's framebuffer when the target
	// would be the window's size (render scale 1): no off-screen target,
	// no blit.
	Direct bool
	// Lean uses world programs without the build-age tint's varying (the
	// tinted ones are used while the debug view is on), which also skip
	// the sky reflection where its weight is 0 (dry roads).
	Lean bool
	// VertexFog computes the far tier's fog per vertex instead of per pixel.
	VertexFog bool
	// ShadowOneTap reads the shadow map once per pixel (the hardware's
	// filtered 2×2 comparison) instead of four times, in the world
	// programs: harder shadow edges.
	ShadowOneTap bool
	// CullFar draws the near slots wholly beyond the detail cut
	// (LOD.Beyond) with back faces culled, when the options cull none:
	// there only the slots' closed coarse shells are drawn.
	CullFar bool
	// FragShadow computes the shadow map position per pixel from the
	// eye-relative one (an affine map) rather than interpolating it: three
	// varyings fewer a vertex.
	FragShadow bool
	// Pack sends what is constant over a face (the normal, the material
	// and variant, the street frame's half-width and lamp flags) as one
	// flat word each, so the smooth varyings fill three vec4 slots rather
	// than four; the normal is decoded per pixel.
	Pack bool
	// ShadowSkip reads no shadow map where the surface faces away from
	// the sun (the shadow multiplies nothing there but roads' and water's
	// specular, which keep it).
	ShadowSkip bool
	// Split hands the multi-draws over in entries of at most SplitVerts
	// vertices rather than a slot each (see SplitVerts).
	Split bool
}

// SplitVerts is the longest entry of a split multi-draw (Passes.Split), a
// whole number of triangles. Mesa's draw module sends a draw that has any
// triangle to clip through its pipeline in pieces of 4,095 vertices, and
// each time its vertex buffer fills (every ~40 vertices for the world
// programs) it resets every vertex of the piece: a cost that grows with
// the square of the piece. Split, a slot costs a fraction of that.
const SplitVerts = 255

// The option words of ParsePasses, in String's order.
const (
	wordPrepass    = "prepass"
	wordFarPrepass = "farprepass"
	wordFarSort    = "farsort"
	wordDirect     = "direct"
	wordLean       = "lean"
	wordVertexFog  = "vfog"
	wordShadow1    = "shadow1"
	wordCullFar    = "cullfar"
	wordFragShadow = "fshadow"
	wordPack       = "pack"
	wordShadowSkip = "shadowskip"
	wordSplit      = "split"
	wordBase       = "base"
)

// PassWords describes ParsePasses' words (for -h).
const PassWords = "base | comma-separated: prepass=auto|on|off, farprepass=off, farsort, direct, lean, vfog, shadow1, cullfar, fshadow, pack, shadowskip, split"

// ParsePasses reads a variant: "base" (or empty) is the default, else a
// comma-separated list of words (PassWords), each at most once.
func ParsePasses(s string) (Passes, error) {
	var p Passes
	s = strings.TrimSpace(s)
	if s == "" || s == wordBase {
		return p, nil
	}
	seen := map[string]bool{}
	for _, w := range strings.Split(s, ",") {
		w = strings.TrimSpace(w)
		key, val, hasVal := strings.Cut(w, "=")
		if seen[key] {
			return p, fmt.Errorf("pass variant %q: %s given twice", s, key)
		}
		seen[key] = true
		// onOff reads a word's value: bare or =on is on, =off is off.
		onOff := func() (bool, error) {
			switch {
			case !hasVal || val == "on":
				return true, nil
			case val == "off":
				return false, nil
			}
			return false, fmt.Errorf("pass variant %q: %s takes =on or =off, not %q", s, key, val)
		}
		set := func(field *bool, invert bool) error {
			on, err := onOff()
			*field = on != invert
			return err
		}
		var err error
		switch key {
		case wordPrepass:
			switch val {
			case "auto":
				p.DepthPrepass = Auto
			case "on":
				p.DepthPrepass = On
			case "off":
				p.DepthPrepass = Off
			default:
				err = fmt.Errorf("pass variant %q: prepass must be auto, on or off, not %q", s, val)
			}
		case wordFarPrepass:
			err = set(&p.NoFarPrepass, true)
		default:
			err = fmt.Errorf("pass variant %q: unknown word %q (%s)", s, w, PassWords)
			for _, sw := range p.switches() {
				if sw.word == key {
					err = set(sw.on, false)
					break
				}
			}
		}
		if err != nil {
			return p, err
		}
	}
	return p, nil
}

// switchWord is a plain on/off word and the field it sets.
type switchWord struct {
	word string
	on   *bool
}

// switches are p's plain on/off words, in String's order.
func (p *Passes) switches() []switchWord {
	return []switchWord{{wordFarSort, &p.FarSort}, {wordDirect, &p.Direct}, {wordLean, &p.Lean}, {wordVertexFog, &p.VertexFog},
		{wordShadow1, &p.ShadowOneTap}, {wordCullFar, &p.CullFar}, {wordFragShadow, &p.FragShadow}, {wordPack, &p.Pack},
		{wordShadowSkip, &p.ShadowSkip}, {wordSplit, &p.Split}}
}

// String is the variant's canonical name, which ParsePasses reads back.
func (p Passes) String() string {
	var w []string
	if p.DepthPrepass != Auto {
		w = append(w, wordPrepass+"="+p.DepthPrepass.String())
	}
	if p.NoFarPrepass {
		w = append(w, wordFarPrepass+"=off")
	}
	for _, sw := range p.switches() {
		if *sw.on {
			w = append(w, sw.word)
		}
	}
	if len(w) == 0 {
		return wordBase
	}
	return strings.Join(w, ",")
}
