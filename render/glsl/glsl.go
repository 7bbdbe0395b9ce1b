// Package glsl holds the world's shader sources, shared by the desktop
// renderer (GLSL 4.10 core, package render) and the browser's WebGL2 one
// (GLSL ES 3.00, package webgl): one text, two headers, so the two never
// drift apart. The header carries the vertex format's constants from the
// slots and voxel packages, so the GLSL and the Go agree.
package glsl

import (
	"fmt"
	"strconv"
	"strings"

	"citydrive/slots"
	"citydrive/voxel"
)

// Dialect is the shading language a source is for.
type Dialect int

// Dialects.
const (
	Desktop Dialect = iota // #version 410 core
	ES                     // #version 300 es (WebGL2)
)

// The version lines. ES needs precisions (its sampler2DShadow has no
// default one) and is always LEAN: GLSL ES has no 1D textures for the
// build-age tint.
const (
	desktopVersion = "#version 410 core\n"
	esVersion      = "#version 300 es\nprecision highp float;\nprecision highp int;\nprecision highp sampler2D;\nprecision highp sampler2DShadow;\nprecision highp usampler2D;\nprecision highp isampler2D;\n#define LEAN 1\n"
)

// fl writes a float constant with a decimal point: GLSL ES converts no int
// to float, so "3" where a float is meant would not compile there.
func fl(v float64) string {
	s := strconv.FormatFloat(v, 'g', -1, 64)
	if !strings.ContainsAny(s, ".e") {
		s += ".0"
	}
	return s
}

// defines is the constants' block after the version line.
var defines = fmt.Sprintf(`#define PALETTE_SIZE %d
#define LAMP_FLAG_SCALE %d.0
#define MAT_ROAD %d
#define MAT_BUILDING %d
#define MAT_WINDOW %d
#define MAT_WATER %d
#define MAT_FOLIAGE %d
#define MAT_LAMP %d
#define MAT_CAR %d
#define PALETTE_WATER %d
#define NUM_BLOCKS %d
#define BLOCK_GRASS %d
#define BLOCK_DIRT %d
#define BLOCK_WATER %d
#define CHUNK_SIZE %d
#define LAMP_SPACING %s
#define LAMP_LEFT %d
#define LAMP_RIGHT %d
#define POS_STEP %s
#define POS_BIAS_XZ %d
#define POS_BIAS_Y %d
#define ALONG_STEP %s
#define ALONG_BIAS %d.0
#define ACROSS_STEP %s
#define HALF_WIDTH_STEP %s
#define MAT_FAR_FACADE %d
#define MAT_SIGNAL %d
#define SIGNAL_LAMP_STEP %s
#define FAR_FLOOR_H %s
#define FAR_BAY_W %s
#define TERRAIN_TEX_W %d
`, slots.PaletteSize, slots.LampFlagScale, slots.MaterialRoad, slots.MaterialBuilding,
	slots.MaterialWindow, slots.MaterialWater, slots.MaterialFoliage, slots.MaterialLamp, slots.MaterialCar,
	slots.PaletteWater, voxel.NumBlocks, voxel.Grass, voxel.Dirt, voxel.Water, voxel.ChunkSize,
	fl(slots.LampSpacing), slots.LampLeft, slots.LampRight,
	fl(slots.PosStep), slots.PosBiasXZ, slots.PosBiasY, fl(slots.AlongStep), slots.AlongBias, fl(slots.AcrossStep), fl(slots.HalfWidthStep),
	slots.MaterialFarFacade, slots.MaterialSignal, fl(slots.SignalLampStep), fl(slots.FarFloorHeight), fl(slots.FarBayWidth), TerrainTexWidth)

// TerrainTexWidth is the width in texels of the voxel terrain's quad and
// chunk-table textures in GLSL ES (TerrainGLSL), where WebGL2 has no
// texture buffers; WebGL2 guarantees 2,048.
const TerrainTexWidth = 1024

// Header is the version line and the constants for d.
func Header(d Dialect) string {
	if d == ES {
		return esVersion + defines
	}
	return desktopVersion + defines
}

// Source is d's header, each of defs defined (to 1), then parts.
func Source(d Dialect, defs []string, parts ...string) string {
	var b strings.Builder
	b.WriteString(Header(d))
	for _, def := range defs {
		b.WriteString("#define " + def + " 1\n")
	}
	b.WriteString(strings.Join(parts, "\n"))
	return b.String()
}

// NearMaskGLSL discards far-tier fragments where near items are built (see
// far.go): the mask is a ground grid around the car, looked up at the
// fragment's eye-relative position plus the eye's offset from the grid's
// corner (float64 on the CPU), so it stays exact far from the origin.
const NearMaskGLSL = `
uniform int uFarMask;
uniform sampler2D uNearMask;
uniform vec3 uMaskEye;
uniform float uMaskSize;
bool nearMasked(vec3 rel) {
	if (uFarMask == 0) return false;
	vec2 uv = (rel.xz + uMaskEye.xz) / uMaskSize;
	if (uv.x < 0.0 || uv.y < 0.0 || uv.x >= 1.0 || uv.y >= 1.0) return false;
	return texture(uNearMask, uv).r > 0.0; // any non-zero byte
}
`

// The far tier's depth pre-pass: DepthVert's position (invariant, so the
// main pass matches it) plus the eye-relative position for the mask.
const DepthFarVert = SlotVertexGLSL + `
uniform mat4 uViewProj;
uniform vec3 uOffset;
out vec3 vRel;
invariant gl_Position;
void main() {
	vec3 rel = slotPos() + uOffset;
	gl_Position = uViewProj * vec4(rel, 1.0);
	vRel = rel;
}
`

const DepthFarFrag = NearMaskGLSL + `
in vec3 vRel;
void main() {
	if (nearMasked(vRel)) discard;
}
`

// SlotVertexGLSL decodes the 24-byte slot vertex (slots/format.go): words
// 0-3 at location 0, words 4-5 at location 1, as unsigned integers.
const SlotVertexGLSL = `
layout(location = 0) in uvec4 aW; // position (0, 1), colour (2), normal, material, variant (3)
vec3 slotPos() {
	int x = int(aW.x & 0x3FFFFFu) - POS_BIAS_XZ;
	int z = int((aW.x >> 22u) | ((aW.y & 0xFFFu) << 10u)) - POS_BIAS_XZ;
	int y = int(aW.y >> 12u) - POS_BIAS_Y;
	return vec3(float(x), float(y), float(z)) * POS_STEP;
}
`

// SlotWordsGLSL decodes a slot vertex's words where the world programs
// read them: the colour (word 2: RGB, or a weather palette entry,
// slots.PackColour), the octahedral normal (word 3's low 16 bits) and the
// street frame's third value (word 5: half-width + flags ×
// LAMP_FLAG_SCALE, as the wide layout has it).
const SlotWordsGLSL = `
uniform vec3 uPalette[PALETTE_SIZE];
vec3 slotColour(uint cw) {
	int pal = int(cw >> 24u);
	if (pal > 0) { // weather palette entry pal-1
		return uPalette[clamp(pal - 1, 0, PALETTE_SIZE - 1)];
	}
	return vec3(float(cw & 0xFFu), float((cw >> 8u) & 0xFFu), float((cw >> 16u) & 0xFFu)) / 255.0;
}
float streetWidthFlags(uint w5) {
	return float(w5 & 0xFFu) * HALF_WIDTH_STEP + float((w5 >> 8u) & 0xFFu) * LAMP_FLAG_SCALE;
}
float slotOcclusion(uint w5) { return float((w5 >> 16u) & 0xFFu) / 255.0; }
vec3 octNormal(uint w) {
	vec2 e = vec2(float(int(w & 0xFFu) - 127), float(int((w >> 8u) & 0xFFu) - 127)) / 127.0;
	vec3 n = vec3(e.x, 1.0 - abs(e.x) - abs(e.y), e.y);
	if (n.y < 0.0) {
		n.xz = (1.0 - abs(e.yx)) * vec2(e.x < 0.0 ? -1.0 : 1.0, e.y < 0.0 ? -1.0 : 1.0);
	}
	return normalize(n);
}
`

// The world vertex shader: slot and dynamic-region vertices. uOffset is the
// group origin minus the eye, computed in float64 on the CPU (floating
// origin), so positions here are small.
const WorldVert = SlotVertexGLSL + SlotWordsGLSL + `
layout(location = 1) in uvec2 aW45; // street frame, lamp flags, occlusion

uniform mat4 uViewProj;
uniform vec3 uOffset;
uniform mat4 uShadowVP;
uniform vec3 uShadowShift; // eye minus shadow centre
uniform int uVertsPerSlot;
#ifndef LEAN
uniform sampler1D uAgeTint; // GLSL ES has no 1D textures: ES builds are LEAN
#endif
uniform int uTintAge;

out vec3 vRel;
#ifdef PACK
// The words constant over a face (citygen's faces are flat:
// TestFacesAreFlatWhereThePackedProgramsAssumeIt) go flat as they are, so
// the smooth varyings fill two vec4 slots, not four (a software rasteriser
// interpolates a slot at a time): colour, normal, material and variant,
// street frame's half-width, lamp flags and occlusion.
flat out uvec3 vFlat;
out vec2 vStreet;
#else
out vec3 vColour;
out float vOcc;
out vec3 vNormal;
flat out int vMaterial;
flat out float vVariant; // constant per building or lot: interpolated, it speckled the lit windows
out vec3 vStreet;
#endif
#ifndef FRAG_SHADOW
out vec3 vShadow;
#endif
#ifndef LEAN
out vec4 vTint;
#endif
#ifdef VERTEX_FOG
out vec4 vFog; // fog colour, amount
uniform vec3 uZenith;
uniform vec3 uHorizon;
uniform float uFogStart;
uniform float uFogEnd;
` + SkyColourGLSL + `
#endif

invariant gl_Position;

void main() {
	vec3 rel = slotPos() + uOffset;
	gl_Position = uViewProj * vec4(rel, 1.0);
	vRel = rel;
	float along = float(aW45.x & 0xFFFFu) * ALONG_STEP - ALONG_BIAS;
	float across = float(int(aW45.x) >> 16) * ACROSS_STEP;
#ifdef PACK
	vFlat = uvec3(aW.z, aW.w, aW45.y);
	vStreet = vec2(along, across);
#else
	vColour = slotColour(aW.z);
	vOcc = slotOcclusion(aW45.y);
	vNormal = octNormal(aW.w);
	vMaterial = int((aW.w >> 16u) & 0xFFu);
	vVariant = float(aW.w >> 24u) / 256.0;
	vStreet = vec3(along, across, streetWidthFlags(aW45.y));
#endif
#ifndef FRAG_SHADOW
	vShadow = (uShadowVP * vec4(rel + uShadowShift, 1.0)).xyz * 0.5 + 0.5;
#endif
#ifndef LEAN
	vTint = uTintAge != 0 ? texelFetch(uAgeTint, gl_VertexID / uVertsPerSlot, 0) : vec4(0.0);
#endif
#ifdef VERTEX_FOG
	float d = length(rel);
	float f = clamp((d - uFogStart) / max(uFogEnd - uFogStart, 1.0), 0.0, 1.0);
	vFog = vec4(skyColour(rel / max(d, 1e-4)), f * f * (3.0 - 2.0 * f));
#endif
}
`

// The depth-only vertex shader (shadow map and depth pre-pass). Its
// position expression matches WorldVert's exactly (and is invariant) so the
// main pass can test against the pre-pass depth with GL_LEQUAL.
const DepthVert = SlotVertexGLSL + `
uniform mat4 uViewProj;
uniform vec3 uOffset;
invariant gl_Position;
void main() {
	vec3 rel = slotPos() + uOffset;
	gl_Position = uViewProj * vec4(rel, 1.0);
}
`

const DepthFrag = `
void main() {}
`

// SkyColourGLSL is the sky's colour in a direction (uZenith, uHorizon).
const SkyColourGLSL = `
vec3 skyColour(vec3 d) {
	float up = clamp(d.y, 0.0, 1.0);
	vec3 c = mix(uHorizon, uZenith, pow(up, 0.55));
	return mix(c, uHorizon * 0.75, clamp(-d.y * 4.0, 0.0, 1.0));
}
`

// LightingGLSL is shared by the world and tree fragment shaders.
const LightingGLSL = `
uniform vec3 uSunDir;
uniform vec3 uSunColour;
uniform vec3 uAmbient;
uniform vec3 uZenith;
uniform vec3 uHorizon;
uniform float uNight;
uniform float uWet;
uniform float uFogStart;
uniform float uFogEnd;
uniform sampler2DShadow uShadowMap;
uniform float uShadowOn;
uniform float uShadowTexel;

` + SkyColourGLSL + `

float shadowAt(vec3 p) {
	if (uShadowOn < 0.5 || p.x <= 0.0 || p.y <= 0.0 || p.x >= 1.0 || p.y >= 1.0 || p.z >= 1.0) {
		return 1.0;
	}
#ifdef SHADOW_ONE_TAP
	return texture(uShadowMap, p); // the hardware's filtered 2x2 comparison
#else
	float s = 0.0;
	float t = uShadowTexel;
	s += texture(uShadowMap, vec3(p.xy + vec2(-t, -t), p.z));
	s += texture(uShadowMap, vec3(p.xy + vec2(t, -t), p.z));
	s += texture(uShadowMap, vec3(p.xy + vec2(-t, t), p.z));
	s += texture(uShadowMap, vec3(p.xy + vec2(t, t), p.z));
	return s * 0.25;
#endif
}

vec3 fogged(vec3 col, vec3 rel) {
	float d = length(rel);
	if (d <= uFogStart) return col; // most of the screen: skip the sky colour's pow
	float f = clamp((d - uFogStart) / max(uFogEnd - uFogStart, 1.0), 0.0, 1.0);
	f = f * f * (3.0 - 2.0 * f);
	return mix(col, skyColour(rel / max(d, 1e-4)), f);
}

vec3 shade(vec3 base, vec3 n, float occ, float sh) {
	float ndl = max(dot(n, uSunDir), 0.0);
	float hemi = 0.65 + 0.35 * n.y;
	return base * (uAmbient * hemi * occ + uSunColour * ndl * sh);
}
`

const WorldFrag = LightingGLSL + NearMaskGLSL + SlotWordsGLSL + `
in vec3 vRel;
#ifdef PACK
flat in uvec3 vFlat; // colour, normal and material, street frame and occlusion words
in vec2 vStreet;
#else
in vec3 vColour;
in float vOcc;
in vec3 vNormal;
flat in int vMaterial;
flat in float vVariant;
in vec3 vStreet;
#endif
#ifdef FRAG_SHADOW
// The shadow map's position from the eye-relative one: an affine map, so
// per pixel it is what interpolating the vertices' would give, without
// three varyings.
uniform mat4 uShadowVP;
uniform vec3 uShadowShift;
#else
in vec3 vShadow;
#endif
#ifndef LEAN
in vec4 vTint;
#endif
#ifdef VERTEX_FOG
in vec4 vFog;
#endif

uniform vec4 uFlat; // alpha > 0: draw a flat colour (wireframe)
uniform vec3 uSignals; // scene.SignalClock: time in the cycle, period, green
out vec4 oColour;

const vec3 lampColour = vec3(1.0, 0.78, 0.45);
// Street lamps stand every LAMP_SPACING m of distance along the road at its
// kerbs; the street frame's z packs the half-width with lamp flags (see
// slots.LampLeft: the left kerb is at positive "across").
float lampLight(vec3 sf) {
	if (sf.z <= 0.0) return 0.0;
	float flags = floor(sf.z / LAMP_FLAG_SCALE);
	float hw = sf.z - flags * LAMP_FLAG_SCALE;
	float da = abs(mod(sf.x + 0.5 * LAMP_SPACING, LAMP_SPACING) - 0.5 * LAMP_SPACING);
	float acc = 0.0;
	if (mod(floor(flags / float(LAMP_LEFT)), 2.0) >= 1.0) {
		float dc = sf.y - hw;
		acc += exp(-(da * da + dc * dc) / 40.0);
	}
	if (mod(floor(flags / float(LAMP_RIGHT)), 2.0) >= 1.0) {
		float dc = sf.y + hw;
		acc += exp(-(da * da + dc * dc) / 40.0);
	}
	return acc;
}

void main() {
#ifdef FAR_MASK
	if (nearMasked(vRel)) discard; // only the far program: near draws keep early depth tests
#endif
	if (uFlat.a > 0.0) {
		oColour = uFlat;
		return;
	}
#ifdef PACK
	vec3 base = slotColour(vFlat.x);
	float occ = slotOcclusion(vFlat.z);
	vec3 n = octNormal(vFlat.y);
	int m = int((vFlat.y >> 16u) & 0xFFu);
	float variant = float(vFlat.y >> 24u) / 256.0;
	vec3 street = vec3(vStreet, streetWidthFlags(vFlat.z));
#else
	vec3 base = vColour;
	float occ = vOcc;
	int m = vMaterial;
	float variant = vVariant;
	vec3 n = vNormal;
	float nl = length(n);
	n = nl > 1e-5 ? n / nl : vec3(0.0, 1.0, 0.0);
	vec3 street = vStreet;
#endif
	vec3 view = normalize(-vRel);
#ifdef FRAG_SHADOW
	vec3 sp = (uShadowVP * vec4(vRel + uShadowShift, 1.0)).xyz * 0.5 + 0.5;
#else
	vec3 sp = vShadow;
#endif
#ifdef SHADOW_SKIP
	// Facing away from the sun the shadow multiplies nothing but the
	// specular of roads and water.
	float sh = (dot(n, uSunDir) > 0.0 || m == MAT_ROAD || m == MAT_WATER) ? shadowAt(sp) : 1.0;
#else
	float sh = shadowAt(sp);
#endif
	vec3 col = shade(base, n, clamp(occ, 0.0, 1.0), sh);
	// Each program has the branches of the materials its items use: far
	// items are roads, water, ground, foliage and far facades; near ones
	// all but far facades.
	if (m == MAT_ROAD || m == MAT_WATER) {
		vec3 h = normalize(uSunDir + view);
		float k = m == MAT_WATER ? 0.9 : 0.08 + 0.7 * uWet;
		float c = max(dot(n, h), 0.0);
		float spec = pow(c, m == MAT_WATER ? 90.0 : 24.0);
		col += uSunColour * spec * k * sh;
		float f1 = 1.0 - max(dot(n, view), 0.0);
		f1 *= f1;
		float fres = f1 * f1;
		float r = m == MAT_WATER ? 0.25 + 0.6 * fres : uWet * 0.5 * fres;
#ifdef LEAN
		if (r > 0.0) // a dry road reflects nothing: skip the sky's colour
#endif
		col = mix(col, skyColour(reflect(-view, n)), r);
	}
#ifdef FAR_MASK
	if (m == MAT_FAR_FACADE) {
		// A window grid from the facade coordinates in the street frame,
		// faded to its average where a window is under a pixel.
		vec2 g = vec2(street.x / FAR_BAY_W, street.y / FAR_FLOOR_H);
		vec2 f = fract(g);
		float win = step(0.22, f.x) * step(f.x, 0.78) * step(0.3, f.y) * step(f.y, 0.8);
		vec2 fw = fwidth(g);
		float sharp = clamp(1.5 - 2.0 * max(fw.x, fw.y), 0.0, 1.0);
		vec2 cell = floor(g);
		float h = fract(sin(dot(cell, vec2(12.9898, 78.233)) + variant * 437.1) * 43758.5453);
		vec3 glass = base * 0.3 + 0.2 * skyColour(reflect(-view, n)) * (1.0 - uNight);
		vec3 lit = vec3(1.0, 0.83, 0.52) * 1.1 * step(0.45, h) * uNight;
		vec3 w = glass + lit;
		vec3 avg = mix(col, glass + vec3(1.0, 0.83, 0.52) * 0.6 * uNight, 0.31);
		col = mix(avg, mix(col, w, win), sharp);
	}
#else
	if (m == MAT_WINDOW) {
		col += 0.18 * skyColour(reflect(-view, n)) * (1.0 - uNight);
		float lit = step(0.35, fract(variant * 13.37 + 0.21));
		col = mix(col, vec3(1.0, 0.83, 0.52) * 1.1, uNight * lit * 0.95);
	} else if (m == MAT_LAMP) {
		col = mix(col, lampColour * 1.6, uNight);
	} else if (m == MAT_SIGNAL) {
		// the lamp the approach's traffic obeys now is lit, the others dim
		int lit = -1;
		if (uSignals.y > 0.0) {
			float u = mod(uSignals.x + street.x, uSignals.y);
			lit = u < uSignals.z ? 2 : (u < 0.5 * uSignals.y ? 1 : 0);
		}
		int k = int(variant / SIGNAL_LAMP_STEP + 0.5);
		col = k == lit ? base * (1.3 + 1.2 * uNight) : base * 0.2 * (1.0 - 0.5 * uNight);
	}
#endif
	if (uNight > 0.0) { // a uniform branch: by day the pools cost nothing
		col += base * lampColour * lampLight(street) * uNight * 1.4;
	}
#ifdef VERTEX_FOG
	col = mix(col, vFog.rgb, vFog.a);
#else
	col = fogged(col, vRel);
#endif
#ifndef LEAN
	col = mix(col, vTint.rgb, vTint.a);
#endif
	oColour = vec4(col, 1.0);
}
`

// Trees: one mesh, instanced. Instance positions arrive relative to the
// camera; uOffset moves them for the shadow pass.
const TreeVert = `
layout(location = 0) in vec3 aPos;
layout(location = 1) in vec3 aNormal;
layout(location = 2) in float aPart;
layout(location = 5) in vec3 iPos;
layout(location = 6) in vec2 iScaleVariant;

uniform mat4 uViewProj;
uniform vec3 uOffset;
uniform mat4 uShadowVP;
uniform vec3 uShadowShift;

out vec3 vRel;
out vec3 vNormal;
out vec3 vColour;
out vec3 vShadow;

void main() {
	float s = iScaleVariant.x;
	float v = iScaleVariant.y;
	float a = v * 6.2831853;
	mat2 r = mat2(cos(a), sin(a), -sin(a), cos(a));
	vec3 p = aPos;
	p.xz = r * p.xz;
	vec3 n = aNormal;
	n.xz = r * n.xz;
	// Crowns vary a little in width and height with the variant.
	if (aPart > 0.5) {
		p.xz *= 0.85 + 0.3 * fract(v * 7.1);
		p.y = 2.4 + (p.y - 2.4) * (0.85 + 0.3 * fract(v * 3.7));
	}
	vec3 rel = iPos + p * s + uOffset;
	gl_Position = uViewProj * vec4(rel, 1.0);
	vRel = rel;
	vNormal = n;
	vec3 crown = mix(vec3(0.16, 0.36, 0.12), vec3(0.32, 0.46, 0.14), fract(v * 5.3));
	vColour = aPart > 0.5 ? crown : vec3(0.33, 0.24, 0.16);
	vShadow = (uShadowVP * vec4(rel + uShadowShift, 1.0)).xyz * 0.5 + 0.5;
}
`

const TreeFrag = LightingGLSL + `
in vec3 vRel;
in vec3 vNormal;
in vec3 vColour;
in vec3 vShadow;
out vec4 oColour;
void main() {
	vec3 n = normalize(vNormal);
	vec3 col = shade(vColour, n, 1.0, shadowAt(vShadow));
	oColour = vec4(fogged(col, vRel), 1.0);
}
`

// VehicleVert draws traffic instances: one small mesh of
// scene.VehicleModels models, per instance the camera-relative position,
// the heading's cosine and sine, and the body colour.
const VehicleVert = `
layout(location = 0) in vec3 aPos;
layout(location = 1) in vec3 aNormal;
layout(location = 2) in float aPart;
layout(location = 5) in vec3 iPos;
layout(location = 6) in vec2 iCosSin;
layout(location = 7) in vec3 iColour;

uniform mat4 uViewProj;
uniform mat4 uShadowVP;
uniform vec3 uShadowShift;

out vec3 vRel;
out vec3 vNormal;
out vec3 vColour;
flat out int vPart;
out vec3 vShadow;

void main() {
	// heading from +X towards +Z
	mat2 r = mat2(iCosSin.x, iCosSin.y, -iCosSin.y, iCosSin.x);
	vec3 p = aPos;
	p.xz = r * p.xz;
	vec3 n = aNormal;
	n.xz = r * n.xz;
	vec3 rel = iPos + p;
	gl_Position = uViewProj * vec4(rel, 1.0);
	vRel = rel;
	vNormal = n;
	vColour = iColour;
	vPart = int(aPart + 0.5);
	vShadow = (uShadowVP * vec4(rel + uShadowShift, 1.0)).xyz * 0.5 + 0.5;
}
`

// VehicleFrag: body in the instance colour with a little gloss, glass
// reflecting the sky, head and tail lights that glow with the night.
const VehicleFrag = LightingGLSL + `
in vec3 vRel;
in vec3 vNormal;
in vec3 vColour;
flat in int vPart;
in vec3 vShadow;
out vec4 oColour;
void main() {
	vec3 n = normalize(vNormal);
	vec3 view = normalize(-vRel);
	vec3 col;
	if (vPart == 0) { // body: the instance colour, a little gloss
		col = shade(vColour, n, 1.0, shadowAt(vShadow));
		vec3 h = normalize(uSunDir + view);
		col += uSunColour * pow(max(dot(n, h), 0.0), 40.0) * 0.35;
		// the street lamps light the traffic too (the city's streets are lit
		// along their kerbs; a vehicle is always on a street)
		col += vColour * vec3(1.0, 0.78, 0.45) * 0.35 * uNight * (0.6 + 0.4 * max(n.y, 0.0));
	} else if (vPart == 1) { // glass: dark, reflecting the sky
		col = shade(vec3(0.06, 0.08, 0.1), n, 1.0, 1.0) + 0.25 * skyColour(reflect(-view, n)) * (1.0 - 0.7 * uNight);
	} else if (vPart == 2) { // headlights
		col = mix(vec3(0.75, 0.75, 0.7), vec3(1.0, 0.95, 0.8) * 3.0, uNight);
	} else if (vPart == 3) { // tail lights
		col = mix(vec3(0.45, 0.05, 0.04), vec3(1.0, 0.1, 0.06) * 2.0, uNight);
	} else { // tyres
		col = shade(vec3(0.04), n, 1.0, 1.0);
	}
	oColour = vec4(fogged(col, vRel), 1.0);
}
`

// The sky: one full-screen triangle at the far plane (depth 1), drawn after
// the opaque geometry with GL_LEQUAL so it only fills what nothing covered.
const SkyVert = `
out vec2 vNdc;
void main() {
	vec2 p = vec2(gl_VertexID == 1 ? 3.0 : -1.0, gl_VertexID == 2 ? 3.0 : -1.0);
	vNdc = p;
	gl_Position = vec4(p, 1.0, 1.0);
}
`

const SkyFrag = LightingGLSL + `
in vec2 vNdc;
uniform mat4 uInvViewProj;
uniform vec3 uSunDisc; // direction of the sun (or moon) disc
uniform float uDiscSize;
out vec4 oColour;
void main() {
	vec4 w = uInvViewProj * vec4(vNdc, 1.0, 1.0);
	vec3 d = normalize(w.xyz / w.w);
	vec3 col = skyColour(d);
	float disc = smoothstep(uDiscSize, uDiscSize + 0.002, dot(d, uSunDisc));
	col = mix(col, uSunColour * 1.6 + vec3(0.2), disc * step(0.0, d.y));
	oColour = vec4(col, 1.0);
}
`

// Debug lines (slot boxes), positions relative to the camera.
const LineVert = `
layout(location = 0) in vec3 aPos;
layout(location = 1) in vec3 aColour;
uniform mat4 uViewProj;
out vec3 vColour;
void main() {
	gl_Position = uViewProj * vec4(aPos, 1.0);
	vColour = aColour;
}
`

const LineFrag = `
in vec3 vColour;
out vec4 oColour;
void main() { oColour = vec4(vColour, 1.0); }
`

// HUD: screen-space quads in pixels (origin top left), textured with the
// built-in font atlas.
const HudVert = `
layout(location = 0) in vec2 aPos;
layout(location = 1) in vec2 aUV;
layout(location = 2) in vec4 aColour;
uniform vec2 uScreen;
out vec2 vUV;
out vec4 vColour;
void main() {
	gl_Position = vec4(aPos.x / uScreen.x * 2.0 - 1.0, 1.0 - aPos.y / uScreen.y * 2.0, 0.0, 1.0);
	vUV = aUV;
	vColour = aColour;
}
`

const HudFrag = `
in vec2 vUV;
in vec4 vColour;
uniform sampler2D uFont;
out vec4 oColour;
void main() {
	float a = texture(uFont, vUV).r;
	oColour = vec4(vColour.rgb, vColour.a * a);
}
`

// TerrainGLSL expands voxel quads from gl_VertexID: no vertex buffer, the
// quads stay in the mesher's 8-byte format (voxel/mesh.Quad) in an RG32UI
// texture buffer, and the chunk of each slot comes from an RGBA32I table.
// gl_VertexID includes the multi-draw's first, so gl_VertexID / 6 is the
// quad's index in the whole store and that divided by the slot size is its
// slot. Positions are relative to the eye: the chunk difference is exact
// integer arithmetic, and only the eye's offset inside its chunk (in
// [0, 32)) is a float, so nothing loses precision far from the world
// origin. The Go mirror of the expansion is render/terrain.Corner.
//
// WebGL2 has no texture buffers: in GLSL ES (GL_ES is defined there) the
// quads and the chunk table are 2-D integer textures TerrainTexWidth texels
// wide, texel i at (i mod width, i / width); the text after the fetch is
// the same for both.
const TerrainGLSL = `
#ifdef GL_ES
uniform highp usampler2D uQuads;
uniform highp isampler2D uChunkTable;
uvec2 quadAt(int i) { return texelFetch(uQuads, ivec2(i % TERRAIN_TEX_W, i / TERRAIN_TEX_W), 0).xy; }
ivec3 chunkAt(int i) { return texelFetch(uChunkTable, ivec2(i % TERRAIN_TEX_W, i / TERRAIN_TEX_W), 0).xyz; }
#else
uniform usamplerBuffer uQuads;
uniform isamplerBuffer uChunkTable;
uvec2 quadAt(int i) { return texelFetch(uQuads, i).xy; }
ivec3 chunkAt(int i) { return texelFetch(uChunkTable, i).xyz; }
#endif
uniform int uQuadsPerSlot;
uniform ivec3 uEyeChunk;
uniform vec3 uEyeFrac;

vec3 terrainVertex(out vec3 local, out int face, out int block, out ivec3 chunk) {
	int q = gl_VertexID / 6;
	int c = gl_VertexID - q * 6;
	int k = c < 3 ? c : (c == 3 ? 0 : c - 2); // corners 0 1 2, 0 2 3
	uvec2 d = quadAt(q); // x: bits 0-31, y: bits 32-63
	uint lo = d.x;
	ivec3 p = ivec3(int(lo & 31u), int((lo >> 5u) & 31u), int((lo >> 10u) & 31u));
	int w = int((lo >> 15u) & 31u) + 1;
	int h = int((lo >> 20u) & 31u) + 1;
	face = int((lo >> 25u) & 7u);
	block = int((lo >> 28u) | ((d.y & 15u) << 4u));
	int axis = face >> 1;
	bool pos = (face & 1) == 0;
	ivec3 U = axis == 0 ? ivec3(0, 0, 1) : ivec3(1, 0, 0);
	ivec3 V = axis == 1 ? ivec3(0, 0, 1) : ivec3(0, 1, 0);
	int cu = (k == 1 || k == 2) ? 1 : 0;
	int cv = k >= 2 ? 1 : 0;
	if (pos != (axis == 2)) { // wind counter-clockwise seen from outside
		int t = cu;
		cu = cv;
		cv = t;
	}
	ivec3 lp = p + U * (cu * w) + V * (cv * h);
	if (pos) {
		lp += ivec3(axis == 0 ? 1 : 0, axis == 1 ? 1 : 0, axis == 2 ? 1 : 0);
	}
	chunk = chunkAt(q / uQuadsPerSlot);
	local = vec3(lp);
	return vec3((chunk - uEyeChunk) * CHUNK_SIZE) - uEyeFrac + local;
}
`

// The terrain depth-only vertex shader (shadow map and depth pre-pass); its
// position expression is TerrainMainVert's, invariant.
const TerrainDepthVert = TerrainGLSL + `
uniform mat4 uViewProj;
invariant gl_Position;
void main() {
	vec3 local;
	int face, block;
	ivec3 chunk;
	vec3 rel = terrainVertex(local, face, block, chunk);
	gl_Position = uViewProj * vec4(rel, 1.0);
}
`

const TerrainMainVert = TerrainGLSL + `
uniform mat4 uViewProj;
uniform mat4 uShadowVP;
uniform vec3 uShadowShift; // eye minus shadow centre
out vec3 vRel;
out vec3 vLocal;
flat out int vFace;
flat out int vBlock;
flat out ivec3 vChunk;
out vec3 vShadow;
invariant gl_Position;
void main() {
	vec3 local;
	int face, block;
	ivec3 chunk;
	vec3 rel = terrainVertex(local, face, block, chunk);
	gl_Position = uViewProj * vec4(rel, 1.0);
	vRel = rel;
	vLocal = local;
	vFace = face;
	vBlock = block;
	vChunk = chunk;
	vShadow = (uShadowVP * vec4(rel + uShadowShift, 1.0)).xyz * 0.5 + 0.5;
}
`

// The terrain fragment shader: the face normal, a colour per block id
// (water from the weather palette, like the lake), a slight per-block
// brightness jitter so the voxels read, and the slots' sun, sky, shadow and
// fog lighting (LightingGLSL).
const TerrainFrag = LightingGLSL + `
in vec3 vRel;
in vec3 vLocal;
flat in int vFace;
flat in int vBlock;
flat in ivec3 vChunk;
in vec3 vShadow;
uniform vec3 uPalette[PALETTE_SIZE];
uniform vec3 uBlockColour[NUM_BLOCKS];
uniform vec4 uFlat; // alpha > 0: draw a flat colour (wireframe)
uniform vec3 uSignals; // scene.SignalClock: time in the cycle, period, green
out vec4 oColour;

void main() {
	if (uFlat.a > 0.0) {
		oColour = uFlat;
		return;
	}
	int axis = vFace >> 1;
	float sgn = (vFace & 1) == 0 ? 1.0 : -1.0;
	vec3 n = vec3(axis == 0 ? sgn : 0.0, axis == 1 ? sgn : 0.0, axis == 2 ? sgn : 0.0);
	bool water = vBlock == BLOCK_WATER;
	vec3 base = vec3(1.0, 0.0, 1.0);
	if (water) {
		base = uPalette[PALETTE_WATER];
	} else if (vBlock >= 0 && vBlock < NUM_BLOCKS) {
		base = uBlockColour[vBlock];
		if (vBlock == BLOCK_GRASS && axis != 1) {
			base = mix(base, uBlockColour[BLOCK_DIRT], 0.5); // grass sides
		}
		ivec3 b = vChunk * CHUNK_SIZE + ivec3(floor(vLocal - n * 0.5));
		uint hs = uint(b.x) * 73856093u ^ uint(b.y) * 19349663u ^ uint(b.z) * 83492791u;
		hs = (hs ^ (hs >> 13u)) * 1274126177u;
		base *= (0.94 + 0.08 * float(hs >> 24u) / 255.0) * (1.0 - 0.2 * uWet);
	}
	vec3 view = normalize(-vRel);
	float sh = shadowAt(vShadow);
	vec3 col = shade(base, n, 1.0, sh);
	if (water) {
		vec3 h = normalize(uSunDir + view);
		col += uSunColour * pow(max(dot(n, h), 0.0), 90.0) * 0.9 * sh;
		float fres = pow(1.0 - max(dot(n, view), 0.0), 4.0);
		col = mix(col, skyColour(reflect(-view, n)), 0.25 + 0.6 * fres);
	}
	oColour = vec4(fogged(col, vRel), 1.0);
}
`

// The floor frame's triangle (DrawFloor): full screen, depth 0.5 (it
// passes the cleared depth and writes it), one constant colour.
const FloorVert = `
void main() {
	vec2 p = vec2(gl_VertexID == 1 ? 3.0 : -1.0, gl_VertexID == 2 ? 3.0 : -1.0);
	gl_Position = vec4(p, 0.0, 1.0);
}
`

const FloorFrag = `
out vec4 oColour;
void main() { oColour = vec4(0.5, 0.6, 0.7, 1.0); }
`
